// Merging the runs of a multi-pass hardware-counter measurement: the program
// ran once per event group (the core has too few counters for all events at
// once), and each run counted different events.
//
// The first run gives calls, times, per-thread rows, declared work and
// errors; every run adds its counters (per region inclusive and exclusive,
// and per thread, matched by process ordinal and thread index). Regions are
// matched by path. A region whose call count differs between runs, or that a
// run did not reach, means the program is not deterministic: a note lists
// them, since their counters then describe different executions (the same
// check as the sim backend's join of its timed and counted runs).
#ifndef RPROF_PROFILE_MERGE_PASSES_H_
#define RPROF_PROFILE_MERGE_PASSES_H_

#include <vector>

#include "profile/profile.h"

namespace rprof {

Profile merge_passes(std::vector<Profile> passes);

}  // namespace rprof

#endif  // RPROF_PROFILE_MERGE_PASSES_H_
