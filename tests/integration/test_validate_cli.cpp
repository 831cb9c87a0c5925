// `rprof validate`: without usable hardware counters it says why and exits
// 2 (this project's machines: checked where the probe fails, skipped with
// the reason where a PMU exists); on two saved profiles (scripted Zen 5
// hardware counts, exact canonical counts) it prints each relation and
// exits 0 when they agree, 1 when one disagrees.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "hwcounters/perf_probe.h"
#include "integration/harness.h"
#include "profile/profile_json.h"

using namespace rprof::test;

namespace {

rprof::Region region(const rprof::CounterMap& c) {
  rprof::Region r;
  r.name = "triad";
  r.path = {"triad"};
  r.calls = 1;
  r.time_s = r.exclusive_time_s = r.thread_time_s = 0.1;
  r.counters = r.exclusive_counters = c;
  rprof::ThreadRow t;
  t.calls = 1;
  t.time_s = 0.1;
  t.counters = c;
  r.threads.push_back(t);
  return r;
}

std::string save(const std::string& dir, const std::string& name, const std::string& backend,
                 const rprof::CounterMap& c) {
  rprof::Profile p;
  p.run.command = {"./triad"};
  p.run.backend = backend;
  p.run.threads = 1;
  p.run.processes = 1;
  p.run.wall_time_s = 0.1;
  p.regions.push_back(region(c));
  for (const auto& kv : c) p.counters.push_back(kv.first);
  const std::string path = dir + "/" + name + ".json";
  std::ofstream(path) << rprof::profile_json_text(p);
  return path;
}

rprof::CounterMap zen5(uint64_t flops) {
  return {{"hw.g0.RETIRED_SSE_AVX_FLOPS.ANY", flops},
          {"hw.g0.REQUESTS_TO_L2_GROUP1.DATA", 37500000},
          {"hw.g0.enabled_ns", 1000},
          {"hw.g0.running_ns", 1000}};
}

}  // namespace

TEST_CASE("validate without hardware counters: the reason, exit 2") {
  const rprof::HardwareProbe probe = rprof::probe_perf_hardware();
  if (probe.ok && probe.table_works && probe.table_id != "generic") {
    std::cout << "SKIP: this machine has usable hardware counters (" << probe.table_id << ")\n";
    std::exit(RPROF_SKIP_CODE);
  }
  auto r = run_tool({"validate", sample("triad"), "1000", "1"});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("rprof validate: cannot check hardware counters here: ") == 0);
  if (!probe.ok) CHECK(r.err.find(probe.reason) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("validate on saved profiles: agreement exits 0, FLOPs at half exits 1") {
  const std::string dir = std::filesystem::temp_directory_path() / "rprof-validate-cli-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string exact =
      save(dir, "exact", "sim", {{"flops.dp.256", 200000000}, {"bytes.l2.read", 2400000000}});
  const std::string good = save(dir, "good", "perf", zen5(200000000));
  const std::string half = save(dir, "half", "perf", zen5(100000000));
  auto ok = run_tool({"validate", "--hardware", good, "--exact", exact});
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("ratio 1.000 (expected equal within 2%): agrees") != std::string::npos);
  CHECK(ok.out.find("2 agree, 0 disagree") != std::string::npos);
  auto bad = run_tool({"validate", "--hardware", half, "--exact", exact, "--json"});
  CHECK(bad.status == 1);
  const auto j = nlohmann::json::parse(bad.out);
  CHECK(j["disagreements"] == 1);
  CHECK(j["rows"][0]["quantity"] == "FLOPs");
  CHECK(j["rows"][0]["ratio"] == Approx(0.5));
  CHECK(j["rows"][0]["state"] == "DISAGREES");
  auto usage = run_tool({"validate", "--hardware", good});
  CHECK(usage.status == 2);
  CHECK(usage.err.find("--hardware and --exact go together") != std::string::npos);
  std::filesystem::remove_all(dir);
}
