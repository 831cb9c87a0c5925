// Hardware counter values, scripted, through the real translation code
// (metrics_from_counters with the hardware translation): FLOPs by
// precision and width, Zen's precision-agnostic FLOPs, bytes per boundary,
// DRAM from uncore or its labelled stand-ins, and multiplex scaling.
#include <catch2/catch.hpp>

#include "hwcounters/event_tables.h"
#include "hwcounters/hw_metrics.h"
#include "profile/metrics.h"

using namespace rprof;

namespace {

Metrics metrics(const CounterMap& c) {
  return metrics_from_counters(c, hardware_translation);
}

// One never-multiplexed group: enabled == running.
CounterMap group(int g, const std::map<std::string, uint64_t>& events, uint64_t enabled = 1000,
                 uint64_t running = 1000) {
  CounterMap c;
  const std::string p = "hw.g" + std::to_string(g) + ".";
  for (const auto& [k, v] : events) c[p + k] = v;
  c[p + "enabled_ns"] = enabled;
  c[p + "running_ns"] = running;
  return c;
}

CounterMap join(CounterMap a, const CounterMap& b) {
  a.insert(b.begin(), b.end());
  return a;
}

double at(const Metrics& m, Precision p, Width w) {
  return m.flops[static_cast<int>(p)][static_cast<int>(w)];
}

}  // namespace

