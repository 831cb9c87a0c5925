// OpenMP regions whole: the threads of a parallel region work in the region
// path that was open on the thread that started it.
//
// GCC's libgomp: the GOMP_parallel* entry points are interposed (librprof is
// loaded before libgomp; the real ones come from dlsym(RTLD_NEXT)). The
// outlined function is wrapped so that each team thread other than the
// starting one opens the starting thread's path as borrowed frames
// (ThreadState::borrow) for the length of its share: a node of that path in
// the thread's own tree, read by the backend like any begin/end, so
// per-thread rows hold each thread's share and the region counts the threads
// that worked in it. Borrowed frames add no call.
//
// LLVM's libomp: the same through OMPT (ompt_start_tool): parallel_begin
// captures the path on the starting thread, implicit_task begin/end borrows
// it on each team thread.
//
// Conventions: a thread whose open path already starts with the team's (the
// starting thread, a team thread running a task of its own team, with or
// without its own markers open inside) borrows nothing. Explicit tasks run on
// team threads inherit the team's path through the thread (libgomp runs them
// inside the outlined function or its barrier); a task run outside its team
// keeps the running thread's path.
// A marker inside the parallel region nests under the inherited path; one of
// the same name as an inherited region counts as recursion on its node (calls
// add, counts are not taken twice). Nested parallel regions inherit the whole
// path, borrowed frames included.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <new>

#include "runtime/quiet.h"
#include "rprof/rprof.h"
#include "runtime/openmp.h"
#include "runtime/session.h"
#include "runtime/signals.h"

namespace rprof::runtime {
namespace {

using Fn = OmpFn;
using Team = OmpTeam;

// True when the thread's open path starts with the team's: it works in the
// team's region already (its own markers may be open inside).
bool in_path(const ThreadState& t, const Team& team) {
  uint32_t mine[kMaxDepth];
  const int n = t.open_path(mine, kMaxDepth);
  if (n < team.depth) return false;
  for (int i = 0; i < team.depth; ++i) {
    if (mine[i] != team.path[i]) return false;
  }
  return true;
}

}  // namespace

bool omp_capture(Team& team) {
  if (!g_active.load(std::memory_order_relaxed) || in_signal_handler()) return false;
  const ThreadState* t = existing_thread();
  if (t == nullptr) return false;
  team.starter = t;
  team.depth = t->open_path(team.path, kMaxDepth);
  return team.depth > 0;
}

int omp_join(const Team& team) {
  if (!g_active.load(std::memory_order_relaxed) || in_signal_handler()) return 0;
  const Quiet quiet;
  ThreadState* t = current_thread();
  if (t == nullptr || t == team.starter || in_path(*t, team)) return 0;
  if (!t->enter_call()) return 0;
  const int n = t->borrow(team.path, team.depth);
  t->leave_call();
  return n;
}

int omp_leave(int n) {
  if (n == 0) return 0;
  const Quiet quiet;
  ThreadState* t = existing_thread();
  if (t == nullptr || !t->enter_call()) return 0;
  const int closed = t->unborrow(n);
  t->leave_call();
  return closed;
}

namespace {

void team_fn(void* p) {
  const Team* team = static_cast<const Team*>(p);
  const int n = omp_join(*team);
  team->fn(team->data);
  omp_leave(n);
}

// The next definition of name (libgomp's), looked up once into slot, out of
// every simulated count. Called only by a program that calls the entry point,
// so its OpenMP runtime is loaded.
void* next(std::atomic<void*>& slot, const char* name) {
  void* p = slot.load(std::memory_order_acquire);
  if (p == nullptr) {
    const Quiet quiet;
    p = dlsym(RTLD_NEXT, name);
    if (p == nullptr) __builtin_trap();
    slot.store(p, std::memory_order_release);
  }
  return p;
}

// The old API (GOMP_parallel_start ... GOMP_parallel_end): the starting thread
// runs fn itself between the two calls; its team is kept here until the end.
constexpr int kMaxOldTeams = 16;
thread_local Team* t_old_teams[kMaxOldTeams];
thread_local int t_old_depth = 0;

// A team for the old API (on the heap: the start returns before the end), or
// null to run unwrapped.
Team* old_team(Fn fn, void* data) {
  const int d = t_old_depth++;
  if (d >= kMaxOldTeams) return nullptr;
  t_old_teams[d] = nullptr;
  Team probe;
  if (!omp_capture(probe)) return nullptr;
  const Quiet quiet;
  Team* team = new (std::nothrow) Team(probe);
  if (team != nullptr) {
    team->fn = fn;
    team->data = data;
  }
  t_old_teams[d] = team;
  return team;
}

void old_team_end() {
  if (t_old_depth == 0) return;
  const int d = --t_old_depth;
  Team* team = d < kMaxOldTeams ? t_old_teams[d] : nullptr;
  if (team != nullptr) {
    const Quiet quiet;
    delete team;
  }
}

}  // namespace
}  // namespace rprof::runtime

