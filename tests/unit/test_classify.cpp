// Verdict logic on synthetic inputs, at and around every threshold.
#include <catch2/catch.hpp>

#include "roofline/classify.h"
#include "roofline/verdict_causes.h"

using namespace rprof;

namespace {

// A machine with a DRAM latency of 100 ns and an AVX-512 CPU.
Machine machine() {
  Machine m;
  m.cpu.avx512f = true;
  m.caches.push_back(CacheInfo{1, 32768, 32768, 8, 64, 1});
  CeilingSet s;
  s.threads = 1;
  s.latency.push_back(LatencyCeiling{"DRAM", 100.0, 0, {}});
  s.latency.push_back(LatencyCeiling{"L2", 4.0, 0, {}});
  m.ceilings.push_back(s);
  return m;
}

// A region of 1 s over `calls` calls on one thread (or given thread times).
Region region(uint64_t calls = 10, std::vector<double> thread_times = {1.0}) {
  Region r;
  r.name = std::string(1, 'r');  // (a literal trips GCC 12's -Wrestrict false positive)
  r.path = {r.name};
  r.calls = calls;
  r.time_s = *std::max_element(thread_times.begin(), thread_times.end());
  for (double t : thread_times) {
    ThreadRow row;
    row.time_s = t;
    r.threads.push_back(row);
  }
  return r;
}

// Memory-bound at DRAM at `fraction` of the roof (bound 10 GFLOP/s).
RegionRoofline memory_bound(double fraction) {
  RegionRoofline rr;
  rr.valid = true;
  rr.threads = 1;
  rr.time_s = 1;
  rr.bound = 10;
  rr.gflops = 10 * fraction;
  rr.fraction = fraction;
  rr.roof = {Precision::kDP, Width::k256, FlopMix::kFma, 100};
  rr.limiting = Boundary::kDRAM;
  rr.compute_limited = false;
  BoundaryRoof b;
  b.boundary = Boundary::kDRAM;
  b.intensity = 0.5;
  b.bandwidth_gbs = 20;
  b.bound = 10;
  b.ridge = 5;
  b.memory_limited = true;
  rr.boundaries.push_back(b);
  return rr;
}

RegionRoofline compute_bound(double fraction) {
  RegionRoofline rr = memory_bound(fraction);
  rr.compute_limited = true;
  rr.bound = 100;
  rr.gflops = 100 * fraction;
  rr.boundaries[0].intensity = 50;
  rr.boundaries[0].bound = 100;
  return rr;
}

// Vector (256-bit DP) FP work with the given packed share of instructions.
Metrics fp_metrics(double packed_share, double dram_read_bytes = 0) {
  Metrics m;
  m.has_flops = true;
  m.has_fp_instructions = true;
  m.fp_instructions[1][0] = 1000 * (1 - packed_share);
  m.fp_instructions[1][2] = 1000 * packed_share;
  m.flops[1][0] = m.fp_instructions[1][0];
  m.flops[1][2] = 4 * m.fp_instructions[1][2];
  Traffic& t = m.traffic[static_cast<int>(Boundary::kDRAM)];
  t.measured = true;
  t.read_bytes = dram_read_bytes;
  return m;
}

Verdict run(const Region& r, const Metrics& m, const RegionRoofline* rr) {
  static const Machine mach = machine();
  VerdictInput in;
  in.region = &r;
  in.metrics = &m;
  in.roofline = rr;
  in.machine = &mach;
  return classify(in);
}

const VerdictThresholds kT;

}  // namespace

TEST_CASE("bound and at-roof follow the roofline, at the threshold") {
  const Region r = region();
  const Metrics m = fp_metrics(1.0);
  auto at = memory_bound(kT.at_roof);
  Verdict v = run(r, m, &at);
  CHECK(v.bound == Bound::kMemory);
  CHECK(v.boundary == Boundary::kDRAM);
  CHECK(v.at_roof);
  CHECK(v.kind == VerdictKind::kMemory);
  CHECK(v.fraction == Approx(0.8));
  CHECK(v.as<MemoryEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.as<MemoryEvidence>().bandwidth_gbs == 20);
  CHECK(v.as<MemoryEvidence>().intensity == 0.5);
  CHECK(v.as<MemoryEvidence>().ridge == 5);
  CHECK_FALSE(v.as<MemoryEvidence>().lower_bound);
  auto below = memory_bound(kT.at_roof - 0.01);
  CHECK_FALSE(run(r, m, &below).at_roof);
  auto c = compute_bound(0.9);
  v = run(r, m, &c);
  CHECK(v.bound == Bound::kCompute);
  CHECK(v.at_roof);
  CHECK(v.kind == VerdictKind::kCompute);
  CHECK(v.as<ComputeEvidence>().bound == 100);
  CHECK(v.as<ComputeEvidence>().gflops == Approx(90));
  CHECK(v.as<ComputeEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.as<ComputeEvidence>().intensity == 50);
}

