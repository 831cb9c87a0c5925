// Metrics: what the counters of a region mean, independent of the backend.
//
// Backends record counters under canonical names (docs/profile-schema.md):
//   flops.<sp|dp>.<scalar|128|256|512>   FLOPs, FMA = 2 FLOPs, per lane
//   fpins.<sp|dp>.<scalar|128|256|512>   FP arithmetic instructions retired
//   flops.any                            FLOPs without a precision split (AMD Zen3/4)
//   bytes.<l1|l2|llc|dram>.<read|write>  bytes crossing a boundary
//   cycles, instructions
// A boundary is named after the level it leads into: L1 = core<->L1 (the
// program's loads and stores), L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM.
// "read" moves toward the core (fills), "write" away from it (stores at L1,
// write-backs below). Backends that cannot count canonically (hardware events)
// pass a translation, see MetricTranslation.
#ifndef RPROF_PROFILE_METRICS_H_
#define RPROF_PROFILE_METRICS_H_

#include <array>
#include <functional>
#include <optional>
#include <string>

#include "common/kinds.h"
#include "common/shared_text.h"
#include "profile/profile.h"

namespace rprof {

// Sampling units a sampled traffic estimate needs (metrics_from_counters).
inline constexpr int kMinSampledUnits = 5;

struct Traffic {
  double read_bytes = 0;
  double write_bytes = 0;
  double bytes() const { return read_bytes + write_bytes; }
  // Sampled cache simulation (the inst backend's --sample=RATE): the bytes
  // are an estimate scaled from the sampled accesses (a ratio to the exact L1
  // bytes); ci95_bytes is the half-width of the 95% confidence interval of
  // bytes() (read + write), from the unit-to-unit variance; sampled_units is
  // the number of sampling units (runs of simulated accesses, cut at region entries and
  // exits) behind it. Not sampled: ci95_bytes 0.
  double ci95_bytes = 0;
  double sampled_units = 0;
  SharedText note;  // how it was obtained, when approximate
  // Where the number came from, for people, when a run mixes sources (set by
  // the hardware translation and by the cache model beside it):
  // "hardware events L2_LINES_IN.ALL, ..." or "rprof's cache model, ...".
  SharedText source;
  bool measured = false;
  bool approximate = false;  // e.g. LLC misses standing in for DRAM traffic
  bool sampled = false;
  bool stand_in = false;  // a hardware stand-in (LLC misses for DRAM traffic)
  bool model = false;     // rprof's cache model beside hardware counters
};

struct Metrics {
  bool has_flops = false;
  bool precision_agnostic = false;  // only flops.any known
  double flops[2][4] = {};          // [Precision][Width], FMA = 2
  double fp_instructions[2][4] = {};
  bool has_fp_instructions = false;
  double flops_any = 0;
  std::array<Traffic, 4> traffic;   // [Boundary]
  std::optional<double> cycles;
  std::optional<double> instructions;
  // Average L1D misses outstanding in cycles with at least one (memory-level
  // parallelism, from L1D_PEND_MISS); near 1 means one miss at a time.
  std::optional<double> miss_occupancy;
  // Hardware counters: the lowest share of the region's time a counter group
  // was counting (1 = never multiplexed); counts were scaled by its inverse.
  std::optional<double> multiplex_ratio;
  // CPU time of the region's threads, summed over them (seconds of thread
  // CPU clock); nullopt when the run did not measure it. Against the summed
  // wall time (Region::thread_time_s) it says how much of the region's time
  // its threads were on a CPU (the "waiting" verdict).
  std::optional<double> cpu_time_s;
  // Of their time off a CPU, the part they were runnable and waiting for
  // one (the kernel's run delay), summed over them; nullopt when not
  // measured. What remains off the CPU is the threads' own choice.
  std::optional<double> run_delay_s;

  double flops_total() const;
  double flops_of(Precision p) const;
  const Traffic& at(Boundary b) const { return traffic[static_cast<int>(b)]; }
  bool any_traffic() const;
  // Share of FP instructions that are packed (vector), 0..1; nullopt if unknown.
  std::optional<double> vector_share() const;
  // The widest vector width with FP work, and the dominant precision.
  std::optional<Width> widest_width() const;
  std::optional<Precision> dominant_precision() const;
};

// A translation from backend event counts to metrics (the hardware
// backends' formulas, lib/backends/perf/hw_metrics); returns true when it
// recognised the counters. It only adds what the canonical counters lack.
using MetricTranslation = std::function<bool(const CounterMap&, Metrics&)>;

// Builds metrics from a region's counters: canonical names, then `events`
// for backend-specific event names (the analysis passes the hardware one:
// analysis/analysis.h region_metrics()).
Metrics metrics_from_counters(const CounterMap& counters, const MetricTranslation& events = {});

}  // namespace rprof

#endif  // RPROF_PROFILE_METRICS_H_
