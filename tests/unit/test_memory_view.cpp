// The memory view and the verdict it gives regions without FLOPs, on the
// synthetic machine (tests/unit/machine_fixture.h): bandwidth roofs for one
// thread L1 400, L2 225, LLC 112.5, DRAM 22.5 GB/s (write-allocate counted
// below L1, so triad's 18 x 1.25 wins there); two threads double them. DRAM
// latency 100 ns and L2 4 ns are added here; lines are 64 bytes.
#include <catch2/catch.hpp>

#include <cmath>

#include "machine_fixture.h"
#include "roofline/classify.h"
#include "roofline/memory_view.h"
#include "roofline/roofline.h"

using namespace rprof;

namespace {

Machine machine() {
  Machine m = test::synthetic_machine();
  for (CeilingSet& s : m.ceilings) {
    s.latency.push_back({"DRAM", 100.0, 250, {}});
    s.latency.push_back({"L2", 4.0, 10, {}});
  }
  return m;
}

Metrics traffic(double l1_read, double l2_read, double dram_read, double dram_write = 0) {
  CounterMap c;
  c["bytes.l1.read"] = static_cast<uint64_t>(l1_read);
  c["bytes.l2.read"] = static_cast<uint64_t>(l2_read);
  c["bytes.dram.read"] = static_cast<uint64_t>(dram_read);
  c["bytes.dram.write"] = static_cast<uint64_t>(dram_write);
  return metrics_from_counters(c);
}

Region region(double time_s, int threads = 1) {
  Region r;
  r.name = std::string(1, 'm');
  r.path = {r.name};
  r.calls = 1;
  r.time_s = time_s;
  for (int i = 0; i < threads; ++i) {
    ThreadRow row;
    row.time_s = time_s;
    r.threads.push_back(row);
  }
  return r;
}

Verdict verdict(const Region& r, const Metrics& m, const MemoryView& mv, const Machine& mach,
                const VerdictThresholds& t = {}) {
  VerdictInput in;
  in.region = &r;
  in.metrics = &m;
  in.memory = &mv;
  in.machine = &mach;
  return classify(in, t);
}

}  // namespace

TEST_CASE("memory view: a chase's bandwidth, fraction and lines in flight per boundary") {
  const Machine mach = machine();
  // 1e6 dependent misses of one 64-byte line each in 0.1 s.
  const Metrics m = traffic(8e6, 64e6, 64e6);
  const MemoryView mv = memory_view(m, 0.1, 1, mach);
  REQUIRE(mv.valid);
  REQUIRE(mv.boundaries.size() == 3);
  const BoundaryBandwidth* l1 = mv.at(Boundary::kL1);
  const BoundaryBandwidth* l2 = mv.at(Boundary::kL2);
  const BoundaryBandwidth* dram = mv.at(Boundary::kDRAM);
  REQUIRE((l1 && l2 && dram));
  CHECK(l1->gbs == Approx(0.08));
  CHECK(l1->roof_gbs == Approx(400));
  CHECK(l1->fraction == Approx(0.0002));
  CHECK_FALSE(l1->in_flight);  // Little's law applies below L1 only
  CHECK(l2->gbs == Approx(0.64));
  // Read-only: each boundary's roof is the best read rate (load's, above
  // triad's reads: 0.9 x 1.25 x 4/5 of it).
  CHECK(l2->roof_gbs == Approx(200));
  CHECK(l2->read_limited);
  CHECK(l2->in_flight.value() == Approx(1e6 * 4e-9 / 0.1));
  CHECK(dram->gbs == Approx(0.64));
  CHECK(dram->roof_gbs == Approx(20));
  CHECK(dram->kernel == StreamMix::kLoad);
  CHECK(dram->best_gbs == Approx(22.5));  // triad with write-allocate, any mix
  CHECK(dram->best_kernel == StreamMix::kTriad);
  CHECK(dram->write_share == 0);
  CHECK(dram->fraction == Approx(0.64 / 20));
  CHECK(dram->line_misses == Approx(1e6));
  CHECK(dram->latency_ns.value() == Approx(100));
  CHECK(dram->in_flight.value() == Approx(1.0));
  CHECK(mv.limiting == Boundary::kDRAM);
  CHECK(mv.latency_boundary == Boundary::kDRAM);
  CHECK(mv.fraction == Approx(0.64 / 20));

  const Verdict v = verdict(region(0.1), m, mv, mach);
  CHECK(v.bound == Bound::kMemory);
  CHECK(v.boundary == Boundary::kDRAM);
  CHECK(v.fraction == Approx(0.64 / 20));
  CHECK(v.has(Flag::kLatencyBound));
  CHECK_FALSE(v.has(Flag::kUnderutilized));
  CHECK(v.kind == VerdictKind::kLatencyView);
  CHECK(v.as<BandwidthEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.as<BandwidthEvidence>().in_flight == Approx(*mv.at(Boundary::kDRAM)->in_flight));
  REQUIRE(v.flag(Flag::kLatencyBound) != nullptr);
  CHECK(v.flag(Flag::kLatencyBound)->kind == FlagKind::kLatencyBoundView);
}