TEST_CASE("latency-bound: Little's law around the in-flight threshold") {
  // 1 s, 100 ns per miss: M misses -> M * 1e-7 in flight.
  const Region r = region();
  auto rr = memory_bound(0.1);
  auto lines_for = [](double in_flight) { return in_flight / 100e-9 * 64; };
  Verdict v = run(r, fp_metrics(1.0, lines_for(kT.latency_max_in_flight)), &rr);
  CHECK(v.has(Flag::kLatencyBound));
  CHECK_FALSE(v.has(Flag::kUnderutilized));  // a specific cause was found
  v = run(r, fp_metrics(1.0, lines_for(kT.latency_max_in_flight * 1.05)), &rr);
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK(v.has(Flag::kUnderutilized));
  // Near the bandwidth roof it is bandwidth, not latency, whatever Little says.
  auto near = memory_bound(kT.latency_max_fraction);
  CHECK_FALSE(run(r, fp_metrics(1.0, lines_for(1)), &near).has(Flag::kLatencyBound));
  CHECK(misses_in_flight(1e7, 100, 1.0, 1).value() == Approx(1.0));
  CHECK(misses_in_flight(1e7, 100, 1.0, 2).value() == Approx(0.5));
  CHECK_FALSE(misses_in_flight(1e7, 0, 1.0, 1));
}

TEST_CASE("low-vectorization around the packed share -- width vs the CPU") {
  const Region r = region();
  auto c = compute_bound(0.9);
  Verdict below = run(r, fp_metrics(kT.low_vector_share - 0.01), &c);
  REQUIRE(below.has(Flag::kLowVectorization));
  CHECK(below.flags[0].kind == FlagKind::kLowVectorShare);
  CHECK(below.flags[0].as<VectorFlagEvidence>().share == Approx(kT.low_vector_share - 0.01));
  CHECK(below.flags[0].as<VectorFlagEvidence>().threshold == kT.low_vector_share);
  // At the share threshold only the width rule remains (256-bit on AVX-512).
  Verdict at = run(r, fp_metrics(kT.low_vector_share), &c);
  REQUIRE(at.has(Flag::kLowVectorization));
  CHECK(at.flags[0].kind == FlagKind::kLowVectorWidth);
  CHECK(at.flags[0].as<VectorFlagEvidence>().widest == Width::k256);
  // All 256-bit on an AVX-512 CPU, compute-bound: narrower than offered.
  auto half = compute_bound(0.5);
  Verdict v = run(r, fp_metrics(1.0), &half);
  CHECK(v.has(Flag::kLowVectorization));
  CHECK(v.flags[0].kind == FlagKind::kLowVectorWidth);
  CHECK(v.flags[0].as<VectorFlagEvidence>().widest == Width::k256);
  CHECK(v.flags[0].as<VectorFlagEvidence>().offered == Width::k512);
  // Memory-bound: vectors would not raise the bound, so no flag either way.
  auto mem = memory_bound(0.9);
  CHECK_FALSE(run(r, fp_metrics(0.0), &mem).has(Flag::kLowVectorization));
  CHECK_FALSE(run(r, fp_metrics(1.0), &mem).has(Flag::kLowVectorization));
}

TEST_CASE("traffic-above-ideal around the ratio, with the likely cause") {
  Region r = region();
  r.work_calls = 1;
  r.work_bytes = 1000;
  Metrics m = fp_metrics(1.0);
  Traffic& t = m.traffic[static_cast<int>(Boundary::kDRAM)];
  t.read_bytes = 1000 * kT.traffic_above_ideal - 1;
  t.write_bytes = 1;
  CHECK_FALSE(run(r, m, nullptr).has(Flag::kTrafficAboveIdeal));
  // A store-only stream: 1000 B written, 1000 B read by write-allocate.
  t.read_bytes = 1000;
  t.write_bytes = 1000;
  Verdict v = run(r, m, nullptr);
  REQUIRE(v.has(Flag::kTrafficAboveIdeal));
  CHECK(v.flags.back().as<TrafficFlagEvidence>().ratio == Approx(2.0));
  CHECK(v.flags.back().as<TrafficFlagEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.flags.back().kind == FlagKind::kTrafficWriteAllocate);
  // Reads far beyond the stores: poor reuse.
  t.read_bytes = 5000;
  t.write_bytes = 100;
  CHECK(run(r, m, nullptr).flags.back().kind == FlagKind::kTrafficPoorReuse);
}

