// Samples built to earn each verdict, counted by the sim backend (times from
// the native run, ceilings from this machine's cached calibration). The
// fused/unfused pair is tested in test_fusion_sim.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;

namespace {

nlohmann::json verdict(const std::vector<std::string>& args, const std::string& region,
                       const std::vector<std::string>& env = {}) {
  auto r = run_rprof(args, env);
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  auto reg = find_region(p, region);
  REQUIRE(reg.is_object());
  REQUIRE(reg.contains("verdict"));
  INFO(reg["verdict"].dump(2));
  return reg["verdict"];
}

bool has_flag(const nlohmann::json& v, const std::string& name) {
  for (const auto& f : v["flags"]) {
    if (f["name"] == name) return true;
  }
  return false;
}

const nlohmann::json& flag(const nlohmann::json& v, const std::string& name) {
  for (const auto& f : v["flags"]) {
    if (f["name"] == name) return f;
  }
  FAIL("no flag " << name << " in " << v.dump());
  throw;
}

}  // namespace

TEST_CASE("stream triad: DRAM bandwidth-bound near the roof; pointer chase: latency-bound") {
  // 3 arrays of 4M doubles (96 MB) per sweep: far above the LLC.
  auto triad = verdict({"--backend=sim", sample("triad_avx2"), "4000000", "3"}, "triad");
  CHECK(triad["bound"] == "memory");
  CHECK(triad["boundary"] == "dram");
  CHECK_FALSE(has_flag(triad, "latency-bound"));
  // 64 MiB of 64-byte nodes visited in random order, one miss at a time.
  auto chase = verdict({"--backend=sim", sample("chase"), "1048576", "1000000"}, "chase");
  CHECK(chase["bound"] == "memory");
  CHECK(chase["boundary"] == "dram");
  REQUIRE(has_flag(chase, "latency-bound"));
  CHECK_THAT(flag(chase, "latency-bound")["reason"].get<std::string>(),
             Catch::Contains("Little's law"));
  // Near the roof is relative to the machine's load, both when the ceilings
  // were calibrated and now (other processes share DRAM on this VM): measured
  // here from 0.3 to 1.24 of the roof. Above 1 the report raises above-roof,
  // as it should: the simulated write-allocate read may be one the hardware
  // skips, or the ceiling was measured busy. So: a fifth of the roof at
  // least, and ten times the pointer chase's share of it.
  const double t = triad["fraction_of_roof"], c = chase["fraction_of_roof"];
  CHECK(t >= 0.2);
  CHECK(t > 10 * c);
}

TEST_CASE("cache-blocked matrix multiply: compute-bound; without vectors: low-vectorization") {
  auto v = verdict({"--backend=sim", sample("matmul"), "256", "32"}, "blocked");
  CHECK(v["bound"] == "compute");
  auto novec = verdict({"--backend=sim", sample("matmul_novec"), "256", "32"}, "blocked");
  CHECK(novec["bound"] == "compute");
  REQUIRE(has_flag(novec, "low-vectorization"));
  CHECK_THAT(flag(novec, "low-vectorization")["reason"].get<std::string>(),
             Catch::Contains("0% of FP instructions are packed"));
  // The same loop vectorized is not flagged.
  auto vec = verdict({"--backend=sim", sample("matmul_avx2"), "256", "32"}, "blocked");
  CHECK_FALSE(has_flag(vec, "low-vectorization"));
}

TEST_CASE("store-only stream with declared bytes: traffic-above-ideal from write-allocate") {
  // 12M doubles (96 MB): far above the LLC, so nearly every stored line is
  // read (write-allocate) and written back within the region.
  auto v = verdict({"--backend=sim", sample("store_stream"), "12000000", "2"}, "store");
  REQUIRE(has_flag(v, "traffic-above-ideal"));
  const auto& f = flag(v, "traffic-above-ideal");
  CHECK_THAT(f["direction"].get<std::string>(), Catch::Contains("write-allocate"));
  // 16 B measured per 8 B declared, within 15% (lines still dirty in the
  // LLC at the end of the region are written back later).
  const std::string reason = f["reason"];
  const double ratio = std::stod(reason.substr(reason.rfind(": ") + 2));
  CHECK(ratio == Approx(2.0).epsilon(0.15));
}

TEST_CASE("imbalanced OpenMP loop: load-imbalance") {
  if (!std::ifstream(sample("omp_imbalance"))) {
    WARN("SKIP: omp_imbalance not built (no OpenMP)");
    std::exit(RPROF_SKIP_CODE);
  }
  auto v = verdict({"--backend=time", sample("omp_imbalance"), "20000000"}, "work",
                   {"OMP_NUM_THREADS=2"});
  REQUIRE(has_flag(v, "load-imbalance"));
  CHECK_THAT(flag(v, "load-imbalance")["reason"].get<std::string>(),
             Catch::Contains("over 2 threads"));
}

TEST_CASE("a tiny region: too-short") {
  auto v = verdict({"--backend=time", sample("tiny"), "1000"}, "tiny");
  CHECK(has_flag(v, "too-short"));
  // A long region is not flagged.
  auto longer = verdict({"--backend=time", sample("chase"), "65536", "2000000"}, "chase");
  CHECK_FALSE(has_flag(longer, "too-short"));
}
