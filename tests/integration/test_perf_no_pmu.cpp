// On a machine without usable hardware counters (this project's VMs):
// `rprof --backend=perf ./app` stops before running anything, exit 1, with
// the probe's one-line reason and what to do; papi and likwid too.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "hwcounters/perf_probe.h"
#include "integration/harness.h"

using namespace rprof::test;

TEST_CASE("no PMU: --backend=perf exits non-zero with the explanation") {
  const rprof::HardwareProbe probe = rprof::probe_perf_hardware();
  if (probe.ok) {
    std::cout << "SKIP: this machine has hardware counters (test_perf_hardware uses them)\n";
    std::exit(RPROF_SKIP_CODE);
  }
  auto r = run_rprof({"--backend=perf", sample("triad"), "1000", "1"});
  CHECK(r.status == 1);
  CHECK(r.err == "rprof: " + probe.line() + "\n");
  CHECK(r.err.find("(perf_event_open: ") != std::string::npos);
  CHECK(r.err.find("--backend=sim") != std::string::npos);
  CHECK(r.out.empty());  // the app never ran
  CHECK_FALSE(std::filesystem::exists(r.dir));
  for (const char* b : {"--backend=papi", "--backend=likwid"}) {
    INFO(b);
    auto lib = run_rprof({b, sample("triad"), "1000", "1"});
    CHECK(lib.status == 1);
    CHECK(lib.err.find("rprof: " + std::string(b) + ": ") == 0);
    CHECK(std::count(lib.err.begin(), lib.err.end(), '\n') == 1);
    CHECK(lib.out.empty());
  }
}

TEST_CASE("doctor: every backend, works or the reason and what to do") {
  const rprof::HardwareProbe probe = rprof::probe_perf_hardware();
  auto r = run_command({RPROF_BIN, "doctor", "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& b : j["backends"]) by_name[b["backend"]] = b;
  for (const char* b : {"time", "sim", "perf", "papi", "likwid"}) {
    INFO(b);
    REQUIRE(by_name.count(b) == 1);
    CHECK_FALSE(by_name[b]["why"].get<std::string>().empty());
    if (!by_name[b]["works"].get<bool>()) CHECK_FALSE(by_name[b]["fix"].get<std::string>().empty());
  }
  CHECK(by_name["time"]["works"] == true);
  CHECK(by_name["perf"]["works"] == (probe.ok && probe.table_works));
  if (!probe.ok) {
    CHECK(by_name["perf"]["why"] == probe.reason);
    CHECK(by_name["perf"]["fix"] == probe.fix);
  }
  CHECK(j["event_table"] == probe.table_id);
  // The text form says the same, one backend per line.
  auto t = run_command({RPROF_BIN, "doctor"});
  REQUIRE(t.status == 0);
  CHECK(t.out.find("perf    " + std::string(probe.ok ? "works" : "no   ")) != std::string::npos);
  if (!probe.ok) CHECK(t.out.find(probe.reason) != std::string::npos);
  CHECK(t.out.find("Best here: --backend=") != std::string::npos);
}