TEST_CASE("above-roof around the ratio") {
  const Region r = region();
  const Metrics m = fp_metrics(1.0);
  auto over = memory_bound(kT.above_roof + 0.01);
  Verdict v = run(r, m, &over);
  REQUIRE(v.has(Flag::kAboveRoof));
  CHECK(v.flags[0].kind == FlagKind::kAboveBandwidthRoof);
  CHECK(v.flags[0].as<AboveRoofEvidence>().ratio == Approx(kT.above_roof + 0.01));
  CHECK(v.flags[0].as<AboveRoofEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.flags[0].as<AboveRoofEvidence>().bandwidth_gbs == 20);
  auto at = memory_bound(kT.above_roof);
  CHECK_FALSE(run(r, m, &at).has(Flag::kAboveRoof));
}

TEST_CASE("load-imbalance around 20% between threads") {
  const Metrics m = fp_metrics(1.0);
  auto rr = memory_bound(0.9);
  CHECK(run(region(10, {1.0, 0.79}), m, &rr).has(Flag::kLoadImbalance));
  CHECK_FALSE(run(region(10, {1.0, 0.80}), m, &rr).has(Flag::kLoadImbalance));
}

TEST_CASE("load-imbalance over ranks names ranks, and own-cache flags processes that shared a host's simulated LLC") {
  const Metrics m = fp_metrics(1.0, 1e9);  // DRAM traffic counted
  auto rr = memory_bound(0.9);
  // Two processes (MPI ranks) of one thread each on one host, 40% apart.
  Region r = region(10, {1.0, 0.6});
  r.threads[0].host = r.threads[1].host = "node1";
  r.threads[0].pid = 100;
  r.threads[1].pid = 101;
  Verdict v = run(r, m, &rr);
  const VerdictFlag* f = v.flag(Flag::kLoadImbalance);
  REQUIRE(f != nullptr);
  CHECK(f->kind == FlagKind::kRankImbalance);
  CHECK(f->as<ImbalanceEvidence>().processes == 2);
  CHECK(f->as<ImbalanceEvidence>().threads == 2);
  CHECK(f->as<ImbalanceEvidence>().waits == Approx(0.4));
  // Not simulated (hardware counts): no own-cache flag.
  CHECK_FALSE(v.has(Flag::kOwnCache));
  static const Machine mach = machine();
  VerdictInput in;
  in.region = &r;
  in.metrics = &m;
  in.roofline = &rr;
  in.machine = &mach;
  in.caches_simulated_per_process = true;
  v = classify(in);
  REQUIRE(v.has(Flag::kOwnCache));
  CHECK(v.flag(Flag::kOwnCache)->as<OwnCacheEvidence>().processes == 2);
  // The same ranks on two hosts share no LLC: no flag.
  r.threads[1].host = "node2";
  CHECK_FALSE(classify(in).has(Flag::kOwnCache));
  // Threads of one process: the loop's schedule, not the ranks.
  const Verdict t = run(region(10, {1.0, 0.6}), m, &rr);
  REQUIRE(t.has(Flag::kLoadImbalance));
  CHECK(t.flag(Flag::kLoadImbalance)->kind == FlagKind::kLoadImbalance);
}

TEST_CASE("too-short around the overhead and total thresholds") {
  const Metrics m = fp_metrics(1.0);
  const double overhead = kT.marker_pair_s + 1e-9;
  const double per_call = kT.too_short_overheads * overhead;
  // 1000 calls just below / above the per-call limit (totals above the minimum).
  Region r = region(1000, {1000 * per_call * 0.99});
  CHECK(run(r, m, nullptr).has(Flag::kTooShort));
  r = region(1000, {1000 * per_call * 1.01});
  CHECK_FALSE(run(r, m, nullptr).has(Flag::kTooShort));
  r = region(1, {kT.min_total_s * 0.99});
  CHECK(run(r, m, nullptr).has(Flag::kTooShort));
}

TEST_CASE("a region only open (no completed call) is not too-short") {
  const Metrics m = fp_metrics(1.0);
  Region r = region(1000, {1.0});
  r.calls = 0;
  r.time_s = 0;
  r.open_calls = 1;
  r.open_time_s = 0.42;
  r.complete = false;
  CHECK_FALSE(run(r, m, nullptr).has(Flag::kTooShort));
  r.open_calls = 0;  // nothing completed and nothing open: nothing to trust
  CHECK(run(r, m, nullptr).has(Flag::kTooShort));
}

TEST_CASE("no roofline: says why and what to run") {
  Region r = region();
  Metrics none;
  Verdict v = run(r, none, nullptr);
  CHECK(v.bound == Bound::kUnknown);
  CHECK(v.kind == VerdictKind::kNoRoofline);
  CHECK(v.as<NoRooflineEvidence>().why_not.empty());
}