TEST_CASE("memory view: latency-bound at and around the in-flight and fraction thresholds") {
  const Machine mach = machine();
  const Metrics m = traffic(8e6, 64e6, 64e6);
  const MemoryView mv = memory_view(m, 0.1, 1, mach);
  const double in_flight = *mv.at(Boundary::kDRAM)->in_flight;
  VerdictThresholds t;
  t.latency_max_in_flight = in_flight;  // at the threshold: still latency-bound
  CHECK(verdict(region(0.1), m, mv, mach, t).has(Flag::kLatencyBound));
  t.latency_max_in_flight = std::nextafter(in_flight, 0.0);  // just below: not
  const Verdict above = verdict(region(0.1), m, mv, mach, t);
  CHECK_FALSE(above.has(Flag::kLatencyBound));
  // 2.8% of the roof and not latency-bound: below every roof (under 10% of
  // a bandwidth roof), its likely limit named from the counts: no FLOPs, and
  // every byte loaded at L1 a line crossing L2 (misses, overlapping).
  CHECK(above.bound == Bound::kBelowRoofs);
  CHECK(above.kind == VerdictKind::kBelowRoofs);
  CHECK(above.as<BelowRoofsEvidence>().bandwidth_view);
  CHECK(above.likely_limit.kind == LimitKind::kIrregularNoFlops);
  CHECK(above.likely_limit.little == LikelyLimit::Little::kAbove);

  t = {};
  t.latency_max_fraction = mv.fraction;  // at the fraction threshold: not latency-bound
  CHECK_FALSE(verdict(region(0.1), m, mv, mach, t).has(Flag::kLatencyBound));
  t.latency_max_fraction = std::nextafter(mv.fraction, 1.0);
  CHECK(verdict(region(0.1), m, mv, mach, t).has(Flag::kLatencyBound));
}

TEST_CASE("memory view: a stream near the DRAM roof is memory-bound, at the roof, not latency-bound") {
  const Machine mach = machine();
  // 18 GB read from DRAM in 1 s: 90% of the 20 GB/s read-only roof.
  const Metrics m = traffic(18e9, 18e9, 18e9);
  const MemoryView mv = memory_view(m, 1.0, 1, mach);
  REQUIRE(mv.valid);
  CHECK(mv.limiting == Boundary::kDRAM);
  CHECK(mv.fraction == Approx(0.9));
  CHECK(mv.at(Boundary::kDRAM)->in_flight.value() == Approx(18e9 / 64 * 100e-9));
  const Verdict v = verdict(region(1.0), m, mv, mach);
  CHECK(v.bound == Bound::kMemory);
  CHECK(v.boundary == Boundary::kDRAM);
  CHECK(v.at_roof);
  CHECK(v.fraction == Approx(0.9));
  CHECK_FALSE(v.has(Flag::kLatencyBound));
  CHECK_FALSE(v.has(Flag::kUnderutilized));
  CHECK(v.kind == VerdictKind::kMemoryView);
  CHECK(v.as<BandwidthEvidence>().boundary == Boundary::kDRAM);
  CHECK(v.as<BandwidthEvidence>().fraction == Approx(0.9));

  // At roof threshold 0.8: exactly at is at the roof, just below is not.
  VerdictThresholds t;
  t.at_roof = mv.fraction;
  CHECK(verdict(region(1.0), m, mv, mach, t).at_roof);
  t.at_roof = std::nextafter(mv.fraction, 1.0);
  CHECK_FALSE(verdict(region(1.0), m, mv, mach, t).at_roof);
}

TEST_CASE("memory view: underutilized around its fraction threshold") {
  const Machine mach = machine();
  // 4 GB from DRAM in 1 s: 20% of the roof with 6 lines in flight.
  const Metrics m = traffic(4e9, 4e9, 4e9);
  const MemoryView mv = memory_view(m, 1.0, 1, mach);
  CHECK(mv.fraction == Approx(0.2));
  CHECK(verdict(region(1.0), m, mv, mach).has(Flag::kUnderutilized));
  CHECK_FALSE(verdict(region(1.0), m, mv, mach).has(Flag::kLatencyBound));
  VerdictThresholds t;
  t.underutilized = mv.fraction;  // at the threshold: not underutilized
  CHECK_FALSE(verdict(region(1.0), m, mv, mach, t).has(Flag::kUnderutilized));
}

