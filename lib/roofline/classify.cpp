#include "roofline/classify.h"

#include <algorithm>
#include <cmath>

#include "roofline/verdict_causes.h"

namespace rprof {
namespace {

RoofSource roof_source(StreamMix kernel, const std::string& pages, bool read_limited,
                       double write_share) {
  return RoofSource{kernel, SharedText(pages), read_limited, write_share};
}

// The widest vector width this CPU executes (what "narrower than the CPU
// offers" compares with).
Width cpu_width(const Machine* m) {
  if (m == nullptr) return Width::k256;
  if (m->cpu.avx512f) return Width::k512;
  if (m->cpu.avx || m->cpu.avx2) return Width::k256;
  return Width::k128;
}

// Latency-bound needs few misses in flight (one at a time) and enough of
// them to explain the region's time: misses x latency / threads >=
// latency_min_explained x time, i.e. at least that many in flight.
bool latency_explains(double in_flight, const VerdictThresholds& t) {
  return in_flight >= t.latency_min_explained && in_flight <= t.latency_max_in_flight;
}

void bound_of(const RegionRoofline& rr, const VerdictThresholds& t, Verdict& v) {
  // With a time known only from above the fraction is a lower bound: "at
  // least" (a lower bound at the roof is at the roof).
  v.fraction = rr.fraction;
  v.at_roof = rr.fraction >= t.at_roof;
  if (rr.compute_limited) {
    v.bound = Bound::kCompute;
    const BoundaryRoof* b = rr.limiting ? rr.at(*rr.limiting) : nullptr;
    ComputeEvidence e;
    if (b) {
      e.boundary = b->boundary;
      e.intensity = b->intensity;
      e.ridge = b->ridge;
    }
    e.lower_bound = rr.lower_bound;
    e.gflops = rr.gflops;
    e.bound = rr.bound;
    e.roof = rr.roof;
    v.kind = VerdictKind::kCompute;
    v.numbers = e;
    return;
  }
  v.bound = Bound::kMemory;
  v.boundary = rr.limiting;
  const BoundaryRoof& b = *rr.at(*rr.limiting);
  v.kind = VerdictKind::kMemory;
  v.numbers = MemoryEvidence{b.boundary, b.intensity, b.ridge, rr.lower_bound, rr.gflops, rr.bound,
                             b.bandwidth_gbs,
                             roof_source(b.kernel, b.pages, b.read_limited, b.write_share)};
}

void latency_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  const RegionRoofline& rr = *in.roofline;
  if (v.bound != Bound::kMemory || rr.fraction >= t.latency_max_fraction || in.machine == nullptr) {
    return;
  }
  // Misses in flight from a time bound are a lower bound: no conclusion.
  if (rr.lower_bound) return;
  const Boundary b = *rr.limiting;
  // At L1 the bytes are load and store instructions, not line misses:
  // Little's law on misses applies below it only.
  if (b == Boundary::kL1) return;
  const std::optional<double> lat = latency_behind(*in.machine, b, rr.threads);
  if (!lat) return;
  const double lines = in.metrics->at(b).read_bytes / line_bytes_of(in.machine);
  const std::optional<double> mlp =
      misses_in_flight(lines, *lat, in.region->time_s, rr.threads);
  if (!mlp || !latency_explains(*mlp, t)) return;
  v.flags.emplace_back(FlagKind::kLatencyBound,
                       LatencyFlagEvidence{b, rr.fraction, *mlp, lines, *lat, in.region->time_s,
                                           rr.threads, t.latency_min_explained,
                                           t.latency_max_in_flight});
}

// Only where vector width can matter: on a memory-bound region wider vectors
// do not raise the bound (the first seed's triage), so it is not flagged.
void vector_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (v.bound == Bound::kMemory) return;
  const Metrics& m = *in.metrics;
  const std::optional<double> share = m.vector_share();
  const std::optional<Width> widest = m.widest_width();
  const Width offered = cpu_width(in.machine);
  // The share as printed (whole percent) is what is compared: "50% ... below
  // 50%" never prints.
  if (share && std::round(100 * *share) < std::round(100 * t.low_vector_share)) {
    v.flags.emplace_back(
        FlagKind::kLowVectorShare,
        VectorFlagEvidence{*share, t.low_vector_share, widest.value_or(Width::kScalar), offered});
  } else if (v.bound == Bound::kCompute && widest && *widest < offered) {
    v.flags.emplace_back(
        FlagKind::kLowVectorWidth,
        VectorFlagEvidence{share.value_or(0), t.low_vector_share, *widest, offered});
  }
}

