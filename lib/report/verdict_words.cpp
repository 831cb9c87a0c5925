#include "report/verdict_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "machine/fp_latency.h"
#include "machine/stream_kernels.h"
#include "roofline/memory_view.h"

namespace rprof {
namespace {

// A whole percent.
std::string pct(double f) { return fmt::format("{:.0f}%", 100 * f); }
// A fraction that can be tiny (a chase's 0.1% of a bandwidth roof): small
// ones keep two digits.
std::string pct_small(double f) {
  return f < 0.01 ? fmt::format("{:.2g}%", 100 * f) : pct(f);
}
// Three significant digits, as every number in a verdict is printed.
std::string sig3(double v) { return fmt::format("{:.3g}", v); }

// A value the verdict found below `threshold`, as `usual` prints it unless
// that would not read below the threshold as printed (0.4995 as "50%" or
// "0.5" beside "below 0.5"): then with one more significant digit at a time
// (up to 6) until it does.
std::string below(double v, double threshold, bool percent, const std::string& usual) {
  const double scale = percent ? 100 : 1;
  const std::string limit = fmt::format("{:.3g}", scale * threshold);
  const auto reads_below = [&](const std::string& s) {
    return std::stod(s) < std::stod(limit);
  };
  std::string s = usual;
  if (percent && !s.empty() && s.back() == '%') s.pop_back();
  if (reads_below(s)) return usual;
  for (int digits = 3; digits <= 6; ++digits) {
    s = fmt::format("{:.{}g}", scale * v, digits);
    if (reads_below(s)) break;
  }
  return percent ? s + "%" : s;
}

template <class N>
const char* plural(N n) {
  return n == 1 ? "" : "s";
}

// Which measurement made a bandwidth roof: the kernel, its pages, and for a
// read-limited roof the mix it was scaled to (MixRoof).
std::string roof_source(const RoofSource& s) {
  const std::string on = s.pages.empty() ? "" : ", " + s.pages + " pages";
  if (!s.read_limited) return fmt::format("{} kernel{}", stream_key(s.kernel), on);
  return fmt::format("{} kernel's read rate{} / (1 - {} written)", stream_key(s.kernel), on,
                     pct(s.write_share));
}

// A rate known from below only (a time bound) cannot say a region is below
// its roof.
constexpr const char* kUnknownFraction =
    "how far below its roof it runs is unknown (its time is only bounded): run more work "
    "in it for a measured rate";

std::string threads_text(int threads, int ceiling_threads) {
  return fmt::format("{} thread{}{}", threads, plural(threads),
                     ceiling_threads == threads ? ""
                                                : fmt::format(", ceiling of {}", ceiling_threads));
}

std::string compute_summary(const Verdict& v, const ComputeEvidence& e) {
  const std::string least = e.lower_bound ? "at least " : "";
  const std::string achieved = fmt::format("{}{} of {} GFLOP/s", e.lower_bound ? ">= " : "",
                                           sig3(e.gflops), sig3(e.bound));
  return fmt::format(
      "compute-bound{}: {}{} of the {} roof ({})",
      e.boundary ? fmt::format(" (intensity {} FLOP/byte at {} >= ridge {})", sig3(e.intensity),
                               boundary_name(*e.boundary), sig3(e.ridge))
                 : "",
      least, e.lower_bound ? pct_small(v.fraction) : pct(v.fraction), e.roof.label(), achieved);
}

std::string memory_summary(const Verdict& v, const MemoryEvidence& e) {
  const std::string least = e.lower_bound ? "at least " : "";
  const std::string achieved = fmt::format("{}{} of {} GFLOP/s", e.lower_bound ? ">= " : "",
                                           sig3(e.gflops), sig3(e.bound));
  return fmt::format(
      "memory-bound at {} (intensity {} FLOP/byte < ridge {}): {}{} of the bandwidth "
      "roof ({}; {} GB/s x {} FLOP/byte; {})",
      boundary_name(e.boundary), sig3(e.intensity), sig3(e.ridge), least,
      e.lower_bound ? pct_small(v.fraction) : pct(v.fraction), achieved, sig3(e.bandwidth_gbs),
      sig3(e.intensity), roof_source(e.source));
}

std::string memory_view_summary(const BandwidthEvidence& e) {
  return fmt::format(
      "memory-bound at {} (no FLOP roofline: bandwidth view): {}{} GB/s of the {} GB/s "
      "bandwidth roof ({}{}, {}; {}; GB = 1e9 bytes)",
      boundary_name(e.boundary), e.lower_bound ? ">= " : "", sig3(e.gbs), sig3(e.roof_gbs),
      e.lower_bound ? "at least " : "", pct_small(e.fraction),
      threads_text(e.threads, e.ceiling_threads), roof_source(e.source));
}

std::string latency_view_summary(const BandwidthEvidence& e) {
  return fmt::format(
      "latency-bound at {}: {:.2g} line misses in flight per thread; {} GB/s is {} of "
      "the {} GB/s {} bandwidth roof ({})",
      boundary_name(e.boundary), e.in_flight, sig3(e.gbs), pct_small(e.fraction), sig3(e.roof_gbs),
      boundary_name(e.boundary), threads_text(e.threads, e.ceiling_threads));
}

std::string chain_summary(const Verdict& v, const ChainVerdictEvidence& e) {
  const ChainEvidence& c = *v.chain;
  const std::string cycles =
      c.latency_cycles > 0 ? fmt::format("{:.3g} cycles, {:.3g} ns", c.latency_cycles, c.latency_ns)
                           : fmt::format("{:.3g} ns", c.latency_ns);
  const double k = c.chains;
  return fmt::format(
      "dependency chain: {:.3g} {} FP instructions per {} latency ({}) per thread, {} of the "
      "rate of {:.0f} dependent {} chain{} ({:.0f} per latency; or fewer chains with other FP "
      "instructions beside each step); {} of the nearest roof",
      c.per_latency, precision_name(c.precision), fp_op_key(c.op), cycles, pct(v.fraction), k,
      fp_op_key(c.op), k == 1 ? "" : "s", k, pct(e.roof_share));
}

std::string waiting_summary(const WaitingEvidence& e) {
  if (e.has_run_delay) {
    return fmt::format(
        "waiting: its threads were off the CPU by their own choice for {} of their time "
        "({:.3g} s of {:.3g} s wall, {} thread{}): on a CPU {} ({:.3g} s), runnable but not "
        "running {} ({:.3g} s run delay); runnable {} of the time, below {}: sleep, I/O, "
        "locks or blocking communication set its time, not a roof",
        pct_small(1 - e.runnable), e.wall_s - e.cpu_s - e.run_delay_s, e.wall_s, e.threads,
        plural(e.threads), pct_small(e.cpu_share), e.cpu_s, pct_small(e.run_delay_share),
        e.run_delay_s, below(e.runnable, e.max_cpu_share, false, sig3(e.runnable)),
        sig3(e.max_cpu_share));
  }
  return fmt::format(
      "waiting: its threads were on a CPU for {} of their time (CPU/wall {} = {:.3g} s "
      "CPU / {:.3g} s wall, {} thread{}; below {}): sleep, I/O, locks, blocking "
      "communication or more runnable threads than free CPUs (no run delay was measured "
      "to tell them apart) set its time, not a roof",
      below(e.cpu_share, e.max_cpu_share, true, pct_small(e.cpu_share)),
      below(e.cpu_share, e.max_cpu_share, false, sig3(e.cpu_share)), e.cpu_s, e.wall_s, e.threads,
      plural(e.threads), sig3(e.max_cpu_share));
}

std::string below_roofs_head(const BelowRoofsEvidence& e) {
  if (!e.bandwidth_view) {
    return fmt::format(
        "below every roof: {} GFLOP/s is {} of the lowest bound {} GFLOP/s ({}{}), under {} "
        "at every boundary",
        sig3(e.gflops), pct_small(e.fraction), sig3(e.bound),
        e.compute_limited ? "the " + e.roof.label() + " roof" : "bandwidth x intensity",
        e.boundary ? fmt::format("; intensity {} FLOP/byte at {}, ridge {}", sig3(e.intensity),
                                 boundary_name(*e.boundary), sig3(e.ridge))
                   : "",
        pct_small(e.threshold));
  }
  return fmt::format(
      "below every roof (no FLOP roofline: bandwidth view): at most {} of a bandwidth roof "
      "({} GB/s of {} GB/s at {}), under {}",
      pct_small(e.fraction), sig3(e.gbs), sig3(e.roof_gbs), boundary_name(*e.boundary),
      pct_small(e.threshold));
}

// The uncertain times' rates from below: ", >= 1 GFLOP/s, >= 2 GB/s at DRAM".
std::string lower_rates(const std::optional<double>& gflops, const std::optional<double>& gbs) {
  std::string rates;
  if (gflops) rates += fmt::format(", >= {} GFLOP/s", sig3(*gflops));
  if (gbs) rates += fmt::format(", >= {} GB/s at DRAM", sig3(*gbs));
  return rates;
}

std::string uncertain_samples_summary(const UncertainEvidence& e) {
  return fmt::format(
      "uncertain: {} cpu-clock sample{} (±{:.0f}%, below {:.0f}): no "
      "bound claimed; its counts and intensity are exact",
      e.samples, plural(e.samples), 100 * e.relative_error, e.min_samples);
}

std::string latency_flag_reason(const LatencyFlagEvidence& e, bool small) {
  return fmt::format(
      "{} of the {} bandwidth roof with {:.2g} line misses in flight per "
      "thread (Little's law: {:.3g} misses x {:.3g} ns / {:.3g} s / {} "
      "thread{}; between {:.2g}, misses that explain the time, and {:.2g}): "
      "waiting on one miss at a time",
      small ? pct_small(e.fraction) : pct(e.fraction), boundary_name(e.boundary), e.in_flight,
      e.line_misses, e.latency_ns, e.time_s, e.threads, plural(e.threads), e.min_explained,
      e.max_in_flight);
}

}  // namespace

std::string likely_limit_text(const LikelyLimit& l) {
  switch (l.kind) {
    case LimitKind::kNone:
      return "";
    case LimitKind::kLatency:
      return fmt::format(
          "lines in flight / latency: {:.2g} line misses in flight per thread at {} (Little's "
          "law: {:.3g} misses x {:.3g} ns explain {} of the time; at most {:.2g} in flight)",
          l.in_flight, boundary_name(l.boundary), l.line_misses, l.latency_ns,
          pct_small(l.in_flight), l.max_in_flight);
    case LimitKind::kIrregularNoFlops: {
      std::string little;
      if (l.little == LikelyLimit::Little::kUnder) {
        little = fmt::format(
            "; by Little's law {:.2g} line misses in flight per thread at {} ({:.3g} misses x "
            "{:.3g} ns), under the {} a latency-bound verdict needs: each miss cost more than "
            "the machine's measured {:.3g} ns (page walks, a busier or another host), or other "
            "work separates them",
            l.in_flight, boundary_name(l.boundary), l.line_misses, l.latency_ns,
            sig3(l.min_explained), l.latency_ns);
      } else if (l.little == LikelyLimit::Little::kAbove) {
        little = fmt::format(
            "; by Little's law {:.2g} line misses in flight per thread at {} ({:.3g} misses x "
            "{:.3g} ns), above the {} of one dependent chain: they overlap, yet use under {} "
            "of the bandwidth",
            l.in_flight, boundary_name(l.boundary), l.line_misses, l.latency_ns,
            sig3(l.max_in_flight), pct_small(l.bandwidth_fraction));
      }
      return fmt::format(
          "latency/irregular access: no FLOPs, and {} of the bytes loaded at L1 cross L2 (>= "
          "{}): loads missing the caches set its time{}",
          pct_small(l.miss_share), pct_small(l.irregular_miss_share), little);
    }
    case LimitKind::kNonFp:
      return "not memory and not floating point: no FLOPs and far below every bandwidth "
             "roof, so integer, branch or other non-FP work sets its time (no roof measures "
             "it)";
    case LimitKind::kIrregular:
      return fmt::format(
          "latency/irregular access: {} bytes at L1 per FLOP (>= {}) and {} of them cross L2 "
          "(>= {}): loads, most of them missing L1, not arithmetic, set its time",
          sig3(l.l1_bytes_per_flop), sig3(l.irregular_l1_bytes_per_flop), pct_small(l.miss_share),
          pct_small(l.irregular_miss_share));
    case LimitKind::kDependencyChains:
      return fmt::format(
          "dependency chains: scalar FP ({} of FP instructions packed, < {}) at an intensity "
          "above every ridge, {} bytes at L1 per FLOP: each operation waits for the one "
          "before it{}",
          pct_small(l.vector_share), pct_small(l.low_vector_share), sig3(l.l1_bytes_per_flop),
          l.below_l1_counted
              ? ""
              : "; no traffic below L1 was counted, so loads missing the caches (irregular "
                "access) cannot be told apart from this: the sim backend counts it");
    case LimitKind::kLowVectorization:
      return fmt::format("low vectorization: {} of FP instructions packed (< {})",
                         pct_small(l.vector_share), pct_small(l.low_vector_share));
  }
  return "";
}

std::string verdict_summary(const Verdict& v) {
  std::string s;
  switch (v.kind) {
    case VerdictKind::kNone:
      break;
    case VerdictKind::kCompute:
      s = compute_summary(v, v.as<ComputeEvidence>());
      break;
    case VerdictKind::kMemory:
      s = memory_summary(v, v.as<MemoryEvidence>());
      break;
    case VerdictKind::kMemoryView:
      s = memory_view_summary(v.as<BandwidthEvidence>());
      break;
    case VerdictKind::kLatencyView:
      s = latency_view_summary(v.as<BandwidthEvidence>());
      break;
    case VerdictKind::kDependencyChain:
      s = chain_summary(v, v.as<ChainVerdictEvidence>());
      break;
    case VerdictKind::kWaiting:
      s = waiting_summary(v.as<WaitingEvidence>());
      break;
    case VerdictKind::kBelowRoofs: {
      const std::string limit = likely_limit_text(v.likely_limit);
      s = below_roofs_head(v.as<BelowRoofsEvidence>()) + "; likely limit: " +
          (limit.empty()
               ? std::string("the counts name no cause (branches, synchronization, the front end?)")
               : limit);
      break;
    }
    case VerdictKind::kUncertainSamples:
      s = uncertain_samples_summary(v.as<UncertainEvidence>());
      break;
    case VerdictKind::kUncertainNoSample: {
      const UncertainEvidence& e = v.as<UncertainEvidence>();
      s = fmt::format(
          "uncertain: no cpu-clock sample hit it (time < {:.3g} s{}): no "
          "bound claimed; its counts and intensity are exact",
          e.max_time_s, lower_rates(e.min_gflops, e.min_dram_gbs));
      break;
    }
    case VerdictKind::kNoRoofline: {
      const NoRooflineEvidence& e = v.as<NoRooflineEvidence>();
      s = !e.why_not.empty() ? "no roofline: " + e.why_not
                             : "no roofline: no FLOP counts or machine ceilings";
      break;
    }
  }
  if (v.unmeasured_below_l1) {
    s += fmt::format(
        "; {} were not measured (traffic counted at L1 only) and may be "
        "what limits it: count them (the sim backend, or inst with --sample)",
        "L2, LLC and DRAM");
  }
  return s;
}

std::string verdict_headline(const Verdict& v) {
  // The fraction of the bound is the summary's own column: not repeated here.
  std::string s;
  switch (v.kind) {
    case VerdictKind::kNone:
      break;
    case VerdictKind::kCompute:
      s = fmt::format("compute-bound ({} roof)", v.as<ComputeEvidence>().roof.label());
      break;
    case VerdictKind::kMemory:
      s = fmt::format("memory-bound at {}", boundary_name(v.as<MemoryEvidence>().boundary));
      break;
    case VerdictKind::kMemoryView: {
      const BandwidthEvidence& e = v.as<BandwidthEvidence>();
      s = fmt::format("memory-bound at {} ({}{} of its bandwidth roof)", boundary_name(e.boundary),
                      e.lower_bound ? ">= " : "", pct_small(e.fraction));
      break;
    }
    case VerdictKind::kLatencyView: {
      const BandwidthEvidence& e = v.as<BandwidthEvidence>();
      s = fmt::format("latency-bound at {} ({:.2g} lines in flight per thread)",
                      boundary_name(e.boundary), e.in_flight);
      break;
    }
    case VerdictKind::kDependencyChain: {
      const ChainEvidence& c = *v.chain;
      s = fmt::format("dependency chain ({} of {} {} {} {} rate)", pct(v.fraction), c.chains,
                      precision_name(c.precision), fp_op_key(c.op),
                      c.chains == 1 ? "chain's" : "chains'");
      break;
    }
    case VerdictKind::kWaiting:
      s = fmt::format("waiting ({} of its time on a CPU)",
                      pct_small(v.as<WaitingEvidence>().cpu_share));
      break;
    case VerdictKind::kBelowRoofs: {
      const LikelyLimit& l = v.likely_limit;
      s = "below every roof";
      switch (l.kind) {
        case LimitKind::kNone:
          break;
        case LimitKind::kLatency:
          s += fmt::format("; likely latency at {}", boundary_name(l.boundary));
          break;
        case LimitKind::kIrregularNoFlops:
        case LimitKind::kIrregular:
          s += "; likely irregular access";
          break;
        case LimitKind::kNonFp:
          s += "; likely non-FP work";
          break;
        case LimitKind::kDependencyChains:
          s += "; likely dependency chains";
          break;
        case LimitKind::kLowVectorization:
          s += "; likely scalar code";
          break;
      }
      break;
    }
    case VerdictKind::kUncertainSamples: {
      const UncertainEvidence& e = v.as<UncertainEvidence>();
      s = fmt::format("uncertain ({} cpu-clock sample{})", e.samples, plural(e.samples));
      break;
    }
    case VerdictKind::kUncertainNoSample:
      s = "uncertain (no cpu-clock sample)";
      break;
    case VerdictKind::kNoRoofline:
      s = "no roofline";
      break;
  }
  if (v.unmeasured_below_l1 && !s.empty()) s += " (L1 only)";
  if (!v.flags.empty()) {
    std::vector<std::string> names;
    for (const VerdictFlag& f : v.flags) {
      if (std::find(names.begin(), names.end(), f.name()) == names.end()) names.emplace_back(f.name());
    }
    s += fmt::format("{}[{}]", s.empty() ? "" : " ", fmt::join(names, ", "));
  }
  return s;
}

std::string verdict_direction(const Verdict& v) {
  switch (v.kind) {
    case VerdictKind::kNone:
    case VerdictKind::kUncertainSamples:
      return "";
    case VerdictKind::kCompute: {
      if (v.as<ComputeEvidence>().lower_bound && !v.at_roof) return kUnknownFraction;
      return v.at_roof ? "at the compute roof: only a higher roof helps: wider vectors, FMA, "
                         "a better instruction mix, or fewer operations for the same result"
                       : "below the compute roof: look at dependency chains, vector "
                         "utilization, instruction mix and load balance";
    }
    case VerdictKind::kMemory: {
      const MemoryEvidence& e = v.as<MemoryEvidence>();
      if (e.lower_bound && !v.at_roof) {
        return std::string(kUnknownFraction) + "; its intensity says bytes across " +
               boundary_name(e.boundary) + " limit it";
      }
      return fmt::format(
          "{}move fewer bytes across {}: fuse loops over the same data, block for the "
          "cache, use smaller types; more FLOP/s alone will not help",
          v.at_roof ? "at the bandwidth roof: " : "", boundary_name(e.boundary));
    }
    case VerdictKind::kMemoryView: {
      const BandwidthEvidence& e = v.as<BandwidthEvidence>();
      if (e.lower_bound && !v.at_roof) return kUnknownFraction;
      return v.at_roof ? fmt::format("at the {} bandwidth roof: move fewer bytes across it: "
                                     "blocking for the cache, smaller types, a layout that "
                                     "uses every byte of each line",
                                     boundary_name(e.boundary))
                       : fmt::format("below the {} bandwidth roof: keep more bytes in flight "
                                     "(prefetch, independent streams, more threads) or move "
                                     "fewer (blocking, layout)",
                                     boundary_name(e.boundary));
    }
    case VerdictKind::kLatencyView:
      return "bandwidth is not the limit, the wait for each miss is: interleave independent "
             "chains, prefetch ahead, or a layout with sequential access (arrays, not linked "
             "nodes)";
    case VerdictKind::kDependencyChain:
      return fmt::format(
          "the latency of dependent {}s sets the pace, not memory or the FP units: split the "
          "accumulator into 4-8 independent partial sums (unroll the reduction), or allow "
          "reassociation (-ffast-math or -fassociative-math, #pragma omp simd reduction) so the "
          "compiler does",
          fp_op_key(v.chain->op));
    case VerdictKind::kWaiting:
      return "shorten or overlap the wait (asynchronous I/O, shorter critical sections, "
             "non-blocking communication, less sleeping); its rates say nothing about the roofs";
    case VerdictKind::kBelowRoofs:
      return "no roof limits it: work on the likely limit (independent chains and unrolling for "
             "dependency chains, prefetch or a sequential layout for latency and irregular "
             "access, vectorization) before moving bytes or adding FLOP/s";
    case VerdictKind::kUncertainNoSample:
      return "run more work in it, or a shorter --sample-period, for a rate to judge";
    case VerdictKind::kNoRoofline:
      return "run with a counting backend (--backend=sim or a hardware backend) "
             "and calibrated ceilings (rprof machine)";
  }
  return "";
}

std::string flag_reason(const VerdictFlag& f) {
  switch (f.kind) {
    case FlagKind::kLatencyBound:
      return latency_flag_reason(f.as<LatencyFlagEvidence>(), false);
    case FlagKind::kLatencyBoundView:
      return latency_flag_reason(f.as<LatencyFlagEvidence>(), true);
    case FlagKind::kLowVectorShare: {
      const VectorFlagEvidence& e = f.as<VectorFlagEvidence>();
      return fmt::format("{} of FP instructions are packed (vector), below {}", pct(e.share),
                         pct(e.threshold));
    }
    case FlagKind::kLowVectorWidth: {
      const VectorFlagEvidence& e = f.as<VectorFlagEvidence>();
      return fmt::format("widest FP instructions are {}-bit; this CPU offers {}-bit",
                         e.widest == Width::kScalar ? "64" : width_name(e.widest),
                         width_name(e.offered));
    }
    case FlagKind::kTrafficWriteAllocate:
    case FlagKind::kTrafficPoorReuse: {
      const TrafficFlagEvidence& e = f.as<TrafficFlagEvidence>();
      return fmt::format("{:.3g} bytes measured at {} vs {:.3g} declared: {:.2f}x the ideal{}",
                         e.measured_bytes, boundary_name(e.boundary), e.declared_bytes, e.ratio,
                         e.approximate ? " (approximate traffic)" : "");
    }
    case FlagKind::kAboveBandwidthRoof:
    case FlagKind::kAboveComputeRoof: {
      const AboveRoofEvidence& e = f.as<AboveRoofEvidence>();
      const std::string roof =
          f.kind == FlagKind::kAboveBandwidthRoof
              ? fmt::format("the {} roof of {} GB/s ({}, {} thread{})", boundary_name(e.boundary),
                            sig3(e.bandwidth_gbs), roof_source(e.source), e.ceiling_threads,
                            plural(e.ceiling_threads))
              : fmt::format("the {} roof ({} thread{})", e.roof.label(), e.ceiling_threads,
                            plural(e.ceiling_threads));
      return fmt::format("{} GFLOP/s measured is {:.2f}x the bound of {} GFLOP/s set by {}",
                         sig3(e.gflops), e.ratio, sig3(e.bound), roof);
    }
    case FlagKind::kTooShortSamples:
      return uncertain_samples_summary(f.as<UncertainEvidence>());
    case FlagKind::kTooShortNoSample: {
      const NoSampleFlagEvidence& e = f.as<NoSampleFlagEvidence>();
      return fmt::format(
          "no cpu-clock sample hit it: its time is below one sampling period per "
          "thread that can have run it ({:.3g} s x {} thread{}), so < {:.3g} s{} "
          "(bounds; its counts and intensity are exact)",
          e.period_s, e.threads, plural(e.threads), e.max_time_s,
          lower_rates(e.min_gflops, e.min_dram_gbs));
    }
    case FlagKind::kTooShortSelfTime: {
      const ShortFlagEvidence& e = f.as<ShortFlagEvidence>();
      return fmt::format(
          "{:.3g} s of self time, below {:.3g} s: a time from a few cpu-clock "
          "samples (or an estimate) is not trustworthy",
          e.time_s, e.min_total_s);
    }
    case FlagKind::kTooShortMarkers: {
      const ShortFlagEvidence& e = f.as<ShortFlagEvidence>();
      return fmt::format(
          "{:.3g} s in {} call{} ({:.3g} s per call) against a marker "
          "overhead of {:.3g} s per call: timing is not trustworthy",
          e.time_s, e.calls, plural(e.calls), e.per_call_s, e.overhead_s);
    }
    case FlagKind::kLoadImbalance: {
      const ImbalanceEvidence& e = f.as<ImbalanceEvidence>();
      return fmt::format(
          "thread times range {:.3g}-{:.3g} s over {} threads: the fastest "
          "waits {} of the slowest's time",
          e.min_s, e.max_s, e.threads, pct(e.waits));
    }
    case FlagKind::kRankImbalance: {
      const ImbalanceEvidence& e = f.as<ImbalanceEvidence>();
      if (e.threads == e.processes) {
        return fmt::format(
            "rank times range {:.3g}-{:.3g} s over {} ranks (processes, one thread each): the "
            "fastest waits {} of the slowest's time",
            e.min_s, e.max_s, e.processes, pct(e.waits));
      }
      return fmt::format(
          "thread times range {:.3g}-{:.3g} s over {} threads of {} ranks (processes): the "
          "fastest waits {} of the slowest's time",
          e.min_s, e.max_s, e.threads, e.processes, pct(e.waits));
    }
    case FlagKind::kOwnCache: {
      const OwnCacheEvidence& e = f.as<OwnCacheEvidence>();
      return fmt::format(
          "{} processes ran it on one host, each simulated with caches of its own, the LLC "
          "included, where on the machine they share one",
          e.processes);
    }
    case FlagKind::kUnderutilized:
      return fmt::format("{} of the applicable roof with no more specific cause found",
                         pct(f.as<UnderutilizedEvidence>().fraction));
    case FlagKind::kBusyMachine: {
      const BusyEvidence& e = f.as<BusyEvidence>();
      return fmt::format(
          "the machine was busy: {} of the time runnable, not running ({:.3g} s run "
          "delay of {:.3g} s wall, {} thread{}; at or above {}): its rates are read "
          "against its running time, {:.3g} s of its {:.3g} s (the slowest thread's "
          "wall minus run delay)",
          pct_small(e.share), e.run_delay_s, e.wall_s, e.threads, plural(e.threads),
          pct_small(e.threshold), e.running_s, e.time_s);
    }
    case FlagKind::kImplausibleLatency: {
      const LatencyFlagEvidence& e = f.as<LatencyFlagEvidence>();
      return fmt::format(
          "{:.3g} line misses in flight per thread at {} by Little's law ({:.3g} "
          "misses x {:.3g} ns / {:.3g} s / {} thread{}) is above the {:.0f} one "
          "core tracks: the latency behind {} in the machine file is too high "
          "(measured outside that level?), so no latency conclusion is drawn",
          e.in_flight, boundary_name(e.boundary), e.line_misses, e.latency_ns, e.time_s,
          e.threads, plural(e.threads), e.max_in_flight, boundary_name(e.boundary));
    }
  }
  return "";
}

std::string flag_direction(const VerdictFlag& f) {
  switch (f.kind) {
    case FlagKind::kLatencyBound:
      return "bandwidth is not the limit: get more independent misses in flight (prefetch, "
             "interleave independent chains, a layout with sequential access)";
    case FlagKind::kLatencyBoundView:
      return "get more independent misses in flight: interleave independent chains, prefetch, "
             "a layout with sequential access";
    case FlagKind::kLowVectorShare:
    case FlagKind::kLowVectorWidth:
      return "vectorize the hot loop (restrict, aligned contiguous access, "
             "-O3 -march=..., no -fno-tree-vectorize) to reach the vector roof";
    case FlagKind::kTrafficWriteAllocate:
      return "likely write-allocate: each stored line is read before it is written; "
             "use non-temporal (streaming) stores or write whole lines";
    case FlagKind::kTrafficPoorReuse:
      return "likely poor reuse: data is fetched more than once; block or fuse so "
             "each operand crosses once";
    case FlagKind::kAboveBandwidthRoof:
    case FlagKind::kAboveComputeRoof:
      return "check before believing it: units, the FLOP convention (FMA = 2), the traffic "
             "counted at each boundary, and whether these ceilings (threads, precision, "
             "width) apply to this region; a roof measured on a busy machine is low: "
             "`rprof machine --full` on a quiet machine measures it with longer repetitions";
    case FlagKind::kTooShortSamples:
      return "run more work, or a shorter --sample-period, for a rate to judge";
    case FlagKind::kTooShortNoSample:
      return "read its counts and intensity; for a measured rate run more work in it";
    case FlagKind::kTooShortSelfTime:
      return "run more work, or read its counts and intensity, not its rate";
    case FlagKind::kTooShortMarkers:
      return "measure a larger region: wrap the loop, not its body, or run more work";
    case FlagKind::kLoadImbalance:
      return "balance the work: smaller chunks or dynamic scheduling, or split the largest "
             "items";
    case FlagKind::kRankImbalance:
      return "balance the work between the ranks: the domain decomposition (equal work per "
             "rank, not equal cells), or fewer ranks per node; within a rank's threads, smaller "
             "chunks or dynamic scheduling";
    case FlagKind::kOwnCache:
      return "read its LLC and DRAM figures as one process's with the LLC to itself (DRAM "
             "traffic a lower bound where the processes' working sets together exceed the "
             "LLC); for the shared LLC's effect, count with hardware counters or run the same "
             "work in one process";
    case FlagKind::kUnderutilized:
      return "profile inside the region: dependency chains, branches, synchronization, "
             "problem size";
    case FlagKind::kBusyMachine:
      return "other work shared its CPUs: run on an idle machine, or with no more threads than "
             "free cores (taskset or the batch system's exclusive node), before reading its time";
    case FlagKind::kImplausibleLatency:
      return "recalibrate (rprof machine) and check its latency ladder note (L1 < L2 < LLC < "
             "DRAM)";
  }
  return "";
}

}  // namespace rprof
