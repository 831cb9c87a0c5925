// Verdicts: what limits a region, with the numbers that prove it (the
// seeds' triage). One bound per region (compute, or memory at the limiting
// boundary, with the fraction of that roof reached) plus flags for the cases
// where the simple model misleads. A verdict is data: a kind plus its
// numbers; lib/report/verdict_words writes its summary, its direction to try
// and each flag's reason and direction.
//
// Every threshold is a named constant in VerdictThresholds, documented in
// docs/verdicts.md and written into profile.json ("verdict_thresholds").
#ifndef RPROF_ROOFLINE_CLASSIFY_H_
#define RPROF_ROOFLINE_CLASSIFY_H_

#include <optional>
#include <cstdint>
#include <string>
#include <variant>
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
  // 0.5: PolyBench's gemm at -O3 -march=native (512-bit FMAs, no
  // loop-carried chain) ran at 1.03 FMAs per latency at 59% of its LLC
  // roof; HPCCG's ddot, a chain, at 14% of its DRAM roof.
  double chain_max_roof_fraction = 0.50;
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

// Verdicts are data: a kind plus the numbers that prove it. The words (the
// summary, the direction, each flag's reason and direction) are written in
// one place, lib/report/verdict_words, from these; nothing here is English.

// Which bandwidth measurement made a roof: the kernel, its pages, and for a
// read-limited roof the write share of the mix it was scaled to (MixRoof).
struct RoofSource {
  StreamMix kernel = StreamMix::kLoad;
  SharedText pages;  // "" unrecorded
  bool read_limited = false;
  double write_share = 0;
};

// Compute-bound (Bound::kCompute).
struct ComputeEvidence {
  std::optional<Boundary> boundary;  // the limiting boundary's intensity >= ridge, when one
  double intensity = 0, ridge = 0;
  bool lower_bound = false;  // the time is only bounded: gflops, fraction from below
  double gflops = 0, bound = 0;
  ComputeRoof roof;
};

// Memory-bound at a boundary of the FLOP roofline (Bound::kMemory).
struct MemoryEvidence {
  Boundary boundary = Boundary::kDRAM;
  double intensity = 0, ridge = 0;
  bool lower_bound = false;
  double gflops = 0, bound = 0;
  double bandwidth_gbs = 0;
  RoofSource source;
};

// Memory-bound from the bandwidth view (no FLOP roofline), and latency-bound
// from it (boundary, gbs, roof_gbs and fraction of the latency boundary, with
// in_flight).
struct BandwidthEvidence {
  Boundary boundary = Boundary::kDRAM;
  bool lower_bound = false;
  double gbs = 0, roof_gbs = 0, fraction = 0;
  int threads = 1, ceiling_threads = 1;
  RoofSource source;
  double in_flight = 0;  // latency-bound: line misses in flight per thread
};

// Dependency chain: the numbers beyond ChainEvidence (Verdict::chain).
struct ChainVerdictEvidence {
  double roof_share = 0;  // the fraction of the nearest roof
};

// Waiting: its threads off the CPU by their own choice.
struct WaitingEvidence {
  bool has_run_delay = false;
  double cpu_share = 0, cpu_s = 0, wall_s = 0;
  int threads = 1;
  double run_delay_share = 0, run_delay_s = 0;  // with has_run_delay
  double runnable = 0;                          // cpu_share + run_delay_share
  double max_cpu_share = 0;                     // the threshold
};

// Below every roof, from the FLOP roofline or (bandwidth_view) the bandwidth
// view.
struct BelowRoofsEvidence {
  bool bandwidth_view = false;
  double fraction = 0, threshold = 0;
  // The FLOP roofline: its rate, bound and what set the bound.
  double gflops = 0, bound = 0;
  bool compute_limited = false;
  ComputeRoof roof;
  std::optional<Boundary> boundary;  // the limiting boundary, when one
  double intensity = 0, ridge = 0;
  // The bandwidth view: the limiting boundary's rate and roof (in boundary).
  double gbs = 0, roof_gbs = 0;
};

// An uncertain time: few cpu-clock samples, or none (a time bound).
struct UncertainEvidence {
  uint64_t samples = 0;
  double relative_error = 0, min_samples = 0;
  // No sample hit it: the time's upper bound and the rates' lower bounds.
  double max_time_s = 0;
  std::optional<double> min_gflops, min_dram_gbs;
};

