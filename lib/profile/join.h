// Joining two runs of the same program: one timed natively, one counted under
// a simulator (the `sim` backend runs the program twice, since Valgrind's
// slowdown makes its times meaningless).
//
// The two runs are merged by merge_runs (profile/merge_runs.h): the result
// keeps everything of the timed run (calls, times, per-thread rows, declared
// work, errors) and takes counters from the counted run, per region and per
// thread. Regions only the counted run reached are kept, without times. What
// does not match becomes a note: a region whose call count differs means the
// program is not deterministic, and its counts and times then describe
// different executions.
#ifndef RPROF_PROFILE_JOIN_H_
#define RPROF_PROFILE_JOIN_H_

#include "profile/profile.h"

namespace rprof {

Profile join_timed_and_counted(Profile timed, Profile counted);

// Sets the [program] region's counters to whole-run totals; its exclusive
// counters are the totals minus the top-level regions' inclusive counters.
void set_program_counters(Profile& p, const CounterMap& totals);

}  // namespace rprof

#endif  // RPROF_PROFILE_JOIN_H_
