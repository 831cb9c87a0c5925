// `rprof doctor` on the recorded machines of the issue-32 tables (through
// RPROF_SYSROOT): the event table it prints is the recorded CPU's, with each
// event's encoding, the formula it feeds and its sources. Run pinned to CPU
// 0 (taskset) so the hybrid check sees the same affinity on every host.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

using namespace rprof::test;

namespace {

nlohmann::json doctor_json(const std::string& machine) {
  auto r = run_command({"/usr/bin/taskset", "-c", "0", RPROF_BIN, "doctor", "--json"},
                       machine_env(machine));
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out).at("table");
}

const nlohmann::json* find_event(const nlohmann::json& table, const std::string& key) {
  for (const auto& run : table["runs"]) {
    for (const auto& e : run) {
      if (e["event"] == key) return &e;
    }
  }
  return nullptr;
}

bool feeds_contains(const nlohmann::json& e, const std::string& text) {
  for (const auto& f : e["feeds"]) {
    if (f.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("doctor on recorded zen5-turin: the zen5 table, 0x0f03 FLOPs, MERGE-free key") {
  const auto t = doctor_json("zen5-turin");
  CHECK(t["id"] == "zen5");
  CHECK(t["perf_arch"] == "amdzen5");
  REQUIRE(t["runs"].size() == 2);
  CHECK(t["runs"][0].size() == 4);
  CHECK(t["runs"][1].size() == 4);
  const auto* f = find_event(t, "RETIRED_SSE_AVX_FLOPS.ANY");
  REQUIRE(f != nullptr);
  CHECK((*f)["config"] == 0x0f03);
  CHECK((*f)["encoding"] == "raw 0xf03");
  CHECK((*f)["perf_json"] == "fp_ret_sse_avx_ops.all");
  CHECK(feeds_contains(*f, "FLOPs (SP+DP together) += count (FMA = 2 FLOPs)"));
  const auto* d = find_event(t, "ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM");
  REQUIRE(d != nullptr);
  CHECK((*d)["config"] == 0x4844);
  CHECK(feeds_contains(*d, "bytes DRAM read ~ 64 x count"));
}

TEST_CASE("doctor on recorded zen2-rome: the zen2 table with its own DRAM fill event") {
  const auto t = doctor_json("zen2-rome");
  CHECK(t["id"] == "zen2");
  const auto* d = find_event(t, "DATA_CACHE_REFILLS_FROM_SYSTEM.DRAM");
  REQUIRE(d != nullptr);
  CHECK((*d)["config"] == 0x4843);
  const auto* p = find_event(t, "L2_PREFETCH_MISS_L3.ALL");
  REQUIRE(p != nullptr);
  CHECK((*p)["config"] == 0x1f72);
  CHECK(feeds_contains(*p, "bytes LLC read += 64 x count"));
}

TEST_CASE("doctor on recorded granite-rapids and alder-lake: FP_ARITH formulas per width") {
  const auto g = doctor_json("granite-rapids");
  CHECK(g["id"] == "gnr");
  const auto* w = find_event(g, "FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE");
  REQUIRE(w != nullptr);
  CHECK((*w)["config"] == 0x40c7);
  CHECK(feeds_contains(*w, "DP FLOPs += 8 x count (512-bit; FMA counted twice: FMA = 2 FLOPs)"));
  const auto a = doctor_json("alder-lake");
  CHECK(a["id"] == "adl");
  CHECK(a["hybrid"] == true);
  CHECK(a["hybrid_refusal"] == "");  // pinned to CPU 0, a performance core
  CHECK(find_event(a, "FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE") == nullptr);  // no AVX-512
  const auto* p = find_event(a, "L1D_PEND_MISS.PENDING_CYCLES");
  REQUIRE(p != nullptr);
  CHECK((*p)["config"] == 0x01000148);
  // The text form: the recorded CPU, one line per event with its encoding.
  auto r = run_command({"/usr/bin/taskset", "-c", "0", RPROF_BIN, "doctor"},
                       machine_env("alder-lake"));
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Event table for 12th Gen Intel(R) Core(TM) i9-12900K (family 6, model 151)") !=
        std::string::npos);
  CHECK(r.out.find("FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE") != std::string::npos);
  CHECK(r.out.find("raw 0x10c7") != std::string::npos);
  CHECK(r.out.find("note: hybrid CPU") != std::string::npos);
}