void traffic_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  const Region& r = *in.region;
  if (r.work_calls == 0 || r.work_bytes <= 0) return;
  // The outermost measured boundary: the declared bytes are what would cross
  // main memory if every operand crossed once.
  for (Boundary b : {Boundary::kDRAM, Boundary::kLLC, Boundary::kL2, Boundary::kL1}) {
    const Traffic& tr = in.metrics->at(b);
    if (!tr.measured) continue;
    const double ratio = tr.bytes() / r.work_bytes;
    if (ratio <= t.traffic_above_ideal) return;
    const double excess = tr.bytes() - r.work_bytes;
    const bool write_allocate = tr.write_bytes > 0 && excess <= 1.1 * tr.write_bytes &&
                                tr.read_bytes >= 0.9 * tr.write_bytes;
    v.flags.emplace_back(
        write_allocate ? FlagKind::kTrafficWriteAllocate : FlagKind::kTrafficPoorReuse,
        TrafficFlagEvidence{b, tr.bytes(), r.work_bytes, ratio, tr.approximate});
    return;
  }
}

// A region without a FLOP roofline (no FLOPs, or no FLOP counts) that moved
// bytes: the bandwidth view is its verdict. Memory-bound at the boundary
// with the highest fraction of its roof; latency-bound when, below L1, few
// line misses are in flight (Little's law) while bandwidth is far from its
// roof; underutilized (added in classify) when neither explains a low fraction.
void memory_verdict(const MemoryView& mv, const VerdictThresholds& t, Verdict& v) {
  const BoundaryBandwidth& b = *mv.at(*mv.limiting);
  v.bound = Bound::kMemory;
  v.boundary = b.boundary;
  v.fraction = mv.fraction;
  v.at_roof = mv.fraction >= t.at_roof;
  v.kind = VerdictKind::kMemoryView;
  v.numbers = BandwidthEvidence{b.boundary,
                                mv.lower_bound,
                                b.gbs,
                                b.roof_gbs,
                                mv.fraction,
                                mv.threads,
                                mv.ceiling_threads,
                                roof_source(b.kernel, b.pages, b.read_limited, b.write_share),
                                0};
  if (!mv.latency_boundary || mv.fraction >= t.latency_max_fraction || mv.lower_bound) return;
  const BoundaryBandwidth& lb = *mv.at(*mv.latency_boundary);
  if (!lb.in_flight || !latency_explains(*lb.in_flight, t)) return;
  v.kind = VerdictKind::kLatencyView;
  v.numbers = BandwidthEvidence{lb.boundary,    false,       lb.gbs,
                                lb.roof_gbs,    lb.fraction, mv.threads,
                                mv.ceiling_threads, RoofSource{}, *lb.in_flight};
  v.flags.emplace_back(FlagKind::kLatencyBoundView,
                       LatencyFlagEvidence{lb.boundary, lb.fraction, *lb.in_flight, lb.line_misses,
                                           *lb.latency_ns, mv.time_s, mv.threads,
                                           t.latency_min_explained, t.latency_max_in_flight});
}

