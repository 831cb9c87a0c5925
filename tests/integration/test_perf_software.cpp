// Real perf_event plumbing on any Linux machine, PMU or not: kernel software
// events through `rprof --backend=perf --events`. A region that touches P new
// pages counts at least P page faults on every thread, and the pages touched
// just outside it are not counted in it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "backends/perf/perf_probe.h"
#include "integration/harness.h"

using namespace rprof::test;

namespace {

constexpr int kThreads = 3;
constexpr long kPages = 256;

std::string app() { return std::string(RPROF_TEST_BIN_DIR) + "/apps/page_toucher"; }

void check_profile(const nlohmann::json& p, const std::string& faults) {
  const auto touch = find_region(p, "touch");
  const auto quiet = find_region(p, "quiet");
  REQUIRE(touch.is_object());
  REQUIRE(quiet.is_object());
  CHECK(touch["calls"] == kThreads);
  REQUIRE(touch["threads"].size() == kThreads);
  for (const auto& t : touch["threads"]) {
    INFO("touch, thread " << t["thread"]);
    const uint64_t n = t["counters"].at(faults).get<uint64_t>();
    CHECK(n >= static_cast<uint64_t>(kPages));
    CHECK(n < static_cast<uint64_t>(kPages + kPages / 2));  // not the 2P pages outside
  }
  for (const auto& t : quiet["threads"]) {
    INFO("quiet, thread " << t["thread"]);
    CHECK(t["counters"].at(faults).get<uint64_t>() <= 3);
  }
  CHECK(touch["counters"].at(faults).get<uint64_t>() >= static_cast<uint64_t>(kThreads * kPages));
}

}  // namespace

TEST_CASE("perf software events: page faults per region and thread") {
  if (!rprof::probe_perf_hardware().software_events) {
    std::cout << "SKIP: perf_event_open refuses even kernel software events here\n";
    std::exit(RPROF_SKIP_CODE);
  }
  auto r = run_rprof({"--backend=perf", "--events=page-faults,task-clock", app(),
                      std::to_string(kThreads), std::to_string(kPages)});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["backend"] == "perf");
  check_profile(p, "hw.g0.page-faults");
  // Software events are never multiplexed: enabled == running, and
  // task-clock (ns on CPU) is within the region's time.
  const auto touch = find_region(p, "touch");
  for (const auto& t : touch["threads"]) {
    const auto& c = t["counters"];
    CHECK(c.at("hw.g0.enabled_ns") == c.at("hw.g0.running_ns"));
    CHECK(c.at("hw.g0.task-clock").get<double>() <= t["time_s"].get<double>() * 1e9 * 1.05 + 1e5);
    CHECK(c.at("hw.g0.task-clock").get<uint64_t>() > 0);
  }
}

TEST_CASE("perf: unknown --events name is one line, exit 2, nothing run") {
  auto r = run_rprof({"--backend=perf", "--events=page-faults,nonsense_evt", app()});
  CHECK(r.status == 2);
  CHECK(r.err.find("rprof: --events: unknown event 'nonsense_evt'") == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
}

TEST_CASE("--events and --perf-multiplex need a hardware backend") {
  auto r = run_rprof({"--backend=time", "--events=page-faults", app()});
  CHECK(r.status == 2);
  CHECK(r.err == "rprof: --events and --perf-multiplex need --backend=perf, papi or likwid\n");
  r = run_rprof({"--backend=papi", "--perf-multiplex", app()});
  CHECK(r.status == 2);
  CHECK(r.err == "rprof: --perf-multiplex needs --backend=perf\n");
}
