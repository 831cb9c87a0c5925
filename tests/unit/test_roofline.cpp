// Roofline math on synthetic inputs: the lab's numbers, bounds per boundary,
// ridge, limiting boundary, the compute roof that applies, thread matching.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "roofline/roofline.h"
#include "machine_fixture.h"

using namespace rprof;

TEST_CASE("lab: I=4, B=80, P=1000 is memory-limited at 320 GFLOP/s, ridge 12.5") {
  const LabPoint r = lab_point(1000, 80, 4);
  CHECK(r.bound == Approx(320));
  CHECK(r.bandwidth_roof == Approx(320));
  CHECK(r.ridge == Approx(12.5));
  CHECK(r.memory_limited);
  CHECK(r.fraction_of_peak == Approx(0.32));
}

TEST_CASE("lab: I=16, B=80 is compute-limited at 1000, bandwidth roof 1280") {
  const LabPoint r = lab_point(1000, 80, 16);
  CHECK(r.bound == Approx(1000));
  CHECK(r.bandwidth_roof == Approx(1280));
  CHECK_FALSE(r.memory_limited);
}

TEST_CASE("lab: the seed's daxpy example, and what doubling P or B does") {
  const double i = 2.0 / 24;
  const LabPoint r = lab_point(1000, 100, i);
  CHECK(r.ridge == Approx(10));
  CHECK(r.bound == Approx(8.3333).epsilon(1e-4));
  CHECK(1 / r.fraction_of_peak == Approx(120));
  CHECK(lab_point(2000, 100, i).bound == Approx(r.bound));
  CHECK(lab_point(1000, 200, i).bound == Approx(2 * r.bound));
  CHECK(attainable_gflops(1000, 100, i) == Approx(r.bound));
  CHECK(ridge_intensity(1000, 100) == Approx(10));
}

TEST_CASE("lab: nonsense values are refused") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -4.0, nan, inf}) {
    INFO(bad);
    CHECK_THROWS_AS(lab_point(1000, 80, bad), Error);
    CHECK_THROWS_AS(lab_point(1000, bad, 4), Error);
    CHECK_THROWS_AS(lab_point(bad, 80, 4), Error);
  }
  try {
    lab_point(1000, -1, 4);
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    CHECK(std::string(e.what()).find("--bandwidth") != std::string::npos);
  }
}

namespace {

// 1e9 FLOPs in 1 s: 1 GFLOP/s achieved.
Metrics daxpy_like(Width w) {
  CounterMap c;
  c[std::string("flops.dp.") + width_name(w)] = 1000000000;
  c["bytes.l1.read"] = 8000000000;    // I = 0.125 at L1 (with writes: 0.1)
  c["bytes.l1.write"] = 2000000000;
  c["bytes.dram.read"] = 400000000;   // I = 2 at DRAM
  c["bytes.dram.write"] = 100000000;
  return metrics_from_counters(c);
}

}  // namespace

TEST_CASE("region roofline: intensity, bound, ridge and limit per boundary") {
  const Machine m = test::synthetic_machine();
  const RegionRoofline r = region_roofline(daxpy_like(Width::k512), 1.0, 1, m);
  REQUIRE(r.valid);
  CHECK(r.gflops == Approx(1.0));
  CHECK(r.roof.gflops == Approx(80));
  CHECK(r.roof.width == Width::k512);
  REQUIRE(r.boundaries.size() == 2);
  const BoundaryRoof* l1 = r.at(Boundary::kL1);
  const BoundaryRoof* dram = r.at(Boundary::kDRAM);
  REQUIRE(l1);
  REQUIRE(dram);
  CHECK(l1->intensity == Approx(0.1));
  // L1 uses explicit bytes: load 400 beats triad 360.
  CHECK(l1->bandwidth_gbs == Approx(400));
  CHECK(l1->bound == Approx(40));
  CHECK(l1->ridge == Approx(0.2));
  CHECK(l1->memory_limited);
  CHECK(dram->intensity == Approx(2));
  // Below L1 the write-allocate traffic counts: triad 18 * 1.25 = 22.5 > 20.
  CHECK(dram->bandwidth_gbs == Approx(22.5));
  CHECK(dram->kernel == StreamMix::kTriad);
  CHECK(dram->bound == Approx(45));
  CHECK(dram->ridge == Approx(80 / 22.5));
  CHECK(r.limiting == Boundary::kL1);
  CHECK_FALSE(r.compute_limited);
  CHECK(r.bound == Approx(40));
  CHECK(r.fraction == Approx(1.0 / 40));
}