// No roofline: why (the roofline's why_not; "" for no counts or ceilings).
struct NoRooflineEvidence {
  SharedText why_not;
};

// One per distinct verdict sentence.
enum class VerdictKind : uint8_t {
  kNone,                // no verdict sentence (a default Verdict)
  kCompute,             // compute-bound (ComputeEvidence)
  kMemory,              // memory-bound at a boundary (MemoryEvidence)
  kMemoryView,          // memory-bound from the bandwidth view (BandwidthEvidence)
  kLatencyView,         // latency-bound from the bandwidth view (BandwidthEvidence)
  kDependencyChain,     // (Verdict::chain, ChainVerdictEvidence)
  kWaiting,             // (WaitingEvidence)
  kBelowRoofs,          // (BelowRoofsEvidence, Verdict::likely_limit)
  kUncertainSamples,    // few cpu-clock samples (UncertainEvidence)
  kUncertainNoSample,   // no cpu-clock sample (UncertainEvidence)
  kNoRoofline,          // (NoRooflineEvidence)
};
const char* verdict_kind_key(VerdictKind k);  // "compute", "memory-view", ...

using VerdictEvidence =
    std::variant<std::monostate, ComputeEvidence, MemoryEvidence, BandwidthEvidence,
                 ChainVerdictEvidence, WaitingEvidence, BelowRoofsEvidence, UncertainEvidence,
                 NoRooflineEvidence>;

// Below every roof: what the counts name as the likely limit.
enum class LimitKind : uint8_t {
  kNone,               // the counts name no cause
  kLatency,            // few line misses in flight explain the time
  kIrregularNoFlops,   // no FLOPs, loads missing the caches
  kNonFp,              // no FLOPs, far below every bandwidth roof
  kIrregular,          // many bytes at L1 per FLOP, many crossing L2
  kDependencyChains,   // scalar FP above every ridge
  kLowVectorization,   // scalar FP
};
const char* limit_kind_key(LimitKind k);

struct LikelyLimit {
  LimitKind kind = LimitKind::kNone;
  // kLatency, and kIrregularNoFlops' deepest boundary by Little's law.
  enum class Little : uint8_t { kNone, kUnder, kAbove } little = Little::kNone;
  Boundary boundary = Boundary::kDRAM;
  double in_flight = 0, line_misses = 0, latency_ns = 0;
  double bandwidth_fraction = 0;  // kAbove: the share of the bandwidth used
  double miss_share = 0;          // L2 bytes / L1 bytes
  double l1_bytes_per_flop = 0;
  double vector_share = 0;
  bool below_l1_counted = true;  // kDependencyChains: traffic below L1 counted
  // Thresholds cited (VerdictThresholds).
  double min_explained = 0, max_in_flight = 0;
  double irregular_miss_share = 0, irregular_l1_bytes_per_flop = 0;
  double low_vector_share = 0;
};

// One per distinct flag sentence (reason and direction); Flag is its name.
enum class FlagKind : uint8_t {
  kLatencyBound,           // from the FLOP roofline's boundary (LatencyFlagEvidence)
  kLatencyBoundView,       // from the bandwidth view (LatencyFlagEvidence)
  kLowVectorShare,         // packed share below the threshold (VectorFlagEvidence)
  kLowVectorWidth,         // narrower than the CPU offers (VectorFlagEvidence)
  kTrafficWriteAllocate,   // (TrafficFlagEvidence)
  kTrafficPoorReuse,       // (TrafficFlagEvidence)
  kAboveBandwidthRoof,     // (AboveRoofEvidence)
  kAboveComputeRoof,       // (AboveRoofEvidence)
  kTooShortSamples,        // few cpu-clock samples (UncertainEvidence)
  kTooShortNoSample,       // no cpu-clock sample (NoSampleFlagEvidence)
  kTooShortSelfTime,       // a function's self time (ShortFlagEvidence)
  kTooShortMarkers,        // against the marker overhead (ShortFlagEvidence)
  kLoadImbalance,          // (ImbalanceEvidence)
  kUnderutilized,          // (UnderutilizedEvidence)
  kBusyMachine,            // (BusyEvidence)
  kImplausibleLatency,     // (LatencyFlagEvidence)
  kRankImbalance,          // over the threads of several processes (ImbalanceEvidence)
  kOwnCache,               // processes sharing a host, simulated apart (OwnCacheEvidence)
};
const char* flag_kind_key(FlagKind k);
Flag flag_of(FlagKind k);  // the flag a kind is named by