TEST_CASE("a function region is judged on its sampled total, not on calls it does not have") {
  const Metrics m = fp_metrics(1.0);
  Region r = region(1, {0.013});
  r.calls = 0;  // the function view counts no calls
  r.time_s = 0.013;
  r.fn_object = "/bin/app";
  r.fn_symbol = "dot";
  CHECK_FALSE(run(r, m, nullptr).has(Flag::kTooShort));
  r.time_s = kT.min_total_s * 0.99;
  const Verdict v = run(r, m, nullptr);
  REQUIRE(v.has(Flag::kTooShort));
  REQUIRE(v.flag(Flag::kTooShort) != nullptr);
  CHECK(v.flag(Flag::kTooShort)->kind == FlagKind::kTooShortSelfTime);
  CHECK(v.flag(Flag::kTooShort)->as<ShortFlagEvidence>().time_s == kT.min_total_s * 0.99);
  CHECK(v.flag(Flag::kTooShort)->as<ShortFlagEvidence>().min_total_s == kT.min_total_s);
}

// --- waiting, below every roof, implausible latency --------------------------

namespace {

Verdict run_full(const Region& r, const Metrics& m, const RegionRoofline* rr,
                 const MemoryView* mv, const VerdictThresholds& t = {}) {
  static const Machine mach = machine();
  VerdictInput in;
  in.region = &r;
  in.metrics = &m;
  in.roofline = rr;
  in.memory = mv;
  in.machine = &mach;
  return classify(in, t);
}

// A memory view with one boundary (DRAM, 20 GB/s roof, 100 ns) and the
// misses given, for a region of time_s on one thread.
MemoryView dram_view(double gbs, double misses, double time_s) {
  MemoryView mv;
  mv.valid = true;
  mv.time_s = time_s;
  BoundaryBandwidth b;
  b.boundary = Boundary::kDRAM;
  b.bytes = gbs * 1e9 * time_s;
  b.gbs = gbs;
  b.roof_gbs = 20;
  b.fraction = gbs / 20;
  b.line_misses = misses;
  b.latency_ns = 100;
  b.in_flight = misses_in_flight(misses, 100, time_s, 1);
  b.in_flight_implausible = *b.in_flight > kMaxLinesInFlightPerCore;
  mv.boundaries.push_back(b);
  mv.limiting = mv.latency_boundary = Boundary::kDRAM;
  mv.fraction = b.fraction;
  return mv;
}

// A region of 20 s wall on one thread that ran `cpu_s` on a CPU.
Region sleeper(double cpu_s, Metrics& m) {
  Region r = region(1, {20.0});
  r.thread_time_s = 20;
  m.cpu_time_s = cpu_s;
  return r;
}

}  // namespace

TEST_CASE("waiting: CPU/wall below its threshold, never latency- or memory-bound") {
  // LIKWID's sleep example: 20 s of wall time, a few ms on the CPU, a few
  // misses: the memory view alone would call it memory- or latency-bound.
  Metrics m = fp_metrics(1.0, 3 * 64);
  m.has_flops = false;
  const Region r = sleeper(0.01, m);
  const MemoryView mv = dram_view(1e-8, 3, 20);
  Verdict v = run_full(r, m, nullptr, &mv);
  CHECK(v.bound == Bound::kWaiting);
  CHECK(std::string(bound_key(v.bound)) == "waiting");
  CHECK(v.kind == VerdictKind::kWaiting);
  CHECK_FALSE(v.as<WaitingEvidence>().has_run_delay);
  CHECK(v.as<WaitingEvidence>().cpu_share == Approx(0.0005));
  CHECK(v.as<WaitingEvidence>().cpu_s == 0.01);
  CHECK(v.as<WaitingEvidence>().wall_s == 20);
  CHECK(v.as<WaitingEvidence>().threads == 1);
  CHECK(v.as<WaitingEvidence>().max_cpu_share == kT.waiting_max_cpu_share);
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK_FALSE(v.has(Flag::kUnderutilized));
  CHECK_FALSE(v.boundary);
  // At the threshold it ran on a CPU enough: judged by the roofs again.
  Metrics busy = m;
  const Region at = sleeper(kT.waiting_max_cpu_share * 20, busy);
  CHECK(run_full(at, busy, nullptr, &mv).bound != Bound::kWaiting);
  // Without a CPU time: unknown, so no waiting verdict.
  Metrics unknown = m;
  unknown.cpu_time_s.reset();
  CHECK(run_full(r, unknown, nullptr, &mv).bound != Bound::kWaiting);
  // Two threads: the CPU time of both against the wall time of both.
  Region two = region(1, {20.0, 20.0});
  two.thread_time_s = 40;
  Metrics m2 = m;
  m2.cpu_time_s = 19.0;  // 47.5% of 40 s
  CHECK(run_full(two, m2, nullptr, &mv).bound == Bound::kWaiting);
  m2.cpu_time_s = 21.0;
  CHECK(run_full(two, m2, nullptr, &mv).bound != Bound::kWaiting);
}

