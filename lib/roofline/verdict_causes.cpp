#include "roofline/verdict_causes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rprof {
namespace {

std::string pct(double f) {
  return f < 0.01 ? fmt::format("{:.2g}%", 100 * f) : fmt::format("{:.0f}%", 100 * f);
}
std::string g(double v) { return fmt::format("{:.3g}", v); }
const char* plural(int n) { return n == 1 ? "" : "s"; }

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
// numbers that name it; "" when the counts name none.
std::string likely_limit(const VerdictInput& in, const VerdictThresholds& t) {
  const Metrics& m = *in.metrics;
  if (const BoundaryBandwidth* b = latency_limit(in, t)) {
    return fmt::format(
        "lines in flight / latency: {:.2g} line misses in flight per thread at {} (Little's "
        "law: {:.3g} misses x {:.3g} ns explain {} of the time; at most {:.2g} in flight)",
        *b->in_flight, boundary_name(b->boundary), b->line_misses, *b->latency_ns,
        pct(*b->in_flight), t.latency_max_in_flight);
  }
  const double flops = m.has_flops ? m.flops_total() : 0;
  const Traffic& l1 = m.at(Boundary::kL1);
  const Traffic& l2 = m.at(Boundary::kL2);
  const double miss_share = l1.measured && l2.measured && l1.bytes() > 0
                                ? l2.bytes() / l1.bytes()
                                : 0;
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
      std::string little;
      if (deepest != nullptr && *deepest->in_flight < t.latency_min_explained) {
        little = fmt::format(
            "; by Little's law {:.2g} line misses in flight per thread at {} ({:.3g} misses x "
            "{:.3g} ns), under the {} a latency-bound verdict needs: each miss cost more than "
            "the machine's measured {:.3g} ns (page walks, a busier or another host), or other "
            "work separates them",
            *deepest->in_flight, boundary_name(deepest->boundary), deepest->line_misses,
            *deepest->latency_ns, g(t.latency_min_explained), *deepest->latency_ns);
      } else if (deepest != nullptr) {
        little = fmt::format(
            "; by Little's law {:.2g} line misses in flight per thread at {} ({:.3g} misses x "
            "{:.3g} ns), above the {} of one dependent chain: they overlap, yet use under {} "
            "of the bandwidth",
            *deepest->in_flight, boundary_name(deepest->boundary), deepest->line_misses,
            *deepest->latency_ns, g(t.latency_max_in_flight), pct(deepest->fraction));
      }
      return fmt::format(
          "latency/irregular access: no FLOPs, and {} of the bytes loaded at L1 cross L2 (>= "
          "{}): loads missing the caches set its time{}",
          pct(miss_share), pct(t.irregular_miss_share), little);
    }
    return "not memory and not floating point: no FLOPs and far below every bandwidth "
           "roof, so integer, branch or other non-FP work sets its time (no roof measures "
           "it)";
  }
  const double l1_per_flop = l1.measured ? l1.bytes() / flops : 0;
  if (l1_per_flop >= t.irregular_l1_bytes_per_flop && miss_share >= t.irregular_miss_share) {
    return fmt::format(
        "latency/irregular access: {} bytes at L1 per FLOP (>= {}) and {} of them cross L2 "
        "(>= {}): loads, most of them missing L1, not arithmetic, set its time",
        g(l1_per_flop), g(t.irregular_l1_bytes_per_flop), pct(miss_share),
        pct(t.irregular_miss_share));
  }
  const std::optional<double> share = m.vector_share();
  // Compared as printed (whole percent).
  const bool scalar = share && std::round(100 * *share) < std::round(100 * t.low_vector_share);
  const RegionRoofline* rr = in.roofline != nullptr && in.roofline->valid ? in.roofline : nullptr;
  if (scalar && rr != nullptr && rr->compute_limited) {
    return fmt::format(
        "dependency chains: scalar FP ({} of FP instructions packed, < {}) at an intensity "
        "above every ridge, {} bytes at L1 per FLOP: each operation waits for the one "
        "before it{}",
        pct(*share), pct(t.low_vector_share), g(l1_per_flop),
        l2.measured && l1.measured
            ? ""
            : "; no traffic below L1 was counted, so loads missing the caches (irregular "
              "access) cannot be told apart from this: the sim backend counts it");
  }
  if (scalar) {
    return fmt::format("low vectorization: {} of FP instructions packed (< {})", pct(*share),
                       pct(t.low_vector_share));
  }
  return "";
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
  if (delay) {
    v.set_summary(fmt::format(
        "waiting: its threads were off the CPU by their own choice for {} of their time "
        "({:.3g} s of {:.3g} s wall, {} thread{}): on a CPU {} ({:.3g} s), runnable but not "
        "running {} ({:.3g} s run delay); runnable {:.3g} of the time, below {}: sleep, I/O, "
        "locks or blocking communication set its time, not a roof",
        pct(1 - runnable), wall - *in.metrics->cpu_time_s - *in.metrics->run_delay_s, wall, threads,
        plural(threads), pct(*share), *in.metrics->cpu_time_s, pct(*delay),
        *in.metrics->run_delay_s, runnable, g(t.waiting_max_cpu_share)));
  } else {
    v.set_summary(fmt::format(
        "waiting: its threads were on a CPU for {} of their time (CPU/wall {:.3g} = {:.3g} s "
        "CPU / {:.3g} s wall, {} thread{}; below {}): sleep, I/O, locks, blocking "
        "communication or more runnable threads than free CPUs (no run delay was measured "
        "to tell them apart) set its time, not a roof",
        pct(*share), *share, *in.metrics->cpu_time_s, wall, threads, plural(threads),
        g(t.waiting_max_cpu_share)));
  }
  v.direction =
      "shorten or overlap the wait (asynchronous I/O, shorter critical sections, "
      "non-blocking communication, less sleeping); its rates say nothing about the roofs";
  return true;
}