TEST_CASE("mix roof: the best read rate over (1 - written share), at most the best kernel") {
  Machine m = test::synthetic_machine();
  CeilingSet& s = m.ceilings.front();  // 1 thread
  s.bandwidth.erase(std::remove_if(s.bandwidth.begin(), s.bandwidth.end(),
                                   [](const BandwidthCeiling& b) {
                                     return b.boundary == Boundary::kDRAM;
                                   }),
                    s.bandwidth.end());
  // One core at DRAM: read-only 25 GB/s, read-modify-write 48 (24 of reads),
  // daxpy 36 (24 of reads), all counted as the bytes crossing the boundary.
  s.bandwidth.push_back({Boundary::kDRAM, StreamMix::kLoad, 25, 25, {}, "4 KiB"});
  s.bandwidth.push_back({Boundary::kDRAM, StreamMix::kUpdate, 48, 48, {}, "2 MiB"});
  s.bandwidth.push_back({Boundary::kDRAM, StreamMix::kDaxpy, 36, 36, {}, "2 MiB"});
  const MixRoof ro = s.roof_bandwidth(Boundary::kDRAM, 0.0);
  CHECK(ro.gbs == Approx(25));
  CHECK(ro.read_limited);
  CHECK(ro.kernel()->mix == StreamMix::kLoad);
  const MixRoof rmw = s.roof_bandwidth(Boundary::kDRAM, 0.5);
  CHECK(rmw.gbs == Approx(48));  // min(48, 25 / 0.5 = 50)
  CHECK_FALSE(rmw.read_limited);
  CHECK(rmw.kernel()->mix == StreamMix::kUpdate);
  CHECK(rmw.kernel()->pages == "2 MiB");
  const MixRoof third = s.roof_bandwidth(Boundary::kDRAM, 1.0 / 3);
  CHECK(third.gbs == Approx(37.5));  // 25 / (2/3)
  CHECK(third.read_limited);
  CHECK(s.roof_bandwidth(Boundary::kDRAM, 1.0).gbs == Approx(48));  // writes only
  // A region's DRAM roof follows its own mix.
  CounterMap c;
  c["flops.dp.scalar"] = 1e8;  // I = 1/30 FLOP/byte: memory-limited
  c["bytes.dram.read"] = 2e9;
  c["bytes.dram.write"] = 1e9;  // a daxpy's mix: a third written
  const RegionRoofline r = region_roofline(metrics_from_counters(c), 0.1, 1, m);
  REQUIRE(r.valid);
  const BoundaryRoof* dram = r.at(Boundary::kDRAM);
  REQUIRE(dram);
  CHECK(dram->bandwidth_gbs == Approx(37.5));
  CHECK(dram->write_share == Approx(1.0 / 3));
  CHECK(dram->read_limited);
  CHECK(dram->kernel == StreamMix::kLoad);
  CHECK(dram->best_gbs == Approx(48));
  CHECK(dram->best_kernel == StreamMix::kUpdate);
  CHECK(dram->fraction == Approx(30.0 / 37.5));  // 3e9 B in 0.1 s = 30 GB/s
}

TEST_CASE("region roofline: compute-limited when every bandwidth roof is above the peak") {
  const Machine m = test::synthetic_machine();
  CounterMap c;
  c["flops.dp.512"] = 100000000000;  // 1e11 FLOPs
  c["bytes.dram.read"] = 1000000000;  // I = 100 at DRAM: read-only roof 20 GB/s, 2000 GFLOP/s
  const RegionRoofline r = region_roofline(metrics_from_counters(c), 10.0, 1, m);
  REQUIRE(r.valid);
  CHECK(r.compute_limited);
  CHECK(r.bound == Approx(80));
  CHECK(r.at(Boundary::kDRAM)->bandwidth_roof == Approx(2000));
  CHECK_FALSE(r.at(Boundary::kDRAM)->memory_limited);
  CHECK(r.fraction == Approx(10.0 / 80));
}

