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

#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "profile/metrics.h"
#include "profile/profile.h"
#include "roofline/classify.h"
#include "roofline/memory_view.h"
#include "roofline/roofline.h"

namespace rprof {

// Where the ceilings came from: the machine (null: none), its file and what
// to tell the reader about it ("calibrated now", "no roofline: ...").
struct MachineSource {
  const Machine* machine = nullptr;
  std::string file;
  std::vector<std::string> notes;
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

struct RegionAnalysis {
  const Region* region = nullptr;
  Metrics metrics;
  // Function regions only.
  std::optional<FunctionInfo> function;
  // A function region whose sampled run gave it no sample: an upper bound on
  // its time, so lower bounds on its rates (the roofline and memory view
  // below are computed with it and say so: lower_bound).
  std::optional<TimeBound> time_bound;
  // Function regions whose time was sampled.
  std::optional<SampleStats> sampling;
  // Regions with FLOP counts when there are ceilings: valid, or why not.
  std::optional<RegionRoofline> roofline;
  // Regions with traffic counts when there are ceilings, FLOPs or not: the
  // bandwidth at each boundary against its roof and Little's law.
  std::optional<MemoryView> memory;
  // Every region but [program]; bound "unknown" with no flags says nothing.
  std::optional<Verdict> verdict;

  // The roofline when it is valid, else null.
  const RegionRoofline* valid_roofline() const;
  // The memory view when it is valid, else null.
  const MemoryView* valid_memory() const;
  // The verdict when it says something (a bound or a flag), else null.
  const Verdict* shown_verdict() const;
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

  const Profile& prof() const { return *profile; }
};

// What a region's counters mean: canonical counter names, then the hardware
// backends' event formulas (hw.g* counters: lib/backends/perf/hw_metrics).
Metrics region_metrics(const CounterMap& counters);

// The analysis of `p` (which must outlive it) against `machine`.
Analysis analyze(const Profile& p, const MachineSource& machine,
                 const VerdictThresholds& thresholds = {});

// The analysis without a machine or verdicts: what a writer shows of the
// measured data alone (merges of raw profiles, tests).
Analysis measured_only(const Profile& p);

}  // namespace rprof

#endif  // RPROF_ANALYSIS_ANALYSIS_H_