std::string unmeasured_boundaries(const VerdictInput& in) {
  if (in.metrics == nullptr || !in.metrics->any_traffic()) return "";
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    if (in.metrics->at(b).measured) return "";
  }
  return "L2, LLC and DRAM";
}

void busy_machine_flag(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (in.metrics == nullptr || in.region == nullptr) return;
  const Region& r = *in.region;
  if (!busy_machine(r, in.metrics->run_delay_s, t)) return;
  const double share = *run_delay_share(r, in.metrics->run_delay_s);
  const int threads = static_cast<int>(std::max<size_t>(1, r.threads.size()));
  v.flags.push_back(
      {Flag::kBusyMachine,
       fmt::format("the machine was busy: {} of the time runnable, not running ({:.3g} s run "
                   "delay of {:.3g} s wall, {} thread{}; at or above {}): its rates are read "
                   "against its running time, {:.3g} s of its {:.3g} s (the slowest thread's "
                   "wall minus run delay)",
                   pct(share), *in.metrics->run_delay_s, summed_wall_s(r), threads, plural(threads),
                   pct(t.busy_min_run_delay_share), running_time_s(r), r.time_s),
       "other work shared its CPUs: run on an idle machine, or with no more threads than "
       "free cores (taskset or the batch system's exclusive node), before reading its time"});
}

void below_roofs_verdict(const VerdictInput& in, const VerdictThresholds& t, Verdict& v) {
  if (v.bound != Bound::kCompute && v.bound != Bound::kMemory) return;
  // Memory-limited at L1 with nothing counted below it (the inst backend
  // with --sample=off): L2, LLC or DRAM may be what limits, so "below every
  // roof" would claim what was not measured; the verdict stays at the roof
  // that was. A compute-limited region keeps the rule, its likely limit
  // saying what L1 counts cannot tell.
  if (v.bound == Bound::kMemory && !unmeasured_boundaries(in).empty()) return;
  const double threshold = v.bound == Bound::kCompute ? t.below_roofs : t.below_bandwidth_roofs;
  if (!(v.fraction < threshold) || v.has(Flag::kLatencyBound)) return;
  const RegionRoofline* rr = in.roofline != nullptr && in.roofline->valid ? in.roofline : nullptr;
  const MemoryView* mv = in.memory != nullptr && in.memory->valid ? in.memory : nullptr;
  if ((rr != nullptr && rr->lower_bound) || (rr == nullptr && (mv == nullptr || mv->lower_bound))) {
    return;  // a rate known from below cannot be far below a roof
  }
  v.likely_limit = likely_limit(in, t);
  // The summary ends "; likely limit: " and the likely limit (Verdict::summary()).
  if (rr != nullptr) {
    const BoundaryRoof* b = rr->limiting ? rr->at(*rr->limiting) : nullptr;
    v.set_summary_ending_with_limit(fmt::format(
        "below every roof: {} GFLOP/s is {} of the lowest bound {} GFLOP/s ({}{}), under {} "
        "at every boundary",
        g(rr->gflops), pct(rr->fraction), g(rr->bound),
        rr->compute_limited ? "the " + rr->roof.label() + " roof" : "bandwidth x intensity",
        b ? fmt::format("; intensity {} FLOP/byte at {}, ridge {}", g(b->intensity),
                        boundary_name(b->boundary), g(b->ridge))
          : "",
        pct(threshold)));
  } else {
    const BoundaryBandwidth& b = *mv->at(*mv->limiting);
    v.set_summary_ending_with_limit(fmt::format(
        "below every roof (no FLOP roofline: bandwidth view): at most {} of a bandwidth roof "
        "({} GB/s of {} GB/s at {}), under {}",
        pct(mv->fraction), g(b.gbs), g(b.roof_gbs), boundary_name(b.boundary), pct(threshold)));
  }
  v.bound = Bound::kBelowRoofs;
  v.boundary.reset();
  v.at_roof = false;
  v.direction =
      "no roof limits it: work on the likely limit (independent chains and unrolling for "
      "dependency chains, prefetch or a sequential layout for latency and irregular access, "
      "vectorization) before moving bytes or adding FLOP/s";
}

void implausible_latency_flag(const VerdictInput& in, Verdict& v) {
  if (in.memory == nullptr || !in.memory->valid) return;
  const MemoryView& mv = *in.memory;
  for (const BoundaryBandwidth& b : mv.boundaries) {
    if (!b.in_flight_implausible) continue;
    v.flags.push_back(
        {Flag::kImplausibleLatency,
         fmt::format("{:.3g} line misses in flight per thread at {} by Little's law ({:.3g} "
                     "misses x {:.3g} ns / {:.3g} s / {} thread{}) is above the {:.0f} one "
                     "core tracks: the latency behind {} in the machine file is too high "
                     "(measured outside that level?), so no latency conclusion is drawn",
                     *b.in_flight, boundary_name(b.boundary), b.line_misses, *b.latency_ns,
                     mv.time_s, mv.threads, plural(mv.threads), kMaxLinesInFlightPerCore,
                     boundary_name(b.boundary)),
         "recalibrate (rprof machine) and check its latency ladder note (L1 < L2 < LLC < "
         "DRAM)"});
  }
}

}  // namespace rprof
