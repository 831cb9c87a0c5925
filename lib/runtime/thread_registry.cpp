#include "runtime/thread_registry.h"

#include <new>

#include "runtime/shared_tables.h"

namespace rprof::runtime {
namespace {

std::mutex g_fold_mutex;
ThreadState* g_folded = nullptr;       // the "exited threads" state, under g_fold_mutex
uint32_t g_kept_exited = 0;            // ended threads kept whole, under g_fold_mutex

ThreadState* make_state(const ThreadList& list, int tid, ThreadRole role) {
  const uint32_t index = list.count.fetch_add(1);
  auto* shared = static_cast<ThreadShared*>(
      tables_alloc(RecordType::kThread, index, 0, sizeof(ThreadShared)));
  auto* t = new (std::nothrow) ThreadState(role == ThreadRole::kLive ? list.backend : nullptr,
                                           list.num_counters, index, tid, shared, list.cpu_time);
  if (t == nullptr) return nullptr;
  if (role != ThreadRole::kLive) t->revive(tid, role);
  t->next = list.head.load(std::memory_order_relaxed);
  while (!list.head.compare_exchange_weak(t->next, t, std::memory_order_release,
                                          std::memory_order_relaxed)) {
  }
  return t;
}

}  // namespace

std::mutex& fold_mutex() { return g_fold_mutex; }

// A fork while another thread folds must not leave the child's mutex held or
// the states half folded: fork waits for the fold.
void thread_registry_before_fork() { g_fold_mutex.lock(); }
void thread_registry_after_fork_parent() { g_fold_mutex.unlock(); }
// In the child only the forking thread's state is left in the list
// (session.cpp): a later fold starts a new "exited threads" state.
void thread_registry_after_fork_child() {
  new (&g_fold_mutex) std::mutex;
  g_folded = nullptr;
  g_kept_exited = 0;
}

ThreadState* acquire_thread(const ThreadList& list, int tid) {
  for (ThreadState* t = list.head.load(std::memory_order_acquire); t != nullptr; t = t->next) {
    if (t->vacant() && t->claim()) {
      t->revive(tid, ThreadRole::kLive);
      return t;
    }
  }
  return make_state(list, tid, ThreadRole::kLive);
}

bool release_thread(const ThreadList& list, ThreadState* t) {
  const std::lock_guard<std::mutex> lock(g_fold_mutex);
  // Kept whole: the main thread (index 0), a thread that ends with regions
  // open (their open times are its own), and the first kKeptExitedThreads.
  if (t->index() == 0 || t->depth() > 0 || g_kept_exited < kKeptExitedThreads) {
    if (t->index() != 0) ++g_kept_exited;
    t->mark_exited();
    return false;
  }
  if (g_folded == nullptr) g_folded = make_state(list, 0, ThreadRole::kFolded);
  if (g_folded == nullptr) {
    t->mark_exited();
    return false;
  }
  t->fold_into(*g_folded);
  t->release();
  return true;
}

}  // namespace rprof::runtime
