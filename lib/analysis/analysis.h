// The analysis stage: a profile held against a machine. For every region,
// once: its metrics (what the counters mean), its roofline at each boundary
// (when it has FLOP counts and there are ceilings) and its verdict (bound,
// fraction of the roof, flags with their numbers). Every writer (text, JSON,
// CSV, SVG, HTML, diff) renders an Analysis and computes none of this.
//
//   profile (lib/profile) + machine (lib/machine) --analyze()--> Analysis
//                                                     --> writers (lib/report)
#ifndef RPROF_ANALYSIS_ANALYSIS_H_
#define RPROF_ANALYSIS_ANALYSIS_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/shown_regions.h"
#include "machine/machine.h"
#include "profile/metrics.h"
#include "profile/profile.h"
#include "roofline/classify.h"
#include "roofline/memory_view.h"
#include "roofline/roofline.h"
#include "roofline/sampled_traffic.h"

namespace rprof {

// The roofline chart's ceilings (lib/report/chart_model draws them), chosen
// once by the analysis: the machine's ceiling set nearest to the most threads
// among the charted regions, the compute roofs the regions are held against
// with the full roof of each precision they use (the machine's widest DP roof
// when none), one bandwidth line per boundary the regions use (every boundary
// when none) and the ridges of the applied roofs.
// Units: GFLOP/s (1e9 FLOP/s, FMA = 2 FLOPs), GB/s (1e9 bytes/s), FLOP/byte.
struct ChartCeilingRoof {
  ComputeRoof roof;
  bool applied = false;           // some region is held against it
  std::optional<Provenance> how;  // how the machine measured it, when it did
};

struct ChartCeilingBandwidth {
  Boundary boundary = Boundary::kDRAM;
  double gbs = 0;  // bytes crossing the boundary (write-allocate below L1)
  StreamMix kernel = StreamMix::kLoad;
  Provenance how;
  // Below L1, STREAM's convention beside it: the best kernel by explicit bytes.
  double stream_gbs = 0;
  StreamMix stream_kernel = StreamMix::kLoad;
};

struct ChartCeilingRidge {
  Boundary boundary = Boundary::kDRAM;
  ComputeRoof roof;      // the compute roof it meets
  double intensity = 0;  // FLOP/byte = roof / bandwidth
};

struct ChartCeilings {
  int region_threads = 1;  // the most threads among the charted regions
  int threads = 0;         // the ceiling set's thread count; 0 = no ceilings
  std::vector<ChartCeilingRoof> roofs;            // highest first
  std::vector<ChartCeilingBandwidth> bandwidths;  // L1 first
  std::vector<ChartCeilingRidge> ridges;
  // The machine file's calibration, for the chart's footer.
  std::string mode, cpu_model;
  int64_t created_unix_s = 0;
};

// Where the ceilings came from: the machine (null: none), its file and what
// to tell the reader about it ("calibrated now", "no roofline: ...").
struct MachineSource {
  MachineSource(const Machine* m = nullptr, std::string f = {}, std::vector<std::string> n = {})
      : machine(m), file(std::move(f)), notes(std::move(n)) {}

