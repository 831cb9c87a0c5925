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

// The threads' wall time summed over them (thread_time_s, else time_s x
// threads): what CPU time and run delay are shares of.
double summed_wall_s(const Region& r);

// Run delay / summed wall time of the region's threads; nullopt without a
// measured run delay or wall time.
std::optional<double> run_delay_share(const Region& r, std::optional<double> run_delay_s);

// Whether the run delay reaches t.busy_min_run_delay_share (the
// busy-machine flag, and the analysis' choice of running_time_s).
bool busy_machine(const Region& r, std::optional<double> run_delay_s, const VerdictThresholds& t);

// The region's running time: the slowest thread's wall time minus its run
// delay (time_s's convention, the maximum over threads); time_s without
// per-thread run delays.
double running_time_s(const Region& r);

// Sets the "waiting" bound when the CPU share plus the run-delay share (the
// time runnable) is below t.waiting_max_cpu_share; returns whether it did.
bool waiting_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v);

// Whether the region's traffic was counted at L1 only (the inst backend with
// --sample=off): none of the boundaries that usually limit (L2, LLC and
// DRAM) was measured. False otherwise, or without traffic counts.
bool unmeasured_below_l1(const VerdictInput& in);

// Flags a region whose run delay reaches t.busy_min_run_delay_share.
void busy_machine_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v);

// Turns a compute- or memory-bound verdict far below every roof (fraction
// below t.below_roofs of a compute bound, t.below_bandwidth_roofs of a
// bandwidth bound) into "below-roofs" with the likely limit; a latency-bound
// region keeps its verdict (latency is its limit), and so does a
// memory-limited one counted at L1 only.
void below_roofs_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v);

// Flags each boundary whose misses in flight exceed kMaxLinesInFlightPerCore.
void implausible_latency_flag(const VerdictInput& in, Verdict& v);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_VERDICT_CAUSES_H_
