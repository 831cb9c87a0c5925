// OpenMP regions whole with LLVM's libomp (and Intel's, its sibling): an OMPT
// tool (OpenMP 5.0, ch. 4). libomp looks ompt_start_tool up in the process
// at start-up; librprof's registers these callbacks:
//   parallel_begin   on the starting thread: its open path into a team
//                    (parallel_data->ptr), when a region is open there;
//   implicit_task    on each team thread, begin: a copy of the team's path
//                    on the thread's level stack, borrowed (omp_join); end:
//                    closed, the level popped;
//   sync_region      an implicit or explicit barrier: the borrowed frames
//                    closed at its begin and opened again at its end. libomp
//                    reports a worker's implicit task end only when the
//                    worker leaves the barrier that ends the region for its
//                    next team, so frames left open there would count its
//                    wait between regions in the region. Barrier waits on
//                    worker threads are therefore not in the region;
//   task_create,     an explicit task run by a thread inside a barrier (its
//   task_schedule    frames closed) borrows the path of the thread's team
//                    while it runs;
//   parallel_end     the team freed.
// The task data libomp passes at a worker's implicit task end is not the one
// of its begin, so the levels are per thread, not in the task data.
// GCC's libgomp has no OMPT; openmp.cpp interposes its entry points. A
// program built by GCC and run on libomp (which provides the GOMP_ entry
// points too) gets both: the second finds the path already borrowed and
// opens nothing.
//
// The types are the few of omp-tools.h this needs, declared here so that
// librprof builds without an OpenMP runtime's headers.
#include <cstdint>
#include <new>

#include "runtime/quiet.h"
#include "rprof/rprof.h"
#include "runtime/openmp.h"
#include "runtime/session.h"

