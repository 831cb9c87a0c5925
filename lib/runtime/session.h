// The process-wide session: the launcher handshake (environment), the backend,
// the registry of thread states, and flushing the raw profile at exit and on
// request (no signal handler: a process killed by a signal keeps its
// completed regions in the shared tables).
//
// Handshake (set by the `rprof` launcher; the names are in runtime/handshake.h,
// documented in docs/profile-schema.md):
//   RPROF_OUTPUT_DIR  directory for raw profiles (required: markers are
//                     inactive without it)
//   RPROF_BACKEND     time (default), sim, perf, papi, likwid, fake
//   RPROF_VERBOSE=1   say on stderr why markers are inactive
#ifndef RPROF_RUNTIME_SESSION_H_
#define RPROF_RUNTIME_SESSION_H_

#include <atomic>

#include "runtime/thread_state.h"

namespace rprof::runtime {

// True once the handshake succeeded. Read on every marker call.
extern std::atomic<bool> g_active;

// The calling thread's state, created on first use (null when inactive or out
// of memory).
ThreadState* current_thread();

// The calling thread's state if it has one; never creates it (signal handlers).
ThreadState* existing_thread();

// The backend's counter k, or null (valid once g_active is true).
const char* session_counter_name(int k);

// Writes the raw profile now. reason: "exit", "signal" or "explicit".
int flush_profile(const char* reason, int signal);

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_SESSION_H_
