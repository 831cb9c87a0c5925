// Real perf_event plumbing on any Linux machine, PMU or not: kernel software
// events through `rprof --backend=perf --events`. A region that touches P new
// pages counts at least P page faults on every thread, and the pages touched
// just outside it are not counted in it.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "hwcounters/perf_probe.h"
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
  // Per-thread rows are stored by column: threads.counters[name][row].
  REQUIRE(touch["threads"]["rows"] == kThreads);
  for (const auto& n : touch["threads"]["counters"].at(faults)) {
    CHECK(n.get<uint64_t>() >= static_cast<uint64_t>(kPages));
    CHECK(n.get<uint64_t>() < static_cast<uint64_t>(kPages + kPages / 2));  // not the 2P outside
  }
  // "quiet" touches no new page; the 2P pages touched just before it must
  // not show up (a sanitizer's shadow memory may add a handful of faults).
  REQUIRE(quiet["threads"]["rows"] == kThreads);
  for (const auto& n : quiet["threads"]["counters"].at(faults)) CHECK(n.get<uint64_t>() <= kPages / 16);
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
  const auto rows = find_region(p, "touch")["threads"];
  const auto& c = rows["counters"];
  for (int i = 0; i < kThreads; ++i) {
    CHECK(c.at("hw.g0.enabled_ns")[i] == c.at("hw.g0.running_ns")[i]);
    const double ns = c.at("hw.g0.task-clock")[i].get<double>();
    CHECK(ns > 0);
    CHECK(ns <= rows["time_s"][i].get<double>() * 1e9 * 1.05 + 1e5);
  }
}

TEST_CASE("perf: unknown --events name is one line, exit 2, nothing run") {
  auto r = run_rprof({"--backend=perf", "--events=page-faults,nonsense_evt", app()});
  CHECK(r.status == 2);
  CHECK(r.err.find("rprof: --events: unknown event 'nonsense_evt'") == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
}

TEST_CASE("perf: --events and --perf-multiplex need a hardware backend") {
  auto r = run_rprof({"--backend=time", "--events=page-faults", app()});
  CHECK(r.status == 2);
  CHECK(r.err == "rprof: --events and --perf-multiplex need --backend=perf, papi or likwid\n");
  r = run_rprof({"--backend=papi", "--perf-multiplex", app()});
  CHECK(r.status == 2);
  CHECK(r.err == "rprof: --perf-multiplex needs --backend=perf\n");
}

TEST_CASE("two event groups: two runs merged per region -- or one multiplexed run") {
  auto r = run_rprof({"--backend=perf", "--events=page-faults;task-clock", app(),
                      std::to_string(kThreads), std::to_string(kPages)});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("rprof: run 1 of 2 (page-faults)") != std::string::npos);
  CHECK(r.err.find("rprof: run 2 of 2 (task-clock)") != std::string::npos);
  CHECK(std::filesystem::exists(r.dir + "/raw/pass2"));
  auto p = load_json(r.dir + "/profile.json");
  check_profile(p, "hw.g0.page-faults");
  const auto touch = find_region(p, "touch");  // a copy: keep it alive while iterating
  for (const auto& ns : touch["threads"]["counters"].at("hw.g1.task-clock")) {
    CHECK(ns.get<uint64_t>() > 0);
  }
  bool ran_twice = false;
  for (const auto& n : p["notes"]) ran_twice |= n.get<std::string>().find("the program ran 2 times") == 0;
  CHECK(ran_twice);

  r = run_rprof({"--backend=perf", "--perf-multiplex", "--events=page-faults;task-clock", app(),
                 std::to_string(kThreads), std::to_string(kPages)});
  REQUIRE(r.status == 0);
  CHECK(r.err.find("run 1 of") == std::string::npos);
  p = load_json(r.dir + "/profile.json");
  check_profile(p, "hw.g0.page-faults");
  CHECK(find_region(p, "touch")["counters"].contains("hw.g1.task-clock"));
}

TEST_CASE("runs that differ are named in a note (determinism check)") {
  const std::string state = fresh_path("pass-state");
  const std::string counter_app = std::string(RPROF_TEST_BIN_DIR) + "/apps/pass_counter";
  auto r = run_rprof({"--backend=perf", "--events=page-faults;task-clock", counter_app, state});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "r")["calls"] == 1);  // the first run's
  std::string note;
  for (const auto& n : p["notes"]) {
    if (n.get<std::string>().find("not deterministic") != std::string::npos) note = n;
  }
  CHECK(note.find("'r' 1 calls in run 1, 2 in run 2") != std::string::npos);
  CHECK(note.find("'same'") == std::string::npos);
}