namespace {

union OmptData {
  uint64_t value;
  void* ptr;
};
using OmptInterfaceFn = void (*)();
using OmptLookup = OmptInterfaceFn (*)(const char*);
using OmptInitialize = int (*)(OmptLookup, int, OmptData*);
using OmptFinalize = void (*)(OmptData*);
struct OmptStartToolResult {
  OmptInitialize initialize;
  OmptFinalize finalize;
  OmptData tool_data;
};
using OmptCallback = void (*)();
using OmptSetCallback = int (*)(int event, OmptCallback callback);

// omp-tools.h: ompt_callbacks_t, ompt_scope_endpoint_t, ompt_task_flag_t,
// ompt_set_result_t.
constexpr int kParallelBegin = 3;
constexpr int kParallelEnd = 4;
constexpr int kTaskCreate = 5;
constexpr int kTaskSchedule = 6;
constexpr int kImplicitTask = 7;
constexpr int kTaskExplicit = 0x4;
// Marks an explicit task's data (task_create) for task_schedule.
constexpr uint64_t kExplicitMark = 0x7270726f66ull;
constexpr int kSyncRegion = 23;
// ompt_sync_region_t: barrier kinds (libomp 14 reports implicit barriers as
// the deprecated 2, later ones as 8 and 9).
bool is_barrier(int kind) {
  return kind == 1 || kind == 2 || kind == 3 || kind == 8 || kind == 9;
}
constexpr int kScopeBegin = 1;
constexpr int kScopeEnd = 2;
constexpr int kTaskInitial = 0x1;
constexpr int kSetNever = 1;

using rprof::runtime::OmpTeam;

// One implicit task a thread runs, innermost last: the team's path (a copy:
// the team is freed at parallel_end, possibly before a worker's late end)
// and the frames borrowed for it now.
constexpr int kMaxLevels = 8;
struct Level {
  bool has_team = false;
  int frames = 0;
  OmpTeam team;
};
struct Levels {
  int depth = 0;  // may exceed kMaxLevels: those levels borrow nothing
  Level level[kMaxLevels];
};
thread_local Levels* t_levels = nullptr;
thread_local int t_task_frames = 0;  // borrowed for the explicit task running

Level* top() {
  Levels* l = t_levels;
  return l != nullptr && l->depth > 0 && l->depth <= kMaxLevels ? &l->level[l->depth - 1]
                                                                 : nullptr;
}

void on_parallel_begin(OmptData* /*encountering_task*/, const void* /*frame*/,
                       OmptData* parallel, unsigned /*requested*/, int /*flags*/,
                       const void* /*codeptr*/) {
  parallel->ptr = nullptr;
  OmpTeam probe;
  if (!rprof::runtime::omp_capture(probe)) return;
  const rprof::Quiet quiet;
  parallel->ptr = new (std::nothrow) OmpTeam(probe);
}

void on_parallel_end(OmptData* parallel, OmptData* /*encountering_task*/, int /*flags*/,
                     const void* /*codeptr*/) {
  if (parallel == nullptr || parallel->ptr == nullptr) return;
  const rprof::Quiet quiet;
  delete static_cast<OmpTeam*>(parallel->ptr);
  parallel->ptr = nullptr;
}

void on_implicit_task(int endpoint, OmptData* parallel, OmptData* /*task*/,
                      unsigned /*team_size*/, unsigned /*index*/, int flags) {
  if ((flags & kTaskInitial) != 0) return;
  if (endpoint == kScopeBegin) {
    const OmpTeam* team = parallel != nullptr ? static_cast<const OmpTeam*>(parallel->ptr)
                                              : nullptr;
    if (t_levels == nullptr) {
      if (team == nullptr) return;  // nothing to borrow, nothing to pop
      const rprof::Quiet quiet;
      t_levels = new (std::nothrow) Levels;
      if (t_levels == nullptr) return;
    }
    Levels& l = *t_levels;
    if (++l.depth > kMaxLevels) return;
    Level& v = l.level[l.depth - 1];
    v.has_team = team != nullptr;
    v.frames = 0;
    if (team == nullptr) return;
    v.team = *team;
    v.frames = rprof::runtime::omp_join(v.team);
  } else if (endpoint == kScopeEnd) {
    if (t_levels == nullptr || t_levels->depth == 0) return;
    if (Level* v = top()) {
      rprof::runtime::omp_leave(v->frames);
      v->frames = 0;
      v->has_team = false;
    }
    --t_levels->depth;
  }
}

void on_sync_region(int kind, int endpoint, OmptData* /*parallel*/, OmptData* /*task*/,
                    const void* /*codeptr*/) {
  if (!is_barrier(kind)) return;
  Level* v = top();
  if (v == nullptr || !v->has_team) return;
  if (endpoint == kScopeBegin) {
    // Not while a region the thread opened is open above them (a marker
    // around a worksharing loop and its barrier): they stay until it closes.
    if (rprof::runtime::omp_leave(v->frames) == v->frames) v->frames = 0;
  } else if (endpoint == kScopeEnd && v->frames == 0) {
    v->frames = rprof::runtime::omp_join(v->team);
  }
}

void on_task_create(OmptData* /*encountering*/, const void* /*frame*/, OmptData* task,
                    int flags, int /*has_dependences*/, const void* /*codeptr*/) {
  if (task != nullptr && (flags & kTaskExplicit) != 0) task->value = kExplicitMark;
}

void on_task_schedule(OmptData* prior, int /*prior_status*/, OmptData* next) {
  if (prior != nullptr && prior->value == kExplicitMark && t_task_frames > 0) {
    if (rprof::runtime::omp_leave(t_task_frames) == t_task_frames) t_task_frames = 0;
  }
  if (next == nullptr || next->value != kExplicitMark || t_task_frames > 0) return;
  // Outside a barrier the thread is in the path already: omp_join opens nothing.
  if (Level* v = top(); v != nullptr && v->has_team) {
    t_task_frames = rprof::runtime::omp_join(v->team);
  }
}

int initialize(OmptLookup lookup, int /*device*/, OmptData* /*tool_data*/) {
  const auto set = reinterpret_cast<OmptSetCallback>(lookup("ompt_set_callback"));
  if (set == nullptr) return 0;
  // All three or none: a team without its end would leak, an implicit task
  // without the team's path has nothing to borrow.
  if (set(kParallelBegin, reinterpret_cast<OmptCallback>(on_parallel_begin)) == kSetNever ||
      set(kParallelEnd, reinterpret_cast<OmptCallback>(on_parallel_end)) == kSetNever ||
      set(kImplicitTask, reinterpret_cast<OmptCallback>(on_implicit_task)) == kSetNever) {
    return 0;
  }
  // Without it, frames close at the implicit task's end.
  set(kSyncRegion, reinterpret_cast<OmptCallback>(on_sync_region));
  set(kTaskCreate, reinterpret_cast<OmptCallback>(on_task_create));
  set(kTaskSchedule, reinterpret_cast<OmptCallback>(on_task_schedule));
  return 1;  // keep the tool active
}

void finalize(OmptData* /*tool_data*/) {}

OmptStartToolResult g_tool = {initialize, finalize, {0}};

}  // namespace

// Outside a profiled run (markers inactive) no tool: libomp runs as without
// rprof. libomp asks at its own start-up, after the runtime's constructor.
extern "C" RPROF_API OmptStartToolResult* ompt_start_tool(unsigned /*omp_version*/,
                                                          const char* /*runtime_version*/) {
  return rprof::runtime::g_active.load(std::memory_order_acquire) ? &g_tool : nullptr;
}