// The real entry point.
#define RPROF_REAL(name, type)                   \
  static std::atomic<void*> slot_##name{nullptr}; \
  const auto real = reinterpret_cast<type>(rprof::runtime::next(slot_##name, #name));

using rprof::runtime::Fn;
using rprof::runtime::Team;
using rprof::runtime::team_fn;

// Each wrapper: the team's path captured on the stack of the starting thread
// (the call returns after the team joins), the outlined function wrapped.
#define RPROF_WRAP_CALL(...)                               \
  Team team;                                               \
  if (!rprof::runtime::omp_capture(team)) {                    \
    real(fn, data, __VA_ARGS__);                           \
    return;                                                \
  }                                                        \
  team.fn = fn;                                            \
  team.data = data;                                        \
  real(team_fn, &team, __VA_ARGS__);

extern "C" {

RPROF_API void GOMP_parallel(Fn fn, void* data, unsigned num_threads, unsigned flags) {
  RPROF_REAL(GOMP_parallel, void (*)(Fn, void*, unsigned, unsigned));
  RPROF_WRAP_CALL(num_threads, flags);
}

RPROF_API unsigned GOMP_parallel_reductions(Fn fn, void* data, unsigned num_threads,
                                            unsigned flags) {
  RPROF_REAL(GOMP_parallel_reductions, unsigned (*)(Fn, void*, unsigned, unsigned));
  Team team;
  if (!rprof::runtime::omp_capture(team)) return real(fn, data, num_threads, flags);
  team.fn = fn;
  team.data = data;
  return real(team_fn, &team, num_threads, flags);
}

RPROF_API void GOMP_parallel_sections(Fn fn, void* data, unsigned num_threads,
                                      unsigned count, unsigned flags) {
  RPROF_REAL(GOMP_parallel_sections, void (*)(Fn, void*, unsigned, unsigned, unsigned));
  RPROF_WRAP_CALL(num_threads, count, flags);
}

#define RPROF_PARALLEL_LOOP(name)                                                         \
  RPROF_API void name(Fn fn, void* data, unsigned num_threads, long start, long end,     \
                      long incr, long chunk_size, unsigned flags) {                       \
    RPROF_REAL(name, void (*)(Fn, void*, unsigned, long, long, long, long, unsigned));    \
    RPROF_WRAP_CALL(num_threads, start, end, incr, chunk_size, flags);                    \
  }
#define RPROF_PARALLEL_LOOP_RUNTIME(name)                                                 \
  RPROF_API void name(Fn fn, void* data, unsigned num_threads, long start, long end,     \
                      long incr, unsigned flags) {                                        \
    RPROF_REAL(name, void (*)(Fn, void*, unsigned, long, long, long, unsigned));          \
    RPROF_WRAP_CALL(num_threads, start, end, incr, flags);                                \
  }

RPROF_PARALLEL_LOOP(GOMP_parallel_loop_static)
RPROF_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
RPROF_PARALLEL_LOOP(GOMP_parallel_loop_guided)
RPROF_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
RPROF_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
RPROF_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
RPROF_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
RPROF_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

RPROF_API void GOMP_parallel_start(Fn fn, void* data, unsigned num_threads) {
  RPROF_REAL(GOMP_parallel_start, void (*)(Fn, void*, unsigned));
  Team* team = rprof::runtime::old_team(fn, data);
  if (team == nullptr) {
    real(fn, data, num_threads);
  } else {
    real(team_fn, team, num_threads);
  }
}

RPROF_API void GOMP_parallel_sections_start(Fn fn, void* data, unsigned num_threads,
                                            unsigned count) {
  RPROF_REAL(GOMP_parallel_sections_start, void (*)(Fn, void*, unsigned, unsigned));
  Team* team = rprof::runtime::old_team(fn, data);
  real(team == nullptr ? fn : team_fn, team == nullptr ? data : team, num_threads, count);
}

#define RPROF_PARALLEL_LOOP_START(name)                                                 \
  RPROF_API void name(Fn fn, void* data, unsigned num_threads, long start, long end,   \
                      long incr, long chunk_size) {                                     \
    RPROF_REAL(name, void (*)(Fn, void*, unsigned, long, long, long, long));            \
    Team* team = rprof::runtime::old_team(fn, data);                                    \
    real(team == nullptr ? fn : team_fn, team == nullptr ? data : team, num_threads,    \
         start, end, incr, chunk_size);                                                 \
  }
RPROF_PARALLEL_LOOP_START(GOMP_parallel_loop_static_start)
RPROF_PARALLEL_LOOP_START(GOMP_parallel_loop_dynamic_start)
RPROF_PARALLEL_LOOP_START(GOMP_parallel_loop_guided_start)

RPROF_API void GOMP_parallel_loop_runtime_start(Fn fn, void* data, unsigned num_threads,
                                                long start, long end, long incr) {
  RPROF_REAL(GOMP_parallel_loop_runtime_start,
             void (*)(Fn, void*, unsigned, long, long, long));
  Team* team = rprof::runtime::old_team(fn, data);
  real(team == nullptr ? fn : team_fn, team == nullptr ? data : team, num_threads, start,
       end, incr);
}

RPROF_API void GOMP_parallel_end(void) {
  RPROF_REAL(GOMP_parallel_end, void (*)());
  real();
  rprof::runtime::old_team_end();
}

}  // extern "C"