// A loop-carried accumulator (a sum, a dot product without reassociation)
// runs at one dependent operation per latency, whatever the roofs: HPCCG's
// ddot at -O3 retires one add per 3 cycles on a Zen 4, 14% of its DRAM roof,
// and four accumulators run it 3.7x faster. Without the program's dataflow
// the counts show it as a rate: FP instructions per thread retire at a whole
// number k of the chain operation's latency (k chains, or fewer chains with
// other FP instructions beside each step, as a dot product's multiply).
void chain_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (in.machine == nullptr || in.metrics == nullptr || in.region == nullptr) return;
  if (v.bound != Bound::kCompute && v.bound != Bound::kMemory) return;
  const Metrics& m = *in.metrics;
  const RegionRoofline* rr = in.roofline != nullptr && in.roofline->valid ? in.roofline : nullptr;
  const MemoryView* mv = in.memory != nullptr && in.memory->valid ? in.memory : nullptr;
  if (!m.has_fp_instructions || rr == nullptr || rr->lower_bound || rr->uncertain) return;
  if (rr->fraction >= t.chain_max_roof_fraction) return;
  if (mv != nullptr && mv->fraction >= t.chain_max_roof_fraction) return;
  const Precision p = m.flops[1][0] + m.flops[1][1] + m.flops[1][2] + m.flops[1][3] >=
                              m.flops[0][0] + m.flops[0][1] + m.flops[0][2] + m.flops[0][3]
                          ? Precision::kDP
                          : Precision::kSP;
  const int pi = static_cast<int>(p);
  double instructions = 0, lane_ops = 0, flops = 0;
  for (Width w : kWidths) {
    const int wi = static_cast<int>(w);
    instructions += m.fp_instructions[pi][wi];
    lane_ops += m.fp_instructions[pi][wi] * lanes(p, w);
    flops += m.flops[pi][wi];
  }
  // The roofline's time: the running time where the machine was busy.
  const double time = rr->time_s;
  const int threads = std::max(1, rr->threads);
  if (!(instructions > 0) || !(time > 0)) return;
  // FLOPs per lane operation - 1: the FMA share (FMA = 2 FLOPs per lane).
  const double fma_share = lane_ops > 0 ? std::clamp(flops / lane_ops - 1, 0.0, 1.0) : 0;
  const FpOp op = fma_share >= 0.5 ? FpOp::kFma : FpOp::kAdd;
  const FpLatency* lat = in.machine->fp_latency_of(p, op);
  if (lat == nullptr) return;
  const double per_latency = instructions / time / threads * lat->ns * 1e-9;
  const double k = std::round(per_latency);
  if (k < 1 || k > t.chain_max || std::abs(per_latency - k) > t.chain_tolerance * k) return;
  v.bound = Bound::kDependencyChain;
  v.chain = ChainEvidence{p, op, per_latency, static_cast<int>(k), lat->ns, lat->cycles};
  v.boundary.reset();
  v.fraction = per_latency / k;
  v.at_roof = v.fraction >= t.at_roof;
  v.likely_limit = LikelyLimit();
  std::erase_if(v.flags, [](const VerdictFlag& f) { return f.flag == Flag::kLatencyBound; });
  v.kind = VerdictKind::kDependencyChain;
  v.numbers = ChainVerdictEvidence{std::max(rr->fraction, mv != nullptr ? mv->fraction : 0.0)};
}

}  // namespace

const char* verdict_kind_key(VerdictKind k) {
  switch (k) {
    case VerdictKind::kNone: return "none";
    case VerdictKind::kCompute: return "compute";
    case VerdictKind::kMemory: return "memory";
    case VerdictKind::kMemoryView: return "memory-view";
    case VerdictKind::kLatencyView: return "latency-view";
    case VerdictKind::kDependencyChain: return "dependency-chain";
    case VerdictKind::kWaiting: return "waiting";
    case VerdictKind::kBelowRoofs: return "below-roofs";
    case VerdictKind::kUncertainSamples: return "uncertain-samples";
    case VerdictKind::kUncertainNoSample: return "uncertain-no-sample";
    case VerdictKind::kNoRoofline: return "no-roofline";
  }
  return "none";
}

const char* limit_kind_key(LimitKind k) {
  switch (k) {
    case LimitKind::kNone: return "none";
    case LimitKind::kLatency: return "latency";
    case LimitKind::kIrregularNoFlops: return "irregular-no-flops";
    case LimitKind::kNonFp: return "non-fp";
    case LimitKind::kIrregular: return "irregular";
    case LimitKind::kDependencyChains: return "dependency-chains";
    case LimitKind::kLowVectorization: return "low-vectorization";
  }
  return "none";
}

const char* flag_kind_key(FlagKind k) {
  switch (k) {
    case FlagKind::kLatencyBound: return "latency-bound";
    case FlagKind::kLatencyBoundView: return "latency-bound-view";
    case FlagKind::kLowVectorShare: return "low-vector-share";
    case FlagKind::kLowVectorWidth: return "low-vector-width";
    case FlagKind::kTrafficWriteAllocate: return "traffic-write-allocate";
    case FlagKind::kTrafficPoorReuse: return "traffic-poor-reuse";
    case FlagKind::kAboveBandwidthRoof: return "above-bandwidth-roof";
    case FlagKind::kAboveComputeRoof: return "above-compute-roof";
    case FlagKind::kTooShortSamples: return "too-short-samples";
    case FlagKind::kTooShortNoSample: return "too-short-no-sample";
    case FlagKind::kTooShortSelfTime: return "too-short-self-time";
    case FlagKind::kTooShortMarkers: return "too-short-markers";
    case FlagKind::kLoadImbalance: return "load-imbalance";
    case FlagKind::kUnderutilized: return "underutilized";
    case FlagKind::kBusyMachine: return "busy-machine";
    case FlagKind::kImplausibleLatency: return "implausible-latency";
    case FlagKind::kRankImbalance: return "rank-imbalance";
    case FlagKind::kOwnCache: return "own-cache";
  }
  return "underutilized";
}