TEST_CASE("region roofline: a scalar region is held against the scalar roof") {
  const Machine m = test::synthetic_machine();
  const RegionRoofline r = region_roofline(daxpy_like(Width::kScalar), 1.0, 1, m);
  REQUIRE(r.valid);
  CHECK(r.roof.gflops == Approx(10));
  CHECK(r.roof.width == Width::kScalar);
  CHECK(r.full_roof.gflops == Approx(80));
  CHECK(r.full_roof.width == Width::k512);
  // The L1 bandwidth roof (40) is above the scalar roof: compute-limited.
  CHECK(r.compute_limited);
  CHECK(r.bound == Approx(10));
  bool told = false;
  for (const std::string& n : r.notes) told |= n.find("full") != std::string::npos;
  CHECK(told);
}

TEST_CASE("region roofline: single precision uses the SP roof") {
  const Machine m = test::synthetic_machine();
  CounterMap c;
  c["flops.sp.256"] = 4000000000;
  c["flops.dp.scalar"] = 1000;
  const RegionRoofline r = region_roofline(metrics_from_counters(c), 1.0, 1, m);
  REQUIRE(r.valid);
  CHECK(r.roof.precision == Precision::kSP);
  CHECK(r.roof.gflops == Approx(80));
  CHECK(r.boundaries.empty());
  CHECK(r.bound == Approx(80));
  CHECK(r.fraction == Approx(4.000001 / 80).epsilon(1e-3));
}

TEST_CASE("region roofline: thread counts pick the nearest ceilings and say so") {
  const Machine m = test::synthetic_machine();
  const RegionRoofline two = region_roofline(daxpy_like(Width::k512), 1.0, 2, m);
  CHECK(two.ceiling_threads == 2);
  CHECK(two.roof.gflops == Approx(160));
  CHECK(two.notes.empty());
  const RegionRoofline eight = region_roofline(daxpy_like(Width::k512), 1.0, 8, m);
  CHECK(eight.ceiling_threads == 2);
  bool told = false;
  for (const std::string& n : eight.notes) told |= n.find("nearest") != std::string::npos;
  CHECK(told);
  CHECK(m.nearest(1)->threads == 1);
  CHECK(m.nearest(0)->threads == 1);
}

TEST_CASE("region roofline: no FLOPs, no time, above the roof") {
  const Machine m = test::synthetic_machine();
  CounterMap bytes_only;
  bytes_only["bytes.dram.read"] = 100;
  CHECK_FALSE(region_roofline(metrics_from_counters(bytes_only), 1.0, 1, m).valid);
  CHECK_FALSE(region_roofline(daxpy_like(Width::k512), 0.0, 1, m).valid);
  // FLOP counters present but zero (an initialisation loop under sim): no
  // roof, rather than a 0 / 0 fraction.
  CounterMap zero_flops;
  zero_flops["flops.dp.scalar"] = 0;
  zero_flops["bytes.l1.write"] = 800;
  const RegionRoofline z = region_roofline(metrics_from_counters(zero_flops), 1.0, 1, m);
  CHECK_FALSE(z.valid);
  CHECK_THAT(z.why_not, Catch::Contains("0 FLOPs"));
  // 1e9 FLOPs in 1 ms: 1000 GFLOP/s, far above the 40 GFLOP/s bound.
  const RegionRoofline r = region_roofline(daxpy_like(Width::k512), 1e-3, 1, m);
  REQUIRE(r.valid);
  CHECK(r.fraction > 1);
  bool told = false;
  for (const std::string& n : r.notes) told |= n.find("above the bound") != std::string::npos;
  CHECK(told);
}

TEST_CASE("region roofline: precision-agnostic FLOPs and approximate traffic") {
  const Machine m = test::synthetic_machine();
  CounterMap c;
  c["flops.any"] = 1000000000;
  c["bytes.dram.read"] = 1000000000;
  Metrics mt = metrics_from_counters(c);
  mt.traffic[static_cast<int>(Boundary::kDRAM)].approximate = true;
  const RegionRoofline r = region_roofline(mt, 1.0, 1, m);
  REQUIRE(r.valid);
  CHECK(r.roof.precision == Precision::kSP);
  CHECK(r.roof.gflops == Approx(160));
  CHECK(r.at(Boundary::kDRAM)->approximate);
  CHECK(r.at(Boundary::kDRAM)->intensity == Approx(1));
}
