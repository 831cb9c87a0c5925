// The verdicts that say no roof limits a region (classify.cpp uses them):
// "waiting" (its threads were mostly off the CPU) and "below every roof"
// (far below the bound of every roof, with the likely limit its counts
// name), and the implausible-latency flag (more misses in flight than a
// core tracks). Rules and thresholds: docs/verdicts.md, VerdictThresholds.
#ifndef RPROF_ROOFLINE_VERDICT_CAUSES_H_
#define RPROF_ROOFLINE_VERDICT_CAUSES_H_

#include <optional>

#include "roofline/classify.h"

namespace rprof {

// CPU time / wall time of the region's threads (both summed over them);
// nullopt without a measured CPU time or wall time.
std::optional<double> cpu_share(const VerdictInput& in);

// Sets the "waiting" bound when the CPU share is below
// t.waiting_max_cpu_share; returns whether it did.
bool waiting_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v);

// The boundaries below L1 without traffic counts, "L2, LLC, DRAM" ("" when
// every one was counted, or the region has no traffic counts at all).
std::string unmeasured_boundaries(const VerdictInput& in);

// Turns a compute- or memory-bound verdict far below every roof (fraction
// below t.below_roofs of a compute bound, t.below_bandwidth_roofs of a
// bandwidth bound) into "below-roofs" with the likely limit; a latency-bound
// region keeps its verdict (latency is its limit), and so does a region with
// a boundary below L1 that was not measured.
void below_roofs_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v);

// Flags each boundary whose misses in flight exceed kMaxLinesInFlightPerCore.
void implausible_latency_flag(const VerdictInput& in, Verdict& v);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_VERDICT_CAUSES_H_