TEST_CASE("busy machine: run delay is not waiting, and is flagged at its threshold") {
  Metrics m = fp_metrics(1.0, 3 * 64);
  m.has_flops = false;
  const MemoryView mv = dram_view(1e-8, 3, 20);
  // 20 s wall on one thread: 9 s on a CPU, 10 s runnable but not running,
  // 1 s off the CPU by choice. CPU/wall alone (45%) would say waiting.
  Region r = sleeper(9.0, m);
  r.has_run_delay = true;
  r.run_delay_s = r.threads[0].run_delay_s = 10.0;
  m.run_delay_s = 10.0;
  Verdict v = run_full(r, m, nullptr, &mv);
  CHECK(v.bound != Bound::kWaiting);
  REQUIRE(v.has(Flag::kBusyMachine));
  const VerdictFlag& busy = *std::find_if(
      v.flags.begin(), v.flags.end(), [](const auto& f) { return f.flag == Flag::kBusyMachine; });
  CHECK(std::string(busy.name()) == "busy-machine");
  CHECK(busy.kind == FlagKind::kBusyMachine);
  CHECK(busy.as<BusyEvidence>().share == Approx(0.5));
  CHECK(busy.as<BusyEvidence>().run_delay_s == 10);
  CHECK(busy.as<BusyEvidence>().wall_s == 20);
  CHECK(busy.as<BusyEvidence>().threads == 1);
  CHECK(busy.as<BusyEvidence>().threshold == kT.busy_min_run_delay_share);
  CHECK(busy.as<BusyEvidence>().running_s == 10);
  CHECK(busy.as<BusyEvidence>().time_s == 20);
  // Without the run delay the same CPU time is waiting, and nothing is flagged.
  Metrics blind = m;
  blind.run_delay_s.reset();
  const Verdict w = run_full(r, blind, nullptr, &mv);
  CHECK(w.bound == Bound::kWaiting);
  CHECK_FALSE(w.has(Flag::kBusyMachine));
  CHECK(w.kind == VerdictKind::kWaiting);
  CHECK_FALSE(w.as<WaitingEvidence>().has_run_delay);
  // Off the CPU by choice dominates (CPU 20% + run delay 20% < 50%):
  // waiting, and the machine was busy too.
  Metrics both = m;
  both.cpu_time_s = 4.0;
  both.run_delay_s = 4.0;
  const Verdict b = run_full(r, both, nullptr, &mv);
  CHECK(b.bound == Bound::kWaiting);
  CHECK(b.has(Flag::kBusyMachine));
  CHECK(b.kind == VerdictKind::kWaiting);
  CHECK(b.as<WaitingEvidence>().has_run_delay);
  CHECK(1 - b.as<WaitingEvidence>().runnable == Approx(0.6));
  CHECK(b.as<WaitingEvidence>().runnable == Approx(0.4));
  CHECK(b.as<WaitingEvidence>().cpu_share == Approx(0.2));
  CHECK(b.as<WaitingEvidence>().run_delay_share == Approx(0.2));
  CHECK(b.as<WaitingEvidence>().max_cpu_share == 0.5);
  // At the waiting threshold: runnable exactly half the time is not waiting.
  both.cpu_time_s = 6.0;
  CHECK(run_full(r, both, nullptr, &mv).bound != Bound::kWaiting);
  both.cpu_time_s = 5.9;
  CHECK(run_full(r, both, nullptr, &mv).bound == Bound::kWaiting);
  // The busy-machine threshold (10% of 20 s = 2 s of run delay): at it
  // flagged, just below it not.
  Metrics edge = m;
  edge.cpu_time_s = 17.0;
  edge.run_delay_s = kT.busy_min_run_delay_share * 20;
  CHECK(run_full(r, edge, nullptr, &mv).has(Flag::kBusyMachine));
  edge.run_delay_s = kT.busy_min_run_delay_share * 20 * 0.99;
  CHECK_FALSE(run_full(r, edge, nullptr, &mv).has(Flag::kBusyMachine));
}

TEST_CASE("running time: the slowest thread's wall minus its run delay") {
  Region r = region(1, {10.0, 8.0});
  r.has_run_delay = true;
  r.threads[0].run_delay_s = 5.0;  // ran 5 s
  r.threads[1].run_delay_s = 1.0;  // ran 7 s: the slowest runner
  r.run_delay_s = 6.0;
  r.thread_time_s = 18.0;
  CHECK(running_time_s(r) == 7.0);
  CHECK(*run_delay_share(r, 6.0) == Approx(6.0 / 18.0));
  CHECK(busy_machine(r, 6.0, kT));
  CHECK_FALSE(busy_machine(r, 1.7, kT));  // 9.4% of 18 s
  CHECK_FALSE(busy_machine(r, std::nullopt, kT));
  r.has_run_delay = false;
  CHECK(running_time_s(r) == 10.0);  // no run delay: its wall time
}