TEST_CASE("memory view: the limiting boundary is the one nearest its roof") {
  const Machine mach = machine();
  // L2: 160 of 200 GB/s (80%); DRAM 4 of 20 (20%).
  const Metrics m = traffic(160e9, 160e9, 4e9);
  const MemoryView mv = memory_view(m, 1.0, 1, mach);
  CHECK(mv.limiting == Boundary::kL2);
  CHECK(mv.latency_boundary == Boundary::kL2);
  CHECK(mv.fraction == Approx(0.8));
  CHECK(mv.at(Boundary::kL1)->fraction == Approx(0.4));
  const Verdict v = verdict(region(1.0), m, mv, mach);
  CHECK(v.boundary == Boundary::kL2);
  CHECK(v.at_roof);
}

TEST_CASE("memory view: thread counts pick the nearest ceilings, in flight is per thread") {
  const Machine mach = machine();
  const Metrics m = traffic(0, 0, 64e6);
  const MemoryView two = memory_view(m, 0.1, 2, mach);
  CHECK(two.ceiling_threads == 2);
  CHECK(two.at(Boundary::kDRAM)->roof_gbs == Approx(40));
  CHECK(two.fraction == Approx(0.64 / 40));
  CHECK(two.at(Boundary::kDRAM)->in_flight.value() == Approx(0.5));
  const MemoryView three = memory_view(m, 0.1, 3, mach);
  CHECK(three.threads == 3);
  CHECK(three.ceiling_threads == 2);
  CHECK(three.at(Boundary::kDRAM)->in_flight.value() == Approx(1.0 / 3));
}

TEST_CASE("memory view: says why not without traffic, time or ceilings") {
  const Machine mach = machine();
  CHECK_FALSE(memory_view(Metrics{}, 1.0, 1, mach).valid);
  CHECK_FALSE(memory_view(traffic(0, 0, 64e6), 0.0, 1, mach).valid);
  CHECK(memory_view(traffic(0, 0, 64e6), 0.0, 1, mach).why_not == "no elapsed time");
  CHECK_FALSE(memory_view(traffic(0, 0, 64e6), 1.0, 1, Machine{}).valid);
  // A region without FLOPs and without a view keeps "no roofline".
  const Metrics none;
  const MemoryView mv = memory_view(none, 1.0, 1, mach);
  const Verdict v = verdict(region(1.0), none, mv, mach);
  CHECK(v.bound == Bound::kUnknown);
}

TEST_CASE("compute roof follows the FMA share of the instructions") {
  const Machine mach = test::synthetic_machine();
  auto roof = [&](double flops, double instructions) {
    CounterMap c;
    c["flops.dp.256"] = static_cast<uint64_t>(flops);
    c["fpins.dp.256"] = static_cast<uint64_t>(instructions);
    c["bytes.l1.read"] = 1000;
    return region_roofline(metrics_from_counters(c), 1.0, 1, mach);
  };
  // 4 lanes per 256-bit DP instruction: FLOPs = 4 x instructions is no FMA.
  const RegionRoofline addmul = roof(4e9, 1e9);
  REQUIRE(addmul.valid);
  CHECK(addmul.fma_share.value() == Approx(0.0));
  CHECK(addmul.roof.mix == FlopMix::kAddMul);
  CHECK(addmul.roof.gflops == Approx(20));
  CHECK(addmul.roof_why.find("no FMA executed (FLOPs = 1.00 x lanes") != std::string::npos);
  // 1% FMA is still held against add/mul (kFmaShareTolerance 2%); 3% gets the best mix.
  CHECK(roof(4.04e9, 1e9).roof.mix == FlopMix::kAddMul);
  CHECK(roof(4.12e9, 1e9).roof.gflops == Approx(40));
  const RegionRoofline fma = roof(8e9, 1e9);
  CHECK(fma.fma_share.value() == Approx(1.0));
  CHECK(fma.roof.mix == FlopMix::kFma);
  CHECK(fma.roof.gflops == Approx(40));
  CHECK(fma.roof_why.find("FMA only") != std::string::npos);
  const RegionRoofline half = roof(6e9, 1e9);
  CHECK(half.fma_share.value() == Approx(0.5));
  CHECK(half.roof.gflops == Approx(40));
  CHECK(half.roof_why.find("50% of FP instructions are FMA") != std::string::npos);
}
