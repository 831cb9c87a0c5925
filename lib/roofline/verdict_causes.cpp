#include "roofline/verdict_causes.h"

#include <algorithm>
#include <cmath>

namespace rprof {
namespace {

// The boundary below L1 whose misses by Little's law explain at least
// latency_min_explained of the time while few are in flight: the region's
// time is its misses' latency. nullptr when none.
const BoundaryBandwidth* latency_limit(const VerdictInput& in, const VerdictThresholds& t) {
  if (in.memory == nullptr || !in.memory->valid || in.memory->lower_bound) return nullptr;
  const BoundaryBandwidth* best = nullptr;
  for (const BoundaryBandwidth& b : in.memory->boundaries) {
    if (!b.in_flight || b.in_flight_implausible) continue;
    if (*b.in_flight < t.latency_min_explained || *b.in_flight > t.latency_max_in_flight) continue;
    if (best == nullptr || *b.in_flight > *best->in_flight) best = &b;
  }
  return best;
}

// The likely limit of a region below every roof, from its counts, with the
// numbers that name it; kind kNone when the counts name none.
LikelyLimit likely_limit(const VerdictInput& in, const VerdictThresholds& t) {
  const Metrics& m = *in.metrics;
  LikelyLimit l;
  l.min_explained = t.latency_min_explained;
  l.max_in_flight = t.latency_max_in_flight;
  l.irregular_miss_share = t.irregular_miss_share;
  l.irregular_l1_bytes_per_flop = t.irregular_l1_bytes_per_flop;
  l.low_vector_share = t.low_vector_share;
  if (const BoundaryBandwidth* b = latency_limit(in, t)) {
    l.kind = LimitKind::kLatency;
    l.in_flight = *b->in_flight;
    l.boundary = b->boundary;
    l.line_misses = b->line_misses;
    l.latency_ns = *b->latency_ns;
    return l;
  }
  const double flops = m.has_flops ? m.flops_total() : 0;
  const Traffic& l1 = m.at(Boundary::kL1);
  const Traffic& l2 = m.at(Boundary::kL2);
  const double miss_share = l1.measured && l2.measured && l1.bytes() > 0
                                ? l2.bytes() / l1.bytes()
                                : 0;
  l.miss_share = miss_share;
  if (!(flops > 0)) {
    if (miss_share >= t.irregular_miss_share) {
      // Loads that miss (a pointer chase, a scattered gather) with fewer
      // misses in flight than the latency-bound band asks: the machine's
      // measured latency may be below what these misses cost (page walks,
      // another or a busier host).
      const BoundaryBandwidth* deepest = nullptr;
      if (in.memory != nullptr && in.memory->valid) {
        for (const BoundaryBandwidth& b : in.memory->boundaries) {
          if (b.in_flight && b.latency_ns && !b.in_flight_implausible && b.line_misses > 0) {
            deepest = &b;
          }
        }
      }
      l.kind = LimitKind::kIrregularNoFlops;
      if (deepest != nullptr) {
        l.little = *deepest->in_flight < t.latency_min_explained ? LikelyLimit::Little::kUnder
                                                                 : LikelyLimit::Little::kAbove;
        l.in_flight = *deepest->in_flight;
        l.boundary = deepest->boundary;
        l.line_misses = deepest->line_misses;
        l.latency_ns = *deepest->latency_ns;
        l.bandwidth_fraction = deepest->fraction;
      }
      return l;
    }
    l.kind = LimitKind::kNonFp;
    return l;
  }
  const double l1_per_flop = l1.measured ? l1.bytes() / flops : 0;
  l.l1_bytes_per_flop = l1_per_flop;
  if (l1_per_flop >= t.irregular_l1_bytes_per_flop && miss_share >= t.irregular_miss_share) {
    l.kind = LimitKind::kIrregular;
    return l;
  }
  const std::optional<double> share = m.vector_share();
  // Compared as printed (whole percent).
  const bool scalar = share && std::round(100 * *share) < std::round(100 * t.low_vector_share);
  const RegionRoofline* rr = in.roofline != nullptr && in.roofline->valid ? in.roofline : nullptr;
  if (scalar) l.vector_share = *share;
  if (scalar && rr != nullptr && rr->compute_limited) {
    l.kind = LimitKind::kDependencyChains;
    l.below_l1_counted = l2.measured && l1.measured;
    return l;
  }
  if (scalar) l.kind = LimitKind::kLowVectorization;
  return l;
}

}  // namespace

double summed_wall_s(const Region& r) {
  const double threads = static_cast<double>(std::max<size_t>(1, r.threads.size()));
  return r.thread_time_s > 0 ? r.thread_time_s : r.time_s * threads;
}

std::optional<double> cpu_share(const VerdictInput& in) {
  if (in.metrics == nullptr || !in.metrics->cpu_time_s || in.region == nullptr) {
    return std::nullopt;
  }
  const double wall = summed_wall_s(*in.region);
  if (!(wall > 0) || !(*in.metrics->cpu_time_s >= 0)) return std::nullopt;
  return *in.metrics->cpu_time_s / wall;
}

std::optional<double> run_delay_share(const Region& r, std::optional<double> run_delay_s) {
  const double wall = summed_wall_s(r);
  if (!run_delay_s || !(wall > 0) || !(*run_delay_s >= 0)) return std::nullopt;
  return *run_delay_s / wall;
}

bool busy_machine(const Region& r, std::optional<double> run_delay_s, const VerdictThresholds& t) {
  const std::optional<double> share = run_delay_share(r, run_delay_s);
  return share && *share >= t.busy_min_run_delay_share;
}

double running_time_s(const Region& r) {
  if (!r.has_run_delay || r.threads.empty()) return r.time_s;
  double slowest = 0;
  for (const ThreadRow& t : r.threads) slowest = std::max(slowest, t.time_s - t.run_delay_s);
  return slowest > 0 ? slowest : r.time_s;
}

bool waiting_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  const std::optional<double> share = cpu_share(in);
  if (!share) return false;
  const Region& r = *in.region;
  const std::optional<double> delay = run_delay_share(r, in.metrics->run_delay_s);
  // Runnable: on a CPU or waiting for one. Only the rest is the threads' choice.
  const double runnable = *share + delay.value_or(0);
  if (runnable >= t.waiting_max_cpu_share) return false;
  const int threads = static_cast<int>(std::max<size_t>(1, r.threads.size()));
  const double wall = summed_wall_s(r);
  v.bound = Bound::kWaiting;
  v.fraction = 0;
  WaitingEvidence e;
  e.has_run_delay = delay.has_value();
  e.cpu_share = *share;
  e.cpu_s = *in.metrics->cpu_time_s;
  e.wall_s = wall;
  e.threads = threads;
  if (delay) {
    e.run_delay_share = *delay;
    e.run_delay_s = *in.metrics->run_delay_s;
  }
  e.runnable = runnable;
  e.max_cpu_share = t.waiting_max_cpu_share;
  v.kind = VerdictKind::kWaiting;
  v.numbers = e;
  return true;
}