TEST_CASE("latency-bound needs misses that explain the time") {
  // PAPI's integer loop: 3 cold misses in 20 s on the CPU: 1.5e-8 in flight.
  Metrics m;
  m.traffic[static_cast<int>(Boundary::kDRAM)].measured = true;
  m.traffic[static_cast<int>(Boundary::kDRAM)].read_bytes = 3 * 64;
  const Region r = region(1, {20.0});
  const MemoryView cold = dram_view(3 * 64 / 20.0 / 1e9, 3, 20);
  Verdict v = run_full(r, m, nullptr, &cold);
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK(v.bound == Bound::kBelowRoofs);
  CHECK(v.kind == VerdictKind::kBelowRoofs);
  CHECK(v.as<BelowRoofsEvidence>().bandwidth_view);
  CHECK(v.likely_limit.kind == LimitKind::kNonFp);
  // 1 s, 100 ns a miss: misses explaining exactly latency_min_explained of it.
  const Region one = region(1, {1.0});
  auto with = [&](double in_flight) {
    const double misses = in_flight / 100e-9;
    const MemoryView mv = dram_view(misses * 64 / 1e9, misses, 1);
    return run_full(one, m, nullptr, &mv);
  };
  CHECK(with(kT.latency_min_explained * 1.01).has(Flag::kLatencyBound));
  CHECK(with(kT.latency_min_explained * 1.01).bound == Bound::kMemory);
  CHECK_FALSE(with(kT.latency_min_explained * 0.95).has(Flag::kLatencyBound));
  CHECK(with(kT.latency_max_in_flight * 0.99).has(Flag::kLatencyBound));
  CHECK_FALSE(with(kT.latency_max_in_flight * 1.05).has(Flag::kLatencyBound));
  // A pointer chase whose every step misses to DRAM, on a host where a miss
  // costs more than the machine's measured latency: below the band, so not
  // latency-bound, but its likely limit is the misses, not "non-FP work".
  Metrics chase = m;
  chase.traffic[static_cast<int>(Boundary::kL1)].measured = true;
  chase.traffic[static_cast<int>(Boundary::kL2)].measured = true;
  const double steps = 0.2 / 100e-9;  // 0.2 misses in flight at 100 ns, 1 s
  chase.traffic[static_cast<int>(Boundary::kL1)].read_bytes = 16 * steps;
  chase.traffic[static_cast<int>(Boundary::kL2)].read_bytes = 64 * steps;
  chase.traffic[static_cast<int>(Boundary::kDRAM)].read_bytes = 64 * steps;
  const MemoryView slow_chase = dram_view(64 * steps / 1e9, steps, 1);
  v = run_full(one, chase, nullptr, &slow_chase);
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK(v.bound == Bound::kBelowRoofs);
  CHECK(v.likely_limit.kind == LimitKind::kIrregularNoFlops);
  CHECK(v.likely_limit.miss_share == Approx(4.0));
  CHECK(v.likely_limit.little == LikelyLimit::Little::kUnder);
  CHECK(v.likely_limit.in_flight == Approx(0.2));
  CHECK(v.likely_limit.boundary == Boundary::kDRAM);
  // An integer loop in cache (few of its bytes cross L2): not memory.
  chase.traffic[static_cast<int>(Boundary::kL2)].read_bytes = 0.01 * 16 * steps;
  chase.traffic[static_cast<int>(Boundary::kDRAM)].read_bytes = 0.01 * 16 * steps;
  v = run_full(one, chase, nullptr, &slow_chase);
  CHECK(v.likely_limit.kind == LimitKind::kNonFp);
  // The FLOP roofline's flag follows the same rule.
  auto rr = memory_bound(0.1);
  CHECK_FALSE(run(one, fp_metrics(1.0, 0.4 * kT.latency_min_explained / 100e-9 * 64), &rr)
                  .has(Flag::kLatencyBound));
  CHECK(run(one, fp_metrics(1.0, 1.01 * kT.latency_min_explained / 100e-9 * 64), &rr)
            .has(Flag::kLatencyBound));
}

