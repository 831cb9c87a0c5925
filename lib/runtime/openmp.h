// OpenMP regions whole (docs/openmp.md): what the libgomp interposition
// (openmp.cpp) and the OMPT tool for LLVM's libomp (ompt.cpp) share. A team
// carries the region path open on the thread that started it; every other
// thread of the team borrows that path for its share of the work.
#ifndef RPROF_RUNTIME_OPENMP_H_
#define RPROF_RUNTIME_OPENMP_H_

#include <cstdint>

#include "runtime/thread_state.h"

namespace rprof::runtime {

using OmpFn = void (*)(void*);

struct OmpTeam {
  OmpFn fn = nullptr;  // the outlined function (libgomp)
  void* data = nullptr;
  const ThreadState* starter = nullptr;
  int depth = 0;
  uint32_t path[kMaxDepth];
};

// On the starting thread: its open path into team; false when no region is
// open there (the team then needs nothing).
bool omp_capture(OmpTeam& team);

// On a team thread: borrows the team's path unless the thread already is in
// it (the starting thread, a thread running a task of its own team); returns
// the frames opened, for omp_leave(), which closes them when they are the
// innermost ones and returns how many it closed (0 or frames).
int omp_join(const OmpTeam& team);
int omp_leave(int frames);

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_OPENMP_H_
