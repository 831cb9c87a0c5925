#include "roofline/classify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/verdict_causes.h"

namespace rprof {
namespace {

std::string pct(double f) { return fmt::format("{:.0f}%", 100 * f); }
// A fraction of a bandwidth roof: small ones (a chase's 0.1%) keep two digits.
std::string pct_small(double f) {
  return f < 0.01 ? fmt::format("{:.2g}%", 100 * f) : pct(f);
}
std::string g(double v) { return fmt::format("{:.3g}", v); }

// Which measurement made a bandwidth roof: the kernel, its pages, and for a
// read-limited roof the mix it was scaled to (MixRoof).
std::string roof_source(StreamMix kernel, const std::string& pages, bool read_limited,
                        double write_share) {
  const std::string on = pages.empty() ? "" : ", " + pages + " pages";
  if (!read_limited) return fmt::format("{} kernel{}", stream_key(kernel), on);
  return fmt::format("{} kernel's read rate{} / (1 - {} written)", stream_key(kernel), on,
                     pct(write_share));
}

// The widest vector width this CPU executes (what "narrower than the CPU
// offers" compares with).
Width cpu_width(const Machine* m) {
  if (m == nullptr) return Width::k256;
  if (m->cpu.avx512f) return Width::k512;
  if (m->cpu.avx || m->cpu.avx2) return Width::k256;
  return Width::k128;
}

// A rate known from below only (a time bound) cannot say a region is below
// its roof.
constexpr const char* kUnknownFraction =
    "how far below its roof it runs is unknown (its time is only bounded): run more work "
    "in it for a measured rate";

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
  const std::string least = rr.lower_bound ? "at least " : "";
  const std::string achieved = fmt::format("{}{} of {} GFLOP/s", rr.lower_bound ? ">= " : "",
                                           g(rr.gflops), g(rr.bound));
  if (rr.compute_limited) {
    v.bound = Bound::kCompute;
    const BoundaryRoof* b = rr.limiting ? rr.at(*rr.limiting) : nullptr;
    v.set_summary(
        fmt::format("compute-bound{}: {}{} of the {} roof ({})",
                    b ? fmt::format(" (intensity {} FLOP/byte at {} >= ridge {})", g(b->intensity),
                                    boundary_name(b->boundary), g(b->ridge))
                      : "",
                    least, rr.lower_bound ? pct_small(rr.fraction) : pct(rr.fraction),
                    rr.roof.label(), achieved));
    v.direction = v.at_roof
                      ? "at the compute roof: only a higher roof helps: wider vectors, FMA, "
                        "a better instruction mix, or fewer operations for the same result"
                      : "below the compute roof: look at dependency chains, vector "
                        "utilization, instruction mix and load balance";
    if (rr.lower_bound && !v.at_roof) v.direction = kUnknownFraction;
    return;
  }
  v.bound = Bound::kMemory;
  v.boundary = rr.limiting;
  const BoundaryRoof& b = *rr.at(*rr.limiting);
  v.set_summary(
      fmt::format("memory-bound at {} (intensity {} FLOP/byte < ridge {}): {}{} of the bandwidth "
                  "roof ({}; {} GB/s x {} FLOP/byte; {})",
                  boundary_name(b.boundary), g(b.intensity), g(b.ridge), least,
                  rr.lower_bound ? pct_small(rr.fraction) : pct(rr.fraction), achieved,
                  g(b.bandwidth_gbs), g(b.intensity),
                  roof_source(b.kernel, b.pages, b.read_limited, b.write_share)));
  v.direction = fmt::format(
      "{}move fewer bytes across {}: fuse loops over the same data, block for the "
      "cache, use smaller types; more FLOP/s alone will not help",
      v.at_roof ? "at the bandwidth roof: " : "", boundary_name(b.boundary));
  if (rr.lower_bound && !v.at_roof) {
    v.direction = std::string(kUnknownFraction) + "; its intensity says bytes across " +
                  boundary_name(b.boundary) + " limit it";
  }
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
  v.flags.push_back(
      {Flag::kLatencyBound,
       fmt::format("{} of the {} bandwidth roof with {:.2g} line misses in flight per "
                   "thread (Little's law: {:.3g} misses x {:.3g} ns / {:.3g} s / {} "
                   "thread{}; between {:.2g}, misses that explain the time, and {:.2g}): "
                   "waiting on one miss at a time",
                   pct(rr.fraction), boundary_name(b), *mlp, lines, *lat,
                   in.region->time_s, rr.threads, rr.threads == 1 ? "" : "s",
                   t.latency_min_explained, t.latency_max_in_flight),
       "bandwidth is not the limit: get more independent misses in flight (prefetch, "
       "interleave independent chains, a layout with sequential access)"});
}

// Only where vector width can matter: on a memory-bound region wider vectors
// do not raise the bound (the first seed's triage), so it is not flagged.
void vector_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (v.bound == Bound::kMemory) return;
  const Metrics& m = *in.metrics;
  const std::optional<double> share = m.vector_share();
  const std::optional<Width> widest = m.widest_width();
  const Width offered = cpu_width(in.machine);
  std::string reason;
  // The share as printed (whole percent) is what is compared: "50% ... below
  // 50%" never prints.
  if (share && std::round(100 * *share) < std::round(100 * t.low_vector_share)) {
    reason = fmt::format("{} of FP instructions are packed (vector), below {}",
                         pct(*share), pct(t.low_vector_share));
  } else if (v.bound == Bound::kCompute && widest && *widest < offered) {
    reason = fmt::format("widest FP instructions are {}-bit; this CPU offers {}-bit",
                         widest == Width::kScalar ? "64" : width_name(*widest),
                         width_name(offered));
  }
  if (reason.empty()) return;
  v.flags.push_back({Flag::kLowVectorization, reason,
                     "vectorize the hot loop (restrict, aligned contiguous access, "
                     "-O3 -march=..., no -fno-tree-vectorize) to reach the vector roof"});
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
    v.flags.push_back(
        {Flag::kTrafficAboveIdeal,
         fmt::format("{:.3g} bytes measured at {} vs {:.3g} declared: {:.2f}x the ideal{}",
                     tr.bytes(), boundary_name(b), r.work_bytes, ratio,
                     tr.approximate ? " (approximate traffic)" : ""),
         write_allocate
             ? "likely write-allocate: each stored line is read before it is written; "
               "use non-temporal (streaming) stores or write whole lines"
             : "likely poor reuse: data is fetched more than once; block or fuse so "
               "each operand crosses once"});
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
  const std::string threads =
      fmt::format("{} thread{}{}", mv.threads, mv.threads == 1 ? "" : "s",
                  mv.ceiling_threads == mv.threads
                      ? ""
                      : fmt::format(", ceiling of {}", mv.ceiling_threads));
  v.set_summary(
      fmt::format("memory-bound at {} (no FLOP roofline: bandwidth view): {}{} GB/s of the {} GB/s "
                  "bandwidth roof ({}{}, {}; {}; GB = 1e9 bytes)",
                  boundary_name(b.boundary), mv.lower_bound ? ">= " : "", g(b.gbs), g(b.roof_gbs),
                  mv.lower_bound ? "at least " : "", pct_small(mv.fraction), threads,
                  roof_source(b.kernel, b.pages, b.read_limited, b.write_share)));
  v.direction =
      v.at_roof ? fmt::format("at the {} bandwidth roof: move fewer bytes across it: "
                              "blocking for the cache, smaller types, a layout that "
                              "uses every byte of each line",
                              boundary_name(b.boundary))
                : fmt::format("below the {} bandwidth roof: keep more bytes in flight "
                              "(prefetch, independent streams, more threads) or move "
                              "fewer (blocking, layout)",
                              boundary_name(b.boundary));
  if (mv.lower_bound && !v.at_roof) v.direction = kUnknownFraction;
  if (!mv.latency_boundary || mv.fraction >= t.latency_max_fraction || mv.lower_bound) return;
  const BoundaryBandwidth& lb = *mv.at(*mv.latency_boundary);
  if (!lb.in_flight || !latency_explains(*lb.in_flight, t)) return;
  v.set_summary(
      fmt::format("latency-bound at {}: {:.2g} line misses in flight per thread; {} GB/s is {} of "
                  "the {} GB/s {} bandwidth roof ({})",
                  boundary_name(lb.boundary), *lb.in_flight, g(lb.gbs), pct_small(lb.fraction),
                  g(lb.roof_gbs), boundary_name(lb.boundary), threads));
  v.direction =
      "bandwidth is not the limit, the wait for each miss is: interleave independent "
      "chains, prefetch ahead, or a layout with sequential access (arrays, not linked "
      "nodes)";
  v.flags.push_back(
      {Flag::kLatencyBound,
       fmt::format("{} of the {} bandwidth roof with {:.2g} line misses in flight per "
                   "thread (Little's law: {:.3g} misses x {:.3g} ns / {:.3g} s / {} "
                   "thread{}; between {:.2g}, misses that explain the time, and {:.2g}): "
                   "waiting on one miss at a time",
                   pct_small(lb.fraction), boundary_name(lb.boundary), *lb.in_flight,
                   lb.line_misses, *lb.latency_ns, mv.time_s, mv.threads,
                   mv.threads == 1 ? "" : "s", t.latency_min_explained,
                   t.latency_max_in_flight),
       "get more independent misses in flight: interleave independent chains, prefetch, "
       "a layout with sequential access"});
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
  const std::string cycles =
      lat->cycles > 0 ? fmt::format("{:.3g} cycles, {:.3g} ns", lat->cycles, lat->ns)
                      : fmt::format("{:.3g} ns", lat->ns);
  v.bound = Bound::kDependencyChain;
  v.chain = ChainEvidence{p, op, per_latency, static_cast<int>(k), lat->ns, lat->cycles};
  v.boundary.reset();
  v.fraction = per_latency / k;
  v.at_roof = v.fraction >= t.at_roof;
  v.likely_limit = SharedText();
  std::erase_if(v.flags, [](const VerdictFlag& f) { return f.flag == Flag::kLatencyBound; });
  const double roof_share = std::max(rr->fraction, mv != nullptr ? mv->fraction : 0.0);
  v.set_summary(fmt::format(
      "dependency chain: {:.3g} {} FP instructions per {} latency ({}) per thread, {} of the "
      "rate of {:.0f} dependent {} chain{} ({:.0f} per latency; or fewer chains with other FP "
      "instructions beside each step); {} of the nearest roof",
      per_latency, precision_name(p), fp_op_key(op), cycles, pct(v.fraction), k, fp_op_key(op),
      k == 1 ? "" : "s", k, pct(roof_share)));
  v.direction = fmt::format(
      "the latency of dependent {}s sets the pace, not memory or the FP units: split the "
      "accumulator into 4-8 independent partial sums (unroll the reduction), or allow "
      "reassociation (-ffast-math or -fassociative-math, #pragma omp simd reduction) so the "
      "compiler does",
      fp_op_key(op));
}

}  // namespace