Flag flag_of(FlagKind k) {
  switch (k) {
    case FlagKind::kLatencyBound:
    case FlagKind::kLatencyBoundView: return Flag::kLatencyBound;
    case FlagKind::kLowVectorShare:
    case FlagKind::kLowVectorWidth: return Flag::kLowVectorization;
    case FlagKind::kTrafficWriteAllocate:
    case FlagKind::kTrafficPoorReuse: return Flag::kTrafficAboveIdeal;
    case FlagKind::kAboveBandwidthRoof:
    case FlagKind::kAboveComputeRoof: return Flag::kAboveRoof;
    case FlagKind::kTooShortSamples:
    case FlagKind::kTooShortNoSample:
    case FlagKind::kTooShortSelfTime:
    case FlagKind::kTooShortMarkers: return Flag::kTooShort;
    case FlagKind::kLoadImbalance: return Flag::kLoadImbalance;
    case FlagKind::kUnderutilized: return Flag::kUnderutilized;
    case FlagKind::kBusyMachine: return Flag::kBusyMachine;
    case FlagKind::kImplausibleLatency: return Flag::kImplausibleLatency;
    case FlagKind::kRankImbalance: return Flag::kLoadImbalance;
    case FlagKind::kOwnCache: return Flag::kOwnCache;
  }
  return Flag::kUnderutilized;
}

bool Verdict::has(Flag flag) const { return this->flag(flag) != nullptr; }

const VerdictFlag* Verdict::flag(Flag f) const {
  for (const VerdictFlag& x : flags) {
    if (x.flag == f) return &x;
  }
  return nullptr;
}

