// Verdicts: what limits a region, with the numbers that prove it and a
// direction to try (the seeds' triage). One bound per region (compute, or
// memory at the limiting boundary, with the fraction of that roof reached)
// plus flags for the cases where the simple model misleads.
//
// Every threshold is a named constant in VerdictThresholds, documented in
// docs/verdicts.md and written into profile.json ("verdict_thresholds").
#ifndef RPROF_ROOFLINE_CLASSIFY_H_
#define RPROF_ROOFLINE_CLASSIFY_H_

#include <optional>
#include <string>
#include <vector>

#include "common/shared_text.h"
#include "machine/machine.h"
#include "profile/metrics.h"
#include "profile/profile.h"
#include "roofline/memory_view.h"
#include "roofline/roofline.h"

namespace rprof {

struct VerdictThresholds {
  // At or above this fraction of the applicable roof a region is "at the roof".
  double at_roof = 0.80;
  // Below this fraction, with no more specific cause, a region is underutilized.
  double underutilized = 0.30;
  // Latency-bound: memory-bound, below this fraction of the bandwidth roof...
  double latency_max_fraction = 0.50;
  // ...with at most this many line misses in flight per thread (Little's law).
  double latency_max_in_flight = 2.5;
  // ...and enough misses to explain the time: misses x latency / threads at
  // least this share of the region's time (Little's law: at least this many
  // misses in flight per thread). Three cold misses in 20 s explain 1e-8 of
  // it, a sleep nothing. Not 1: the latency is the calibration's chase, and a
  // chase over far more memory than it walked also waits on page walks (a
  // 420 MiB chase on a 2-core VM: 208 ns a step against 78-120 ns of DRAM
  // latency in the recorded machines, 0.38-0.58 explained).
  double latency_min_explained = 0.25;
  // Waiting: the region's threads were on a CPU for less than this share of
  // their wall time (CPU time / wall time, both summed over its threads).
  // Counted with the run delay (runnable, waiting for a CPU): only time off
  // the CPU by the threads' own choice (sleep, I/O, locks) makes a region
  // waiting, so it is (CPU time + run delay) / wall time below this share.
  double waiting_max_cpu_share = 0.50;
  // Busy machine: the run delay is at least this share of the threads' wall
  // time. Then the machine, not the region, held a tenth of its time or
  // more, so its rates are read against its running time (wall minus run
  // delay; the analysis times its roofline with it) and it is flagged.
  double busy_min_run_delay_share = 0.10;
  // Below every roof: under this fraction of the lowest bound (so of every
  // roof) the region is not held to be limited by any roof. When that bound
  // is the compute roof (of the region's own precision, width and mix) half
  // of it says the FP units are not the limit; a bandwidth roof is the best
  // stream kernel's, which plain loops reach a third to two thirds of, so
  // only a tenth of it says the bytes are not the limit.
  double below_roofs = 0.50;
  double below_bandwidth_roofs = 0.10;
  // Irregular access (a below-every-roof cause): at least this many bytes
  // at L1 per FLOP, with at least irregular_miss_share of them crossing L2.
  double irregular_l1_bytes_per_flop = 4.0;
  double irregular_miss_share = 0.10;
  // Dependency chain: a region under chain_max_roof_fraction of every roof
  // whose FP instructions retire, per thread, at k per latency of its chain
  // operation (an add, or an FMA where most are FMAs: machine fp_latency),
  // k a whole number from 1 to chain_max, within chain_tolerance x k, runs
  // at the pace of k dependent chains (a loop-carried sum or dot product).
  double chain_max_roof_fraction = 0.60;
  double chain_tolerance = 0.08;
  double chain_max = 8;
  // Low vectorization: packed share of FP instructions below this.
  double low_vector_share = 0.50;
  // Traffic above ideal: measured / declared bytes above this.
  double traffic_above_ideal = 1.25;
  // Above the roof: measured / bound above this (5% for timing noise).
  double above_roof = 1.05;
  // Load imbalance: (slowest - fastest) / slowest thread time above this.
  double load_imbalance = 0.20;
  // Too short: time per call below this many marker overheads (begin/end
  // pair plus the clock's resolution), or total time below min_total_s.
  double too_short_overheads = 100;
  double min_total_s = 1e-4;
  // Cost of one begin/end pair (bench/marker_overhead: ~60 ns, rounded up).
  double marker_pair_s = 100e-9;
  // A sampled function time from fewer cpu-clock samples than this is
  // uncertain (relative error 1/sqrt(n) above 10%): no bound or roof
  // fraction is claimed for it (docs/functions.md).
  double function_min_samples = 100;
};

struct VerdictFlag {
  Flag flag = Flag::kUnderutilized;
  std::string reason;     // one line, citing the region's numbers
  SharedText direction;   // what to try
  const char* name() const { return flag_key(flag); }  // "latency-bound", ...
};

// The numbers of a dependency-chain verdict (Bound::kDependencyChain).
struct ChainEvidence {
  Precision precision = Precision::kDP;
  FpOp op = FpOp::kAdd;
  double per_latency = 0;  // FP instructions per op latency per thread
  int chains = 1;          // the whole number of chains that rate matches
  double latency_ns = 0, latency_cycles = 0;
};

struct Verdict {
  Bound bound = Bound::kUnknown;
  std::optional<ChainEvidence> chain;  // with Bound::kDependencyChain
  std::optional<Boundary> boundary;  // the limiting one, when memory-bound
  double fraction = 0;               // of the applicable roof
  bool at_roof = false;
  // One line with the numbers. Below every roof it ends with the likely
  // limit, held once (likely_limit: the same text in most such regions) and
  // joined when read.
  std::string summary() const;
  void set_summary(std::string s) {
    summary_head = std::move(s);
    summary_ends_with_limit = false;
  }
  // head + "; likely limit: " + the likely limit ("the counts name no cause
  // ..." when likely_limit is empty).
  void set_summary_ending_with_limit(std::string head) {
    summary_head = std::move(head);
    summary_ends_with_limit = true;
  }
  std::string summary_head;
  bool summary_ends_with_limit = false;
  SharedText direction;  // what would raise performance or the roof
  std::vector<VerdictFlag> flags;
  // Below every roof: what the counts name as the likely limit ("" when none).
  SharedText likely_limit;  // the same text in most regions with this cause
  bool has(Flag flag) const;
};

struct VerdictInput {
  const Region* region = nullptr;
  const Metrics* metrics = nullptr;
  const RegionRoofline* roofline = nullptr;  // null or invalid: no roofline
  // The bandwidth view; the verdict of a region without a FLOP roofline.
  const MemoryView* memory = nullptr;        // null or invalid: none
  const Machine* machine = nullptr;          // for latencies and the ISA
  // A function region no sample hit: its time is below this bound (the
  // roofline and memory view were computed with it, as lower bounds).
  const TimeBound* time_bound = nullptr;
  // A function region whose sampled time is uncertain (fewer samples than
  // function_min_samples): its sample count and relative error.
  bool time_uncertain = false;
  uint64_t time_samples = 0;
  double time_relative_error = 0;
  double clock_resolution_s = 1e-9;
};

Verdict classify(const VerdictInput& in, const VerdictThresholds& t = {});

}  // namespace rprof

#endif  // RPROF_ROOFLINE_CLASSIFY_H_