TEST_CASE("below every roof: not compute-bound, with the likely limit and its numbers") {
  const Region r = region();
  // HPCCG's CSR SpMV in the LLC: intensity above the ridge, 34-48% of the
  // scalar roof; per nonzero 2 FLOPs, 20 bytes loaded at L1, most x[col]
  // loads missing L1.
  Metrics spmv;
  spmv.has_flops = spmv.has_fp_instructions = true;
  spmv.flops[1][0] = spmv.fp_instructions[1][0] = 2e8;
  spmv.traffic[0].measured = spmv.traffic[1].measured = true;
  spmv.traffic[0].read_bytes = 2e9;  // 10 bytes per FLOP
  spmv.traffic[1].read_bytes = 8e8;  // 40% of them cross L2
  auto c = compute_bound(0.48);
  Verdict v = run(r, spmv, &c);
  CHECK(v.bound == Bound::kBelowRoofs);
  CHECK(std::string(bound_key(v.bound)) == "below-roofs");
  CHECK_FALSE(v.boundary);
  CHECK(v.kind == VerdictKind::kBelowRoofs);
  CHECK_FALSE(v.as<BelowRoofsEvidence>().bandwidth_view);
  CHECK(v.as<BelowRoofsEvidence>().fraction == Approx(0.48));
  CHECK(v.as<BelowRoofsEvidence>().threshold == 0.5);
  CHECK(v.as<BelowRoofsEvidence>().compute_limited);
  CHECK(v.likely_limit.kind == LimitKind::kIrregular);
  CHECK(v.likely_limit.l1_bytes_per_flop == Approx(10));
  CHECK(v.likely_limit.miss_share == Approx(0.4));
  CHECK_FALSE(v.has(Flag::kUnderutilized));  // the cause is named
  // At the threshold: compute-bound as before.
  auto at = compute_bound(kT.below_roofs);
  CHECK(run(r, spmv, &at).bound == Bound::kCompute);

  // A scalar dependency chain: few bytes per FLOP, scalar, above every ridge.
  Metrics chain = spmv;
  chain.traffic[0].read_bytes = 1e7;
  chain.traffic[1].read_bytes = 1e3;
  auto slow = compute_bound(0.12);
  v = run(r, chain, &slow);
  CHECK(v.bound == Bound::kBelowRoofs);
  CHECK(v.likely_limit.kind == LimitKind::kDependencyChains);
  CHECK(v.likely_limit.vector_share == 0);
  CHECK(v.likely_limit.below_l1_counted);
  // Counted at L1 only (the inst backend): the same verdict says what it
  // cannot tell.
  Metrics l1_only = chain;
  l1_only.traffic[1].measured = false;
  CHECK(run(r, l1_only, &slow).likely_limit.kind == LimitKind::kDependencyChains);
  CHECK_FALSE(run(r, l1_only, &slow).likely_limit.below_l1_counted);
  // Vector code far below its roof with no other sign: no cause named.
  v = run(r, fp_metrics(1.0), &slow);
  CHECK(v.bound == Bound::kBelowRoofs);
  CHECK(v.likely_limit.kind == LimitKind::kNone);
  CHECK(v.kind == VerdictKind::kBelowRoofs);
  CHECK(v.has(Flag::kUnderutilized));
  // Memory-limited: below every roof under the bandwidth threshold (10%),
  // still memory-bound at it.
  auto mem = memory_bound(0.05);
  CHECK(run(r, fp_metrics(0.0), &mem).bound == Bound::kBelowRoofs);
  CHECK(run(r, fp_metrics(0.0), &mem).likely_limit.kind == LimitKind::kLowVectorization);
  CHECK(run(r, fp_metrics(0.0), &mem).as<BelowRoofsEvidence>().threshold ==
        kT.below_bandwidth_roofs);
  auto mem_at = memory_bound(kT.below_bandwidth_roofs);
  CHECK(run(r, fp_metrics(0.0), &mem_at).bound == Bound::kMemory);
  auto mem_mid = memory_bound(0.3);
  CHECK(run(r, fp_metrics(0.0), &mem_mid).bound == Bound::kMemory);
}

TEST_CASE("lines in flight above the per-core maximum: implausible, no latency verdict") {
  const Region r = region(1, {1.0});
  Metrics m;
  m.traffic[static_cast<int>(Boundary::kDRAM)].measured = true;
  // 1 s, 100 ns: 80.9 in flight (the SpMV at LLC).
  const MemoryView mv = dram_view(5, 80.9e7, 1);
  REQUIRE(mv.boundaries[0].in_flight_implausible);
  const Verdict v = run_full(r, m, nullptr, &mv);
  REQUIRE(v.has(Flag::kImplausibleLatency));
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  for (const VerdictFlag& f : v.flags) {
    if (f.flag == Flag::kImplausibleLatency) {
      CHECK(f.kind == FlagKind::kImplausibleLatency);
      CHECK(f.as<LatencyFlagEvidence>().in_flight == Approx(80.9));
      CHECK(f.as<LatencyFlagEvidence>().max_in_flight == kMaxLinesInFlightPerCore);
      CHECK(std::string(f.name()) == "implausible-latency");
    }
  }
  const MemoryView ok = dram_view(5, 0.99 * kMaxLinesInFlightPerCore * 1e7, 1);
  CHECK_FALSE(ok.boundaries[0].in_flight_implausible);
  CHECK_FALSE(run_full(r, m, nullptr, &ok).has(Flag::kImplausibleLatency));
}