  const Machine* machine = nullptr;
  std::string file;
  std::vector<std::string> notes;
  ChartCeilings chart;  // set by analyze()
};

// A function region (the function view, docs/functions.md): where the
// function is, for every writer to show, and what it did with its callees.
// The region's own metrics are its self counts.
struct FunctionInfo {
  std::string symbol;      // demangled where it is C++; "" when no symbol covers it
  std::string raw_symbol;  // as in the ELF symbol table
  std::string object;      // the ELF file
  std::string source;      // "file:line" of its entry, "" without debug info
  Metrics inclusive;       // from its entry to its return, callees included
};

// A sampled function time's statistics: n cpu-clock samples are a Poisson
// count, so the time's relative standard error is 1/sqrt(n) (1 at n = 0,
// where only a bound is known). Below VerdictThresholds::function_min_samples
// the time is uncertain: every writer marks it and the verdict claims no bound.
struct SampleStats {
  uint64_t samples = 0;
  double relative_error = 1;
  bool uncertain = true;
};

// An optional value kept on the heap: a pointer's size where it is absent.
// For the members most regions lack (FunctionInfo is 840 bytes; a run of
// 100,000 marked regions has none, nor a time bound or sample statistics),
// with optional's use: if (b), *b, b->, b = T{...}, b = optional<T>; copies
// copy the value.
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  Boxed& operator=(std::optional<T> v) {
    p_ = v ? std::make_unique<T>(std::move(*v)) : nullptr;
    return *this;
  }
  explicit operator bool() const { return p_ != nullptr; }
  bool has_value() const { return p_ != nullptr; }
  const T& operator*() const { return *p_; }
  T& operator*() { return *p_; }
  const T* operator->() const { return p_.get(); }
  T* operator->() { return p_.get(); }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

struct RegionAnalysis {
  const Region* region = nullptr;
  Metrics metrics;
  // Function regions only.
  Boxed<FunctionInfo> function;
  // A function region whose sampled run gave it no sample: an upper bound on
  // its time, so lower bounds on its rates (the roofline and memory view
  // below are computed with it and say so: lower_bound).
  Boxed<TimeBound> time_bound;
  // Function regions whose time was sampled.
  Boxed<SampleStats> sampling;
  // Regions with FLOP counts when there are ceilings: valid, or why not.
  std::optional<RegionRoofline> roofline;
  // Regions with traffic counts when there are ceilings, FLOPs or not: the
  // bandwidth at each boundary against its roof and Little's law.
  std::optional<MemoryView> memory;
  // The sampled cache model's boundaries (Traffic::sampled), L1 first: each
  // one's 95% interval of bytes, and of intensity (with FLOPs) and bandwidth
  // (with a time that is not a bound) computed from it; every writer and the
  // chart render these.
  std::vector<SampledBoundary> sampled_traffic;
  // Every region but [program]; bound "unknown" with no flags says nothing.
  std::optional<Verdict> verdict;
  // Drawn on the roofline chart: shown (Analysis::shown), with FLOP counts, a
  // FLOP rate above 0 and bytes at some boundary.
  bool charted = false;

  // The roofline when it is valid, else null.
  const RegionRoofline* valid_roofline() const;
  // The memory view when it is valid, else null.
  const MemoryView* valid_memory() const;
  // The verdict when it says something (a bound or a flag), else null.
  const Verdict* shown_verdict() const;
  // Boundary b's sampled interval when it is sampled, else null.
  const SampledBoundary* sampled_at(Boundary b) const;
};

struct Analysis {
  const Profile* profile = nullptr;
  MachineSource machine;
  VerdictThresholds thresholds;
  bool verdicts = false;             // the classifier ran
  std::vector<RegionAnalysis> regions;  // one per profile->regions, same order
  bool any_flops = false;            // some region has FLOP counts
  bool any_memory = false;           // some region has a valid memory view
  bool any_function = false;         // some region is a function (the function view)
  bool any_sampled_traffic = false;  // some region has a sampled boundary
  ShownRegions shown;                // what the reports for people show

  const Profile& prof() const { return *profile; }
};

// What a region's counters mean: canonical counter names, then the hardware
// backends' event formulas (hw.g* counters: lib/backends/perf/hw_metrics).
Metrics region_metrics(const CounterMap& counters);

// The analysis of `p` (which must outlive it) against `machine`.
Analysis analyze(const Profile& p, const MachineSource& machine,
                 const VerdictThresholds& thresholds = {});

// The chart's ceilings of an analysis whose regions are done (analyze() sets
// a.machine.chart with it).
ChartCeilings chart_ceilings(const Analysis& a);

// The analysis without a machine or verdicts: what a writer shows of the
// measured data alone (merges of raw profiles, tests).
Analysis measured_only(const Profile& p);

}  // namespace rprof

#endif  // RPROF_ANALYSIS_ANALYSIS_H_