bool unmeasured_below_l1(const VerdictInput& in) {
  if (in.metrics == nullptr || !in.metrics->any_traffic()) return false;
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    if (in.metrics->at(b).measured) return false;
  }
  return true;
}

void busy_machine_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (in.metrics == nullptr || in.region == nullptr) return;
  const Region& r = *in.region;
  if (!busy_machine(r, in.metrics->run_delay_s, t)) return;
  const double share = *run_delay_share(r, in.metrics->run_delay_s);
  const int threads = static_cast<int>(std::max<size_t>(1, r.threads.size()));
  v.flags.emplace_back(FlagKind::kBusyMachine,
                       BusyEvidence{share, *in.metrics->run_delay_s, summed_wall_s(r), threads,
                                    t.busy_min_run_delay_share, running_time_s(r), r.time_s});
}

void below_roofs_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (v.bound != Bound::kCompute && v.bound != Bound::kMemory) return;
  // Memory-limited at L1 with nothing counted below it (the inst backend
  // with --sample=off): L2, LLC or DRAM may be what limits, so "below every
  // roof" would claim what was not measured; the verdict stays at the roof
  // that was. A compute-limited region keeps the rule, its likely limit
  // saying what L1 counts cannot tell.
  if (v.bound == Bound::kMemory && unmeasured_below_l1(in)) return;
  const double threshold = v.bound == Bound::kCompute ? t.below_roofs : t.below_bandwidth_roofs;
  if (!(v.fraction < threshold) || v.has(Flag::kLatencyBound)) return;
  const RegionRoofline* rr = in.roofline != nullptr && in.roofline->valid ? in.roofline : nullptr;
  const MemoryView* mv = in.memory != nullptr && in.memory->valid ? in.memory : nullptr;
  if ((rr != nullptr && rr->lower_bound) || (rr == nullptr && (mv == nullptr || mv->lower_bound))) {
    return;  // a rate known from below cannot be far below a roof
  }
  v.likely_limit = likely_limit(in, t);
  BelowRoofsEvidence e;
  e.threshold = threshold;
  if (rr != nullptr) {
    const BoundaryRoof* b = rr->limiting ? rr->at(*rr->limiting) : nullptr;
    e.fraction = rr->fraction;
    e.gflops = rr->gflops;
    e.bound = rr->bound;
    e.compute_limited = rr->compute_limited;
    e.roof = rr->roof;
    if (b) {
      e.boundary = b->boundary;
      e.intensity = b->intensity;
      e.ridge = b->ridge;
    }
  } else {
    const BoundaryBandwidth& b = *mv->at(*mv->limiting);
    e.bandwidth_view = true;
    e.fraction = mv->fraction;
    e.gbs = b.gbs;
    e.roof_gbs = b.roof_gbs;
    e.boundary = b.boundary;
  }
  v.kind = VerdictKind::kBelowRoofs;
  v.numbers = e;
  v.bound = Bound::kBelowRoofs;
  v.boundary.reset();
  v.at_roof = false;
}

void implausible_latency_flag(const VerdictInput& in, Verdict& v) {
  if (in.memory == nullptr || !in.memory->valid) return;
  const MemoryView& mv = *in.memory;
  for (const BoundaryBandwidth& b : mv.boundaries) {
    if (!b.in_flight_implausible) continue;
    v.flags.emplace_back(FlagKind::kImplausibleLatency,
                         LatencyFlagEvidence{b.boundary, b.fraction, *b.in_flight, b.line_misses,
                                             *b.latency_ns, mv.time_s, mv.threads, 0,
                                             static_cast<double>(kMaxLinesInFlightPerCore)});
  }
}

}  // namespace rprof
