// The process's thread states: created on a thread's first marker, released
// when it ends (runtime/thread_state.h, Lifetime: kept whole, or folded into
// the one "exited threads" state and reused by a later thread).
//
// The list only grows (states are never freed, so a flush walking it never
// reads freed memory) and holds the threads alive at once plus the kept and
// folded ones, never one state per thread ever created: the flush, the fork
// reset and a new thread's search for a vacant state walk that many.
#ifndef RPROF_RUNTIME_THREAD_REGISTRY_H_
#define RPROF_RUNTIME_THREAD_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "runtime/thread_state.h"

namespace rprof::runtime {

struct ThreadList {
  std::atomic<ThreadState*>& head;
  std::atomic<uint32_t>& count;  // indices handed out
  Backend* backend;
  int num_counters;  // the backend's
  bool cpu_time;     // a state adds the thread CPU time after them (thread_state.h)
};

// A state for the calling thread (tid): a vacant one reused, else a new one
// (its ThreadShared in the shared tables when they are open). Null when out
// of memory.
ThreadState* acquire_thread(const ThreadList& list, int tid);
// The calling thread is ending: keep its state whole or fold and release it.
// True when it was released (the thread must not use it again).
bool release_thread(const ThreadList& list, ThreadState* t);
// Held while a state is folded; a flush outside a signal handler holds it so
// it never sees a thread half folded.
std::mutex& fold_mutex();
// Called by the session's fork handlers (one pthread_atfork for the runtime).
void thread_registry_before_fork();
void thread_registry_after_fork_parent();
void thread_registry_after_fork_child();

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_THREAD_REGISTRY_H_