Verdict classify(const VerdictInput& in, const VerdictThresholds& t) {
  Verdict v;
  const Region& r = *in.region;
  if (in.time_uncertain && in.time_bound == nullptr) {
    // A time of a few samples: no bound, fraction or rate-based flag; what
    // its exact counts say (vectorization, traffic) still holds.
    UncertainEvidence e;
    e.samples = in.time_samples;
    e.relative_error = in.time_relative_error;
    e.min_samples = t.function_min_samples;
    v.kind = VerdictKind::kUncertainSamples;
    v.numbers = e;
    v.flags.emplace_back(FlagKind::kTooShortSamples, e);
    if (in.metrics != nullptr && in.metrics->has_flops) vector_flag(in, t, v);
    if (in.metrics != nullptr) traffic_flag(in, t, v);
    return v;
  }
  const RegionRoofline* rr = in.roofline;
  // Threads mostly off the CPU: no roof set its time, whatever its counts.
  const bool waiting = waiting_verdict(in, t, v);
  if (waiting) {
    // The bound is set; its rates are not compared with the roofs.
  } else if (rr != nullptr && rr->valid) {
    bound_of(*rr, t, v);
    if (rr->fraction > t.above_roof) {
      const BoundaryRoof* lb = rr->compute_limited || !rr->limiting ? nullptr
                                                                   : rr->at(*rr->limiting);
      AboveRoofEvidence e;
      e.gflops = rr->gflops;
      e.ratio = rr->fraction;
      e.bound = rr->bound;
      e.ceiling_threads = rr->ceiling_threads;
      if (lb) {
        e.boundary = lb->boundary;
        e.bandwidth_gbs = lb->bandwidth_gbs;
        e.source = roof_source(lb->kernel, lb->pages, lb->read_limited, lb->write_share);
      } else {
        e.roof = rr->roof;
      }
      v.flags.emplace_back(lb ? FlagKind::kAboveBandwidthRoof : FlagKind::kAboveComputeRoof, e);
    }
    latency_flag(in, t, v);
  } else if (in.memory != nullptr && in.memory->valid) {
    memory_verdict(*in.memory, t, v);
  } else {
    v.kind = VerdictKind::kNoRoofline;
    v.numbers = NoRooflineEvidence{rr != nullptr ? rr->why_not : SharedText()};
  }
  if (!waiting) chain_verdict(in, t, v);
  if (!waiting) below_roofs_verdict(in, t, v);
  // Only measured boundaries are judged: one without counts is named as such.
  const bool unmeasured = unmeasured_below_l1(in);
  if (!waiting && unmeasured && (v.bound == Bound::kCompute || v.bound == Bound::kMemory)) {
    v.unmeasured_below_l1 = true;
  }
  busy_machine_flag(in, t, v);
  implausible_latency_flag(in, v);
  if (!waiting && in.metrics != nullptr && in.metrics->has_flops) vector_flag(in, t, v);
  if (in.metrics != nullptr) traffic_flag(in, t, v);

  const Spread s = r.thread_spread();
  if (s.count > 1 && s.max_s > 0 && (s.max_s - s.min_s) / s.max_s > t.load_imbalance) {
    // Threads of several processes (MPI ranks): the ranks' work is what to
    // balance, not a loop's schedule.
    const size_t processes = r.process_spread().count;
    v.flags.emplace_back(processes > 1 ? FlagKind::kRankImbalance : FlagKind::kLoadImbalance,
                         ImbalanceEvidence{s.min_s, s.max_s, static_cast<size_t>(s.count),
                                           (s.max_s - s.min_s) / s.max_s, processes});
  }
  // Processes that share a host's LLC, simulated with one each: their LLC
  // and DRAM traffic is each one's alone.
  if (in.caches_simulated_per_process && in.metrics != nullptr &&
      (in.metrics->at(Boundary::kLLC).measured || in.metrics->at(Boundary::kDRAM).measured)) {
    if (const int n = r.processes_on_one_host(); n > 1) {
      v.flags.emplace_back(FlagKind::kOwnCache, OwnCacheEvidence{n});
    }
  }
  const double overhead = t.marker_pair_s + in.clock_resolution_s;
  const double per_call = r.calls > 0 ? r.time_s / static_cast<double>(r.calls) : r.time_s;
  // A region only open (no call completed) has no time to judge yet: its
  // open time is reported instead (never "0 s in 0 calls").
  const bool only_open = r.calls == 0 && r.open_calls > 0;
  if (r.is_function() && in.time_bound != nullptr) {
    // No cpu-clock sample hit it: its counts are exact, its time is only
    // bounded from above, so its rates from below.
    const TimeBound& b = *in.time_bound;
    // Fewer samples than an uncertain time (none): no bound is claimed
    // either; the roofline keeps what the counts say (limited_by).
    if (v.bound != Bound::kWaiting) {
      v.bound = Bound::kUnknown;
      v.boundary.reset();
      v.at_roof = false;
      v.likely_limit = LikelyLimit();
      v.unmeasured_below_l1 = false;
      UncertainEvidence e;
      e.max_time_s = b.max_time_s;
      e.min_gflops = b.min_gflops;
      e.min_dram_gbs = b.min_dram_gbs;
      v.kind = VerdictKind::kUncertainNoSample;
      v.numbers = e;
    }
    v.flags.emplace_back(FlagKind::kTooShortNoSample,
                         NoSampleFlagEvidence{b.period_s, b.threads, b.max_time_s, b.min_gflops,
                                              b.min_dram_gbs});
  } else if (r.is_function()) {
    // A function region (the function view) has no marker calls: its time is
    // sampled (or estimated), so only its total can be too short to trust.
    if (r.time_s < t.min_total_s) {
      ShortFlagEvidence e;
      e.time_s = r.time_s;
      e.min_total_s = t.min_total_s;
      v.flags.emplace_back(FlagKind::kTooShortSelfTime, e);
    }
  } else if (!only_open &&
             (r.time_s < t.min_total_s || per_call < t.too_short_overheads * overhead)) {
    ShortFlagEvidence e;
    e.time_s = r.time_s;
    e.min_total_s = t.min_total_s;
    e.calls = r.calls;
    e.per_call_s = per_call;
    e.overhead_s = overhead;
    v.flags.emplace_back(FlagKind::kTooShortMarkers, e);
  }
  const bool specific = v.has(Flag::kLatencyBound) || v.has(Flag::kLowVectorization) ||
                        v.has(Flag::kLoadImbalance) || v.has(Flag::kAboveRoof) ||
                        v.has(Flag::kTooShort) || v.likely_limit.kind != LimitKind::kNone ||
                        unmeasured;
  const bool judged = !waiting && v.bound != Bound::kDependencyChain &&
                      ((rr != nullptr && rr->valid) || (in.memory != nullptr && in.memory->valid));
  if (judged && v.fraction < t.underutilized && !specific) {
    v.flags.emplace_back(FlagKind::kUnderutilized, UnderutilizedEvidence{v.fraction});
  }
  return v;
}

}  // namespace rprof
