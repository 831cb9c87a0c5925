// Merging several runs of the same program into one profile: the sim
// backend's timed (native) and counted (simulated) runs, the hardware
// backends' runs, one per event group. One algorithm for both:
//
// The first run gives calls, times, per-thread rows, declared work and
// errors; every later run adds its counters per region (inclusive and
// exclusive) and per thread. Regions are matched by path; threads by process
// and thread index (the order in which a process's threads first used a
// marker). Process ids differ between runs, so processes are matched by their
// ordinal in (host, rank, pid) order: the same MPI rank on the same host, and
// without MPI (rank -1) the pid order, where a parent's pid is below its
// children's.
//
// A region whose call count differs between runs, or that only some runs
// reached, means the program is not deterministic: its counters then describe
// different executions. The merge lists these mismatches; each caller words
// the note for its runs (join.h for sim, merge_passes() here for event groups).
#ifndef RPROF_PROFILE_MERGE_RUNS_H_
#define RPROF_PROFILE_MERGE_RUNS_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof {

struct RunMergeRules {
  // A region that only a later run reached: kept with that run's counters
  // and no time (true), or left out (false).
  bool keep_unmatched = false;
};

struct RunMismatch {
  enum class Kind { kCalls, kMissing, kExtra };
  Kind kind = Kind::kCalls;
  std::string path;         // path_string of the region
  size_t run = 0;           // index of the later run (1 = the second run)
  uint64_t first_calls = 0;  // kCalls: calls in the first run ...
  uint64_t run_calls = 0;    // ... and in this run
};

// runs must not be empty. Mismatches are appended to *mismatches in the
// order: per later run, the first run's regions in tree order, then the
// regions only that run reached.
Profile merge_runs(std::vector<Profile> runs, const RunMergeRules& rules,
                   std::vector<RunMismatch>* mismatches);

// The runs of a multi-pass hardware-counter measurement (one per event group):
// unmatched regions are left out, and mismatches become one note.
Profile merge_passes(std::vector<Profile> passes);

// Up to five items joined with "; ", then "; and N more".
std::string short_list(const std::vector<std::string>& items);

}  // namespace rprof

#endif  // RPROF_PROFILE_MERGE_RUNS_H_