struct LatencyFlagEvidence {
  Boundary boundary = Boundary::kDRAM;
  double fraction = 0;  // of the bandwidth roof
  double in_flight = 0, line_misses = 0, latency_ns = 0, time_s = 0;
  int threads = 1;
  double min_explained = 0, max_in_flight = 0;  // thresholds (the implausible: the core's)
};
struct VectorFlagEvidence {
  double share = 0, threshold = 0;  // kLowVectorShare
  Width widest = Width::kScalar, offered = Width::k256;  // kLowVectorWidth
};
struct TrafficFlagEvidence {
  Boundary boundary = Boundary::kDRAM;
  double measured_bytes = 0, declared_bytes = 0, ratio = 0;
  bool approximate = false;
};
struct AboveRoofEvidence {
  double gflops = 0, ratio = 0, bound = 0;
  int ceiling_threads = 1;
  ComputeRoof roof;                    // kAboveComputeRoof
  Boundary boundary = Boundary::kDRAM;  // kAboveBandwidthRoof
  double bandwidth_gbs = 0;
  RoofSource source;
};
struct NoSampleFlagEvidence {
  double period_s = 0;
  unsigned threads = 1;
  double max_time_s = 0;
  std::optional<double> min_gflops, min_dram_gbs;
};
struct ShortFlagEvidence {
  double time_s = 0;
  double min_total_s = 0;  // kTooShortSelfTime
  uint64_t calls = 0;      // kTooShortMarkers
  double per_call_s = 0, overhead_s = 0;
};
struct ImbalanceEvidence {
  double min_s = 0, max_s = 0;
  size_t threads = 0;
  double waits = 0;  // (max - min) / max
  size_t processes = 1;  // the processes (MPI ranks) its threads belong to
};
// Several processes on one host, each simulated with an LLC of its own.
struct OwnCacheEvidence {
  int processes = 2;  // the most on one host
};
struct UnderutilizedEvidence {
  double fraction = 0;
};
struct BusyEvidence {
  double share = 0, run_delay_s = 0, wall_s = 0;
  int threads = 1;
  double threshold = 0, running_s = 0, time_s = 0;
};

using FlagEvidence =
    std::variant<LatencyFlagEvidence, VectorFlagEvidence, TrafficFlagEvidence, AboveRoofEvidence,
                 UncertainEvidence, NoSampleFlagEvidence, ShortFlagEvidence, ImbalanceEvidence,
                 UnderutilizedEvidence, BusyEvidence, OwnCacheEvidence>;

struct VerdictFlag {
  Flag flag = Flag::kUnderutilized;
  FlagKind kind = FlagKind::kUnderutilized;
  FlagEvidence numbers;
  VerdictFlag() = default;
  VerdictFlag(FlagKind k, FlagEvidence n) : flag(flag_of(k)), kind(k), numbers(std::move(n)) {}
  const char* name() const { return flag_key(flag); }  // "latency-bound", ...
  template <class T>
  const T& as() const { return std::get<T>(numbers); }
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
  // What the summary and direction say, and the numbers they cite.
  VerdictKind kind = VerdictKind::kNone;
  VerdictEvidence numbers;
  // Compute- or memory-bound with traffic counted at L1 only: L2, LLC and
  // DRAM were not measured and may be what limits it (the summary says so).
  bool unmeasured_below_l1 = false;
  std::vector<VerdictFlag> flags;
  // Below every roof: what the counts name as the likely limit.
  LikelyLimit likely_limit;
  bool has(Flag flag) const;
  const VerdictFlag* flag(Flag f) const;  // the first with that name, or nullptr
  template <class T>
  const T& as() const { return std::get<T>(numbers); }
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
  // Its traffic below L1 is a cache model's (the sim backend, inst with
  // --sample), which simulates each process with caches of its own; false:
  // the hardware's, or none.
  bool caches_simulated_per_process = false;
};

Verdict classify(const VerdictInput& in, const VerdictThresholds& t = {});

}  // namespace rprof

#endif  // RPROF_ROOFLINE_CLASSIFY_H_
