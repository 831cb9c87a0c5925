// `rprof merge`: the output directories of runs of one program (one per node
// or rank of an MPI job, or runs to be summed) merged into one profile the
// way the runs' driver merged its own passes, so that every counter the runs
// had is kept:
//
//   raw/                  one native pass (time, perf, papi, likwid)
//   raw/pass1 .. passN    hardware event groups, one pass each: merge_passes
//   raw/ + raw-sim/ + sim/ the sim backend's timed and counted passes,
//                          joined (join_timed_and_counted) with the simulated
//                          whole-run totals of sim/totals.*.txt
//   raw-sim/ + sim/       --sim-only
//
// Each pass is aggregated over the processes of every input (ranks, hosts),
// then the passes go through the one merge of runs (profile/merge_runs.h).
// The run facts (command, wall time, exit status) come from each directory's
// profile.json when it has one. An input may also be a raw profile file or a
// directory of raw profiles (one pass).
#ifndef RPROF_RUN_MERGE_DIRS_H_
#define RPROF_RUN_MERGE_DIRS_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof {

// Throws Error (one line naming the input and what it lacks) when an input
// holds no raw profiles, when inputs come from different kinds of runs (one
// has raw-sim/, another not), or when a process appears twice.
Profile merge_output_dirs(const std::vector<std::string>& inputs);

}  // namespace rprof

#endif  // RPROF_RUN_MERGE_DIRS_H_
