// rprof validate's comparison (lib/analysis/validate.h) with scripted
// counts: a Zen 5 hardware profile (hw.g* events, as the perf backend writes
// them) against an exact one (canonical counters, as sim writes them), one
// that agrees, one that disagrees (FLOPs at half, the LIKWID #767 failure
// on Zen 5; DRAM below the model), one with counts missing or too small.
#include <catch2/catch.hpp>

#include "analysis/validate.h"

using namespace rprof;

namespace {

Region region(const std::string& name, CounterMap counters) {
  Region r;
  r.name = name;
  r.path = {name};
  r.calls = 1;
  r.time_s = r.exclusive_time_s = r.thread_time_s = 0.1;
  r.counters = counters;
  r.exclusive_counters = counters;
  return r;
}

Profile profile(std::vector<Region> regions, const std::string& backend) {
  Profile p;
  p.run.backend = backend;
  p.run.threads = 1;
  p.regions = std::move(regions);
  return p;
}

// The exact side: 2e8 DP FLOPs, 3.75e7 lines read at L2, LLC and DRAM.
Profile exact() {
  const uint64_t bytes = 64 * 37500000ull;
  return profile({region("triad", {{"flops.dp.256", 200000000},
                                    {"bytes.l2.read", bytes},
                                    {"bytes.llc.read", bytes},
                                    {"bytes.dram.read", bytes}})},
                 "sim");
}

// Zen 5 events: FLOPs, L2 data requests, LLC = demand misses + prefetch
// hits + prefetch misses, DRAM ~ prefetch misses + fills from DRAM.
Profile zen5(double flops, double l2_lines, double llc_lines, double dram_lines) {
  return profile({region("triad", {{"hw.g0.RETIRED_SSE_AVX_FLOPS.ANY", static_cast<uint64_t>(flops)},
                                    {"hw.g0.REQUESTS_TO_L2_GROUP1.DATA", static_cast<uint64_t>(l2_lines)},
                                    {"hw.g0.enabled_ns", 1000},
                                    {"hw.g0.running_ns", 1000},
                                    {"hw.g1.CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                                     static_cast<uint64_t>(llc_lines / 2)},
                                    {"hw.g1.L2_PREFETCH_HIT_L3.ALL", 0},
                                    {"hw.g1.L2_PREFETCH_MISS_L3.ALL", static_cast<uint64_t>(llc_lines / 2)},
                                    {"hw.g1.ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM",
                                     static_cast<uint64_t>(dram_lines - llc_lines / 2)},
                                    {"hw.g1.enabled_ns", 1000},
                                    {"hw.g1.running_ns", 1000}})},
                 "perf");
}

const ValidationRow& row(const Validation& v, const std::string& quantity) {
  for (const ValidationRow& r : v.rows) {
    if (r.quantity == quantity) return r;
  }
  FAIL("no row " << quantity);
  return v.rows.front();
}

}  // namespace

TEST_CASE("validate: scripted counts that agree -- every relation holds") {
  // FLOPs +1%, L2 +10%, LLC +30% (L2 prefetch), DRAM +50% (prefetch).
  const Validation v = validate_profiles(zen5(2.02e8, 4.125e7, 4.875e7, 5.625e7), exact());
  CHECK(v.agreements == 4);
  CHECK(v.disagreements == 0);
  CHECK(row(v, "FLOPs").ratio == Approx(1.01));
  CHECK(row(v, "bytes L2 read").ratio == Approx(1.10));
  CHECK(row(v, "bytes LLC read").ratio == Approx(1.30));
  CHECK(row(v, "bytes DRAM read").ratio == Approx(1.50));
  CHECK(row(v, "bytes DRAM read").relation == "at least 90% of the model's, at most 2x (prefetch)");
}

TEST_CASE("validate: scripted counts that disagree -- FLOPs at half, DRAM under the model") {
  const Validation v = validate_profiles(zen5(1.0e8, 3.75e7, 3.75e7, 3.0e7), exact());
  CHECK(v.disagreements == 2);
  CHECK(v.agreements == 2);
  CHECK(row(v, "FLOPs").state == ValidationState::kDisagrees);
  CHECK(row(v, "FLOPs").ratio == Approx(0.5));
  CHECK(row(v, "bytes DRAM read").state == ValidationState::kDisagrees);
  CHECK(row(v, "bytes DRAM read").ratio == Approx(0.8));
  // Just outside each bound disagrees; just inside agrees.
  CHECK(validate_profiles(zen5(1.95e8, 3.75e7, 3.75e7, 3.75e7), exact()).disagreements == 1);
  CHECK(validate_profiles(zen5(1.99e8, 3.75e7, 3.75e7, 3.75e7), exact()).disagreements == 0);
  CHECK(validate_profiles(zen5(2e8, 4.8e7, 3.75e7, 3.75e7), exact()).disagreements == 1);  // L2 +28%
  CHECK(validate_profiles(zen5(2e8, 3.75e7, 3.75e7, 7.6e7), exact()).disagreements == 1);  // DRAM 2.03x
}

TEST_CASE("validate: counts missing or too small are not compared, never agreements") {
  Profile hw = zen5(2e8, 3.75e7, 3.75e7, 3.75e7);
  hw.regions[0].counters.erase("hw.g0.REQUESTS_TO_L2_GROUP1.DATA");
  hw.regions.push_back(region("tiny", {{"hw.g0.RETIRED_SSE_AVX_FLOPS.ANY", 10},
                                       {"hw.g0.enabled_ns", 1},
                                       {"hw.g0.running_ns", 1}}));
  hw.regions.push_back(region("elsewhere", {{"hw.g0.RETIRED_SSE_AVX_FLOPS.ANY", 5000000},
                                            {"hw.g0.enabled_ns", 1},
                                            {"hw.g0.running_ns", 1}}));
  Profile ex = exact();
  ex.regions.push_back(region("tiny", {{"flops.dp.scalar", 10}}));
  const Validation v = validate_profiles(hw, ex);
  CHECK(v.agreements == 3);
  CHECK(v.disagreements == 0);
  int not_compared = 0;
  for (const ValidationRow& r : v.rows) {
    if (r.state != ValidationState::kNotCompared) continue;
    ++not_compared;
    INFO(r.region << " " << r.quantity << ": " << r.why);
    CHECK_FALSE(r.why.empty());
  }
  // triad L2; tiny FLOPs (too small) and its three byte rows; elsewhere (no exact region).
  CHECK(not_compared == 1 + 4 + 1);
}