TEST_CASE("dependency chain: FP instructions at a whole number per latency, below every roof") {
  Machine mach = machine();
  // A DP add 1 ns (3 cycles at 3 GHz), an FMA 4/3 ns.
  mach.fp_latency.push_back({Precision::kDP, FpOp::kAdd, 1.0, 3, {}});
  mach.fp_latency.push_back({Precision::kDP, FpOp::kFma, 4.0 / 3, 4, {}});
  const Region r = region();  // 1 s, 1 thread
  // Scalar DP instructions per second: per_latency of them per add latency.
  auto scalar = [](double per_ns, double flops_per_instruction, double dram_read) {
    Metrics m = fp_metrics(0.0, dram_read);
    m.fp_instructions[1][0] = per_ns * 1e9;
    m.flops[1][0] = per_ns * 1e9 * flops_per_instruction;
    return m;
  };
  auto verdict = [&](const Metrics& m, const RegionRoofline& rr) {
    VerdictInput in;
    in.region = &r;
    in.metrics = &m;
    in.roofline = &rr;
    in.machine = &mach;
    return classify(in);
  };
  // HPCCG's ddot at DRAM: 14% of the bandwidth roof, one add per latency
  // with a multiply beside it (2 per latency); 1.2 line misses in flight
  // would have made it latency-bound.
  const auto rr = memory_bound(0.14);
  const double lines_1_2 = 1.2 / 100e-9 * 64;
  Verdict v = verdict(scalar(2.0, 1, lines_1_2), rr);
  CHECK(v.bound == Bound::kDependencyChain);
  REQUIRE(v.chain);
  CHECK(v.chain->chains == 2);
  CHECK(v.chain->op == FpOp::kAdd);
  CHECK(v.chain->per_latency == Approx(2.0));
  CHECK(v.fraction == Approx(1.0));
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK_FALSE(v.has(Flag::kUnderutilized));
  CHECK_FALSE(v.boundary);
  // One chain, within the tolerance either side; outside it, not a chain.
  v = verdict(scalar(1.0 * (1 + 0.95 * kT.chain_tolerance), 1, 0), rr);
  CHECK(v.bound == Bound::kDependencyChain);
  CHECK(v.chain->chains == 1);
  v = verdict(scalar(1.0 * (1 - 0.95 * kT.chain_tolerance), 1, 0), rr);
  CHECK(v.bound == Bound::kDependencyChain);
  CHECK(verdict(scalar(1.0 * (1 + 1.2 * kT.chain_tolerance), 1, 0), rr).bound != Bound::kDependencyChain);
  CHECK(verdict(scalar(2.5, 1, 0), rr).bound != Bound::kDependencyChain);
  CHECK(verdict(scalar(kT.chain_max + 1, 1, 0), rr).bound != Bound::kDependencyChain);
  // Mostly FMAs: the FMA's latency sets the chain (0.75 per ns = 1 per 4/3 ns).
  v = verdict(scalar(0.75, 2, 0), rr);
  CHECK(v.bound == Bound::kDependencyChain);
  CHECK(v.chain->op == FpOp::kFma);
  CHECK(v.chain->chains == 1);
  // Near a roof the roof explains the rate; without a measured latency no chain.
  const auto near_roof = memory_bound(kT.chain_max_roof_fraction);
  CHECK(verdict(scalar(1.0, 1, 0), near_roof).bound == Bound::kMemory);
  const Metrics m1 = scalar(1.0, 1, 0);
  CHECK(run(r, m1, &rr).bound != Bound::kDependencyChain);
}

TEST_CASE("counted at L1 only: memory-limited there is not below every roof, the rest is named") {
  // A STREAM copy under inst --sample=off: L1 bytes only, 5% of the L1 roof.
  const Region r = region();
  Metrics m = fp_metrics(1.0);
  m.traffic[static_cast<int>(Boundary::kDRAM)].measured = false;
  Traffic& l1 = m.traffic[static_cast<int>(Boundary::kL1)];
  l1.measured = true;
  l1.read_bytes = 1e9;
  RegionRoofline rr = memory_bound(0.05);
  rr.limiting = Boundary::kL1;
  rr.boundaries[0].boundary = Boundary::kL1;
  const Verdict v = run(r, m, &rr);
  CHECK(v.bound == Bound::kMemory);
  CHECK(v.boundary == Boundary::kL1);
  CHECK(v.unmeasured_below_l1);
  CHECK_FALSE(v.has(Flag::kUnderutilized));
  // Counted below L1 too: the same rate is below every roof.
  m.traffic[static_cast<int>(Boundary::kDRAM)].measured = true;
  const Verdict all = run(r, m, &rr);
  CHECK(all.bound == Bound::kBelowRoofs);
  CHECK_FALSE(all.unmeasured_below_l1);
}