std::string Verdict::summary() const {
  if (!summary_ends_with_limit) return summary_head;
  return summary_head + "; likely limit: " +
         (likely_limit.empty()
              ? std::string("the counts name no cause (branches, synchronization, the front end?)")
              : likely_limit.str());
}

bool Verdict::has(Flag flag) const {
  return std::any_of(flags.begin(), flags.end(),
                     [&](const VerdictFlag& f) { return f.flag == flag; });
}

Verdict classify(const VerdictInput& in, const VerdictThresholds& t) {
  Verdict v;
  const Region& r = *in.region;
  if (in.time_uncertain && in.time_bound == nullptr) {
    // A time of a few samples: no bound, fraction or rate-based flag; what
    // its exact counts say (vectorization, traffic) still holds.
    v.set_summary(
        fmt::format("uncertain: {} cpu-clock sample{} (±{:.0f}%, below {:.0f}): no "
                    "bound claimed; its counts and intensity are exact",
                    in.time_samples, in.time_samples == 1 ? "" : "s", 100 * in.time_relative_error,
                    t.function_min_samples));
    v.flags.push_back({Flag::kTooShort, v.summary(),
                       "run more work, or a shorter --sample-period, for a rate to judge"});
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
      const std::string roof =
          lb ? fmt::format("the {} roof of {} GB/s ({}, {} thread{})", boundary_name(lb->boundary),
                           g(lb->bandwidth_gbs),
                           roof_source(lb->kernel, lb->pages, lb->read_limited, lb->write_share),
                           rr->ceiling_threads, rr->ceiling_threads == 1 ? "" : "s")
             : fmt::format("the {} roof ({} thread{})", rr->roof.label(), rr->ceiling_threads,
                           rr->ceiling_threads == 1 ? "" : "s");
      v.flags.push_back(
          {Flag::kAboveRoof,
           fmt::format("{} GFLOP/s measured is {:.2f}x the bound of {} GFLOP/s set by {}",
                       g(rr->gflops), rr->fraction, g(rr->bound), roof),
           "check before believing it: units, the FLOP convention (FMA = 2), the traffic "
           "counted at each boundary, and whether these ceilings (threads, precision, "
           "width) apply to this region; a roof measured on a busy machine is low: "
           "`rprof machine --full` on a quiet machine measures it with longer repetitions"});
    }
    latency_flag(in, t, v);
  } else if (in.memory != nullptr && in.memory->valid) {
    memory_verdict(*in.memory, t, v);
  } else {
    v.set_summary(rr != nullptr && !rr->why_not.empty()
                      ? "no roofline: " + rr->why_not
                      : "no roofline: no FLOP counts or machine ceilings");
    v.direction = "run with a counting backend (--backend=sim or a hardware backend) "
                  "and calibrated ceilings (rprof machine)";
  }
  if (!waiting) chain_verdict(in, t, v);
  if (!waiting) below_roofs_verdict(in, t, v);
  // Only measured boundaries are judged: one without counts is named as such.
  const std::string unmeasured = unmeasured_boundaries(in);
  if (!waiting && !unmeasured.empty() && (v.bound == Bound::kCompute || v.bound == Bound::kMemory)) {
    v.set_summary(v.summary() +
                  fmt::format("; {} were not measured (traffic counted at L1 only) and may be "
                              "what limits it: count them (the sim backend, or inst with --sample)",
                              unmeasured));
  }
  busy_machine_flag(in, t, v);
  implausible_latency_flag(in, v);
  if (!waiting && in.metrics != nullptr && in.metrics->has_flops) vector_flag(in, t, v);
  if (in.metrics != nullptr) traffic_flag(in, t, v);

  const Spread s = r.thread_spread();
  if (s.count > 1 && s.max_s > 0 && (s.max_s - s.min_s) / s.max_s > t.load_imbalance) {
    v.flags.push_back(
        {Flag::kLoadImbalance,
         fmt::format("thread times range {:.3g}-{:.3g} s over {} threads: the fastest "
                     "waits {} of the slowest's time",
                     s.min_s, s.max_s, s.count, pct((s.max_s - s.min_s) / s.max_s)),
         "balance the work: smaller chunks or dynamic scheduling, or split the largest "
         "items"});
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
    std::string rates;
    if (b.min_gflops) rates += fmt::format(", >= {} GFLOP/s", g(*b.min_gflops));
    if (b.min_dram_gbs) rates += fmt::format(", >= {} GB/s at DRAM", g(*b.min_dram_gbs));
    // Fewer samples than an uncertain time (none): no bound is claimed
    // either; the roofline keeps what the counts say (limited_by).
    if (v.bound != Bound::kWaiting) {
      v.bound = Bound::kUnknown;
      v.boundary.reset();
      v.at_roof = false;
      v.likely_limit = SharedText();
      v.set_summary(
          fmt::format("uncertain: no cpu-clock sample hit it (time < {:.3g} s{}): no "
                      "bound claimed; its counts and intensity are exact",
                      b.max_time_s, rates));
      v.direction = "run more work in it, or a shorter --sample-period, for a rate to judge";
    }
    v.flags.push_back(
        {Flag::kTooShort,
         fmt::format("no cpu-clock sample hit it: its time is below one sampling period per "
                     "thread that can have run it ({:.3g} s x {} thread{}), so < {:.3g} s{} "
                     "(bounds; its counts and intensity are exact)",
                     b.period_s, b.threads, b.threads == 1 ? "" : "s", b.max_time_s, rates),
         "read its counts and intensity; for a measured rate run more work in it"});
  } else if (r.is_function()) {
    // A function region (the function view) has no marker calls: its time is
    // sampled (or estimated), so only its total can be too short to trust.
    if (r.time_s < t.min_total_s) {
      v.flags.push_back(
          {Flag::kTooShort,
           fmt::format("{:.3g} s of self time, below {:.3g} s: a time from a few cpu-clock "
                       "samples (or an estimate) is not trustworthy",
                       r.time_s, t.min_total_s),
           "run more work, or read its counts and intensity, not its rate"});
    }
  } else if (!only_open &&
             (r.time_s < t.min_total_s || per_call < t.too_short_overheads * overhead)) {
    v.flags.push_back(
        {Flag::kTooShort,
         fmt::format("{:.3g} s in {} call{} ({:.3g} s per call) against a marker "
                     "overhead of {:.3g} s per call: timing is not trustworthy",
                     r.time_s, r.calls, r.calls == 1 ? "" : "s", per_call, overhead),
         "measure a larger region: wrap the loop, not its body, or run more work"});
  }
  const bool specific = v.has(Flag::kLatencyBound) || v.has(Flag::kLowVectorization) ||
                        v.has(Flag::kLoadImbalance) || v.has(Flag::kAboveRoof) ||
                        v.has(Flag::kTooShort) || !v.likely_limit.empty() ||
                        !unmeasured.empty();
  const bool judged = !waiting && v.bound != Bound::kDependencyChain &&
                      ((rr != nullptr && rr->valid) || (in.memory != nullptr && in.memory->valid));
  if (judged && v.fraction < t.underutilized && !specific) {
    v.flags.push_back(
        {Flag::kUnderutilized,
         fmt::format("{} of the applicable roof with no more specific cause found",
                     pct(v.fraction)),
         "profile inside the region: dependency chains, branches, synchronization, "
         "problem size"});
  }
  return v;
}

}  // namespace rprof
