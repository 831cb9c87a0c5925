#include "analysis/analysis.h"

#include <time.h>

#include <algorithm>
#include <cmath>

#include "hwcounters/hw_metrics.h"
#include "machine/latency_ladder.h"
#include "profile/function_view.h"
#include "roofline/verdict_causes.h"

namespace rprof {
namespace {

// The clock the runtime times regions with: a region shorter than a few
// hundred of its ticks plus the marker cost is flagged too-short.
double clock_resolution_s() {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// A function region that sampling ran for but no sample hit: each thread
// that ran it spent less than one period in it (a longer stretch would have
// been sampled), so its time is below period x threads.
std::optional<TimeBound> time_bound_of(const Region& r, const Metrics& m) {
  if (!r.fn_sampled || r.fn_samples > 0 || !(r.fn_period_s > 0)) return std::nullopt;
  TimeBound b;
  b.period_s = r.fn_period_s;
  b.threads = std::max(1u, r.fn_threads);
  b.max_time_s = b.period_s * b.threads;
  if (m.has_flops) b.min_gflops = m.flops_total() / b.max_time_s / 1e9;
  const Traffic& dram = m.at(Boundary::kDRAM);
  if (dram.measured && dram.bytes() > 0) b.min_dram_gbs = dram.bytes() / b.max_time_s / 1e9;
  return b;
}

std::optional<SampleStats> sample_stats_of(const Region& r, const VerdictThresholds& t) {
  if (!r.fn_sampled) return std::nullopt;
  SampleStats s;
  s.samples = r.fn_samples;
  s.relative_error = s.samples > 0 ? 1 / std::sqrt(static_cast<double>(s.samples)) : 1.0;
  s.uncertain = static_cast<double>(s.samples) < t.function_min_samples;
  return s;
}

// On the roofline chart: FLOPs, a FLOP rate (at the bound on its time when no
// sample hit it) and bytes at some boundary.
bool charted_of(const Region& r, const Metrics& m, const TimeBound* bound) {
  if (!m.has_flops) return false;
  const double gflops = bound && bound->min_gflops ? *bound->min_gflops
                        : r.time_s > 0             ? m.flops_total() / r.time_s / 1e9
                                                   : 0;
  if (gflops <= 0) return false;
  for (Boundary b : kBoundaries) {
    const Traffic& t = m.at(b);
    if (t.measured && t.bytes() > 0) return true;
  }
  return false;
}

}  // namespace

Metrics region_metrics(const CounterMap& counters) {
  return metrics_from_counters(counters, hardware_translation);
}

const RegionRoofline* RegionAnalysis::valid_roofline() const {
  return roofline && roofline->valid ? &*roofline : nullptr;
}

const MemoryView* RegionAnalysis::valid_memory() const {
  return memory && memory->valid ? &*memory : nullptr;
}

const Verdict* RegionAnalysis::shown_verdict() const {
  if (!verdict || (verdict->bound == Bound::kUnknown && verdict->flags.empty())) return nullptr;
  return &*verdict;
}

const SampledBoundary* RegionAnalysis::sampled_at(Boundary b) const {
  for (const SampledBoundary& s : sampled_traffic) {
    if (s.boundary == b) return &s;
  }
  return nullptr;
}

Analysis measured_only(const Profile& p) {
  Analysis a;
  a.profile = &p;
  a.shown = shown_regions(p);
  a.regions.reserve(p.regions.size());
  for (const Region& r : p.regions) {
    RegionAnalysis ra;
    ra.region = &r;
    ra.metrics = region_metrics(r.counters);
    if (r.has_cpu_time) ra.metrics.cpu_time_s = r.cpu_time_s;
    if (r.has_run_delay) ra.metrics.run_delay_s = r.run_delay_s;
    a.any_flops |= ra.metrics.has_flops;
    if (r.is_function()) {
      ra.function = FunctionInfo{demangle_symbol(r.fn_symbol), r.fn_symbol, r.fn_object,
                                 r.fn_source, region_metrics(r.fn_inclusive)};
      a.any_function = true;
      ra.time_bound = time_bound_of(r, ra.metrics);
      ra.sampling = sample_stats_of(r, VerdictThresholds{});
    }
    // A time bound gives rates from below only: no bandwidth interval then.
    ra.sampled_traffic =
        sampled_boundaries(ra.metrics, ra.metrics.has_flops ? ra.metrics.flops_total() : 0,
                           ra.time_bound ? 0 : r.time_s);
    a.any_sampled_traffic |= !ra.sampled_traffic.empty();
    ra.charted = a.shown[a.regions.size()] &&
                 charted_of(r, ra.metrics, ra.time_bound ? &*ra.time_bound : nullptr);
    a.regions.push_back(std::move(ra));
  }
  a.machine.chart = chart_ceilings(a);  // no machine: the regions' threads alone
  return a;
}

Analysis analyze(const Profile& p, const MachineSource& machine,
                 const VerdictThresholds& thresholds) {
  Analysis a = measured_only(p);
  a.machine = machine;
  a.thresholds = thresholds;
  a.verdicts = true;
  const double resolution = clock_resolution_s();
  const Machine* m = machine.machine;
  if (m != nullptr) {
    // Little's law reads these latencies: say when they are out of order.
    for (const CeilingSet& set : m->ceilings) {
      const std::string note = latency_ladder_note(set);
      if (!note.empty()) a.machine.notes.push_back(note);
    }
  }
  for (RegionAnalysis& ra : a.regions) {
    const Region& r = *ra.region;
    const int threads = std::max<int>(1, static_cast<int>(r.threads.size()));
    // No sample hit it: the rates at the bound on its time are lower bounds.
    // On a busy machine (busy-machine flag) the roofs are rates while
    // running: the time waiting for a CPU is the machine's, not the region's.
    const double time_s = ra.time_bound ? ra.time_bound->max_time_s
                          : busy_machine(r, ra.metrics.run_delay_s, thresholds) ? running_time_s(r)
                                                                                : r.time_s;
    if (ra.sampling) ra.sampling = sample_stats_of(r, thresholds);
    const bool uncertain = ra.sampling && ra.sampling->uncertain && !ra.time_bound;
    if (m != nullptr && ra.metrics.has_flops) {
      ra.roofline = region_roofline(ra.metrics, time_s, threads, *m);
      ra.roofline->lower_bound = ra.time_bound.has_value();
      ra.roofline->uncertain = uncertain;
    }
    if (m != nullptr && ra.metrics.any_traffic()) {
      ra.memory = memory_view(ra.metrics, time_s, threads, *m);
      ra.memory->lower_bound = ra.time_bound.has_value();
      ra.memory->uncertain = uncertain;
      a.any_memory |= ra.memory->valid;
    }
    if (r.is_program()) continue;
    VerdictInput in;
    in.region = &r;
    in.metrics = &ra.metrics;
    in.roofline = ra.roofline ? &*ra.roofline : nullptr;
    in.memory = ra.memory ? &*ra.memory : nullptr;
    in.machine = m;
    in.time_bound = ra.time_bound ? &*ra.time_bound : nullptr;
    if (ra.sampling) {
      in.time_uncertain = ra.sampling->uncertain;
      in.time_samples = ra.sampling->samples;
      in.time_relative_error = ra.sampling->relative_error;
    }
    in.clock_resolution_s = resolution;
    in.caches_simulated_per_process = p.run.per_process_cache_model;
    ra.verdict = classify(in, thresholds);
  }
  a.machine.chart = chart_ceilings(a);
  return a;
}

}  // namespace rprof