TEST_CASE("SPR DP FLOPs = SCALAR_D + 2*128B_PD + 4*256B_PD + 8*512B_PD") {
  const Metrics m = metrics(group(0, {{"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 1001},
                                      {"FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE", 303},
                                      {"FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE", 207},
                                      {"FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE", 59}}));
  REQUIRE(m.has_flops);
  CHECK_FALSE(m.precision_agnostic);
  CHECK(m.flops_of(Precision::kDP) == 1001 + 2 * 303 + 4 * 207 + 8 * 59);
  CHECK(at(m, Precision::kDP, Width::k512) == 8 * 59);
  CHECK(at(m, Precision::kDP, Width::k128) == 2 * 303);
  CHECK(m.flops_of(Precision::kSP) == 0);
  CHECK(m.widest_width() == Width::k512);
  CHECK(m.dominant_precision() == Precision::kDP);
  // Vector share counts instructions, not FLOPs: packed / (packed + scalar).
  REQUIRE(m.vector_share());
  CHECK(*m.vector_share() == Approx((303.0 + 207 + 59) / (1001.0 + 303 + 207 + 59)));
}

TEST_CASE("SP FLOPs use 4, 8 and 16 lanes -- both precisions add up") {
  const Metrics m = metrics(join(group(0, {{"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 10}}),
                                 group(1, {{"FP_ARITH_INST_RETIRED.SCALAR_SINGLE", 5},
                                           {"FP_ARITH_INST_RETIRED.128B_PACKED_SINGLE", 7},
                                           {"FP_ARITH_INST_RETIRED.256B_PACKED_SINGLE", 11},
                                           {"FP_ARITH_INST_RETIRED.512B_PACKED_SINGLE", 13}})));
  CHECK(m.flops_of(Precision::kSP) == 5 + 4 * 7 + 8 * 11 + 16 * 13);
  CHECK(m.flops_total() == 10 + 5 + 4 * 7 + 8 * 11 + 16 * 13);
  CHECK(m.dominant_precision() == Precision::kSP);
}

TEST_CASE("Zen 4 FLOPs are precision-agnostic: RETIRED_SSE_AVX_FLOPS as is") {
  const Metrics m = metrics(group(0, {{"RETIRED_SSE_AVX_FLOPS.ANY", 123457},
                                      {"cycles", 5000}, {"instructions", 7000}}));
  REQUIRE(m.has_flops);
  CHECK(m.precision_agnostic);
  CHECK(m.flops_total() == 123457);
  CHECK_FALSE(m.widest_width());
  CHECK_FALSE(m.dominant_precision());
  CHECK(m.cycles == 5000);
  CHECK(m.instructions == 7000);
  const CpuTable& zen4 = table_by_id("zen4");
  CHECK(zen4.precision_agnostic);
  bool says_so = false;
  for (const std::string& n : zen4.notes) says_so |= n.find("precision-agnostic") != std::string::npos;
  CHECK(says_so);
}

TEST_CASE("Skylake-SP bytes per boundary -- DRAM from LLC misses is labelled approximate") {
  const Metrics m = metrics(join(group(2, {{"L1D.REPLACEMENT", 100}, {"L1D.M_EVICT", 40},
                                           {"L2_LINES_IN.ALL", 70}, {"L2_TRANS.L2_WB", 30}}),
                                 group(3, {{"LONGEST_LAT_CACHE.MISS", 20}})));
  const Traffic& l2 = m.at(Boundary::kL2);
  REQUIRE(l2.measured);
  CHECK(l2.read_bytes == 64 * 100);
  CHECK(l2.write_bytes == 64 * 40);
  CHECK_FALSE(l2.approximate);
  const Traffic& llc = m.at(Boundary::kLLC);
  CHECK(llc.read_bytes == 64 * 70);
  CHECK(llc.write_bytes == 64 * 30);
  CHECK_FALSE(llc.approximate);
  const Traffic& dram = m.at(Boundary::kDRAM);
  REQUIRE(dram.measured);
  CHECK(dram.approximate);
  CHECK(dram.read_bytes == 64 * 20);   // LONGEST_LAT_CACHE.MISS
  CHECK(dram.write_bytes == 64 * 30);  // L2 write-backs, an upper bound
  CHECK(dram.note.find("last-level-cache misses") != std::string::npos);
  CHECK(dram.note.find("upper bound") != std::string::npos);
  CHECK_FALSE(m.at(Boundary::kL1).measured);  // no event for the core's own loads
}

TEST_CASE("DRAM from memory-controller counters wins over the stand-ins") {
  const Metrics m = metrics(join(group(2, {{"L2_TRANS.L2_WB", 30}}),
                                 join(group(3, {{"LONGEST_LAT_CACHE.MISS", 20}}),
                                      group(4, {{kUncoreDramRead, 1000}, {kUncoreDramWrite, 400}}))));
  const Traffic& dram = m.at(Boundary::kDRAM);
  CHECK(dram.read_bytes == 64 * 1000);
  CHECK(dram.write_bytes == 64 * 400);
  CHECK_FALSE(dram.approximate);
  CHECK(dram.note.empty());
}

TEST_CASE("Sapphire Rapids L2 traffic without write-backs is labelled") {
  const Metrics m = metrics(group(2, {{"L1D.REPLACEMENT", 10}, {"L2_LINES_IN.ALL", 4},
                                      {"L2_LINES_OUT.NON_SILENT", 3}}));
  const Traffic& l2 = m.at(Boundary::kL2);
  CHECK(l2.read_bytes == 640);
  CHECK(l2.write_bytes == 0);
  CHECK(l2.approximate);
  CHECK(l2.note.find("write-backs at L2 not counted") != std::string::npos);
  CHECK_FALSE(m.at(Boundary::kLLC).approximate);
}

TEST_CASE("Zen traffic: L2 and L3 reads with their notes, DRAM stand-in") {
  const Metrics m = metrics(join(
      group(0, {{"REQUESTS_TO_L2_GROUP1.DATA", 50}}),
      group(1, {{"L2_PREFETCH_HIT_L3.ALL", 5}, {"L2_PREFETCH_MISS_L3.ALL", 7},
                {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C", 11},
                {"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM", 2}})));
  CHECK(m.at(Boundary::kL2).read_bytes == 64 * 50);
  CHECK(m.at(Boundary::kL2).approximate);
  CHECK(m.at(Boundary::kLLC).read_bytes == 64 * (5 + 7 + 11));
  CHECK(m.at(Boundary::kLLC).approximate);
  CHECK(m.at(Boundary::kDRAM).read_bytes == 64 * (7 + 2));
  CHECK(m.at(Boundary::kDRAM).approximate);
  CHECK(m.at(Boundary::kDRAM).note.find("writes not counted") != std::string::npos);
}

TEST_CASE("Zen 3 data-fabric beats: DRAM, approximate, reads and writes together") {
  const Metrics m = metrics(group(5, {{kUncoreDfBeats, 300}}));
  CHECK(m.at(Boundary::kDRAM).read_bytes == 64 * 300);
  CHECK(m.at(Boundary::kDRAM).approximate);
  CHECK(m.at(Boundary::kDRAM).note.find("reads and writes together") != std::string::npos);
}

TEST_CASE("multiplex scaling: counts x enabled/running per group, lowest ratio reported") {
  // Group 0 ran a quarter of the time, group 1 all of it.
  const CounterMap c = join(
      group(0, {{"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 100}}, 4000, 1000),
      group(1, {{"L1D.REPLACEMENT", 30}}, 4000, 4000));
  const ScaledCounts sc = scale_hw_counters(c);
  CHECK(sc.counts.at("FP_ARITH_INST_RETIRED.SCALAR_DOUBLE") == 400);
  CHECK(sc.counts.at("L1D.REPLACEMENT") == 30);
  CHECK(sc.min_ratio == 0.25);
  const Metrics m = metrics(c);
  CHECK(m.flops_of(Precision::kDP) == 400);
  REQUIRE(m.multiplex_ratio);
  CHECK(*m.multiplex_ratio == 0.25);
  CHECK(m.at(Boundary::kL2).read_bytes == 64 * 30);
}

TEST_CASE("a group that never ran gives no counts, and ratio 0") {
  const CounterMap c = join(group(0, {{"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 0}}, 500, 0),
                            group(1, {{"cycles", 900}}));
  const Metrics m = metrics(c);
  CHECK_FALSE(m.has_flops);  // unknown, not zero
  CHECK(m.cycles == 900);
  CHECK(m.multiplex_ratio == 0.0);
}

TEST_CASE("miss occupancy = pending misses / cycles with one pending") {
  const Metrics m = metrics(group(3, {{"L1D_PEND_MISS.PENDING", 9000},
                                      {"L1D_PEND_MISS.PENDING_CYCLES", 3000}}));
  REQUIRE(m.miss_occupancy);
  CHECK(*m.miss_occupancy == 3.0);
}

TEST_CASE("canonical counters win -- unknown user events are ignored") {
  CounterMap c = group(0, {{"L1D.REPLACEMENT", 100}, {"page-faults", 12}});
  c["bytes.l2.read"] = 77;
  const Metrics m = metrics(c);
  CHECK(m.at(Boundary::kL2).read_bytes == 77);
  CHECK_FALSE(m.has_flops);
  Metrics none;
  CHECK_FALSE(hardware_translation({{"bytes.l2.read", 1}}, none));  // no hw.* counters
}

// rprof's cache model beside hardware counters (the perf runtime's model.*
// counters for an instrumented program): the hardware keeps the boundaries
// it counts, the model fills the others and replaces a stand-in, and each
// boundary says where its number came from.
TEST_CASE("cache model beside hardware: hardware wins where it counts, the model fills DRAM") {
  const CounterMap hw = join(group(2, {{"L1D.REPLACEMENT", 100}, {"L1D.M_EVICT", 40},
                                       {"L2_LINES_IN.ALL", 70}, {"L2_TRANS.L2_WB", 30}}),
                             group(3, {{"LONGEST_LAT_CACHE.MISS", 20}}));
  CounterMap c = hw;
  c["model.bytes.l2.read"] = 999;  // the hardware counts L2 and LLC: never used
  c["model.bytes.l2.write"] = 999;
  c["model.bytes.llc.read"] = 999;
  c["model.bytes.llc.write"] = 999;
  c["model.bytes.dram.read"] = 6400;
  c["model.bytes.dram.write"] = 128;
  const Metrics m = metrics(c);
  const Traffic& l2 = m.at(Boundary::kL2);
  CHECK(l2.read_bytes == 64 * 100);
  CHECK(l2.write_bytes == 64 * 40);
  CHECK_FALSE(l2.model);
  CHECK(l2.source == "hardware events L1D.M_EVICT, L1D.REPLACEMENT");
  const Traffic& llc = m.at(Boundary::kLLC);
  CHECK(llc.read_bytes == 64 * 70);
  CHECK(llc.source == "hardware events L2_LINES_IN.ALL, L2_TRANS.L2_WB");
  const Traffic& dram = m.at(Boundary::kDRAM);
  REQUIRE(dram.measured);
  CHECK(dram.model);
  CHECK_FALSE(dram.approximate);
  CHECK(dram.read_bytes == 6400);
  CHECK(dram.write_bytes == 128);
  CHECK(dram.source ==
        "rprof's cache model, every access simulated (--sample full) (in place of hardware "
        "events L2_TRANS.L2_WB, LONGEST_LAT_CACHE.MISS: an approximation)");
  // Without the model: the stand-in, as before, and no model anywhere.
  const Metrics h = metrics(hw);
  CHECK(h.at(Boundary::kDRAM).stand_in);
  CHECK(h.at(Boundary::kDRAM).approximate);
  CHECK(h.at(Boundary::kDRAM).read_bytes == 64 * 20);
  CHECK_FALSE(h.at(Boundary::kDRAM).model);
}

TEST_CASE("cache model beside hardware: a boundary no event counts, sampled estimate") {
  // Only FLOP events; the model's sampled sums: 20 units, x = 64 bytes each
  // (1 line), y = 1 line read at every boundary below L1 in each: ratio 1,
  // no variance; the program's exact L1 bytes 10,000.
  CounterMap c = group(0, {{"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 5}});
  c["model.bytes.l1.read"] = 8000;
  c["model.bytes.l1.write"] = 2000;
  c["model.sample.units"] = 20;
  c["model.sample.l1"] = 20 * 64;
  c["model.sample.l1.sq"] = 20;
  for (const char* b : {"l2", "llc", "dram"}) {
    const std::string k = std::string("model.sample.") + b;
    c[k + ".read"] = 20 * 64;
    c[k + ".write"] = 0;
    c[k + ".sq"] = 20;
    c[k + ".xy"] = 20;
  }
  const Metrics m = metrics(c);
  CHECK(m.flops_total() == 5);
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    const Traffic& t = m.at(b);
    INFO(boundary_name(b));
    REQUIRE(t.measured);
    CHECK(t.model);
    CHECK(t.read_bytes == Approx(10000));
    // No variance: the half-width is the sample's resolution, 3 lines per
    // sampled byte times the L1 bytes.
    CHECK(t.ci95_bytes == Approx(3 * 64.0 / (20 * 64) * 10000));
    CHECK(t.source == "rprof's cache model, sampled (20 units)");
  }
  // Too few units (4 < kMinSampledUnits): no estimate; where the hardware
  // has a stand-in it stays.
  CounterMap few = join(c, group(3, {{"LONGEST_LAT_CACHE.MISS", 20}}));
  few["model.sample.units"] = 4;
  const Metrics f = metrics(few);
  CHECK_FALSE(f.at(Boundary::kL2).measured);
  CHECK(f.at(Boundary::kL2).model);
  CHECK(f.at(Boundary::kL2).note.find("not estimated: 4 sampling units") == 0);
  CHECK(f.at(Boundary::kDRAM).measured);
  CHECK(f.at(Boundary::kDRAM).stand_in);
  CHECK_FALSE(f.at(Boundary::kDRAM).model);
  CHECK(f.at(Boundary::kDRAM).read_bytes == 64 * 20);
}
