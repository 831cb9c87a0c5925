// The papi backend's plumbing with a kernel software event (PAPI's perf_event
// component, no PMU needed): same page-fault check as for perf.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "integration/harness.h"

using namespace rprof::test;

TEST_CASE("papi: perf::PAGE-FAULTS per region and thread") {
#if !defined(RPROF_HAVE_PAPI)
  skip_test("the papi backend is not built (papi.h was not found)");
#endif
  const std::string app = std::string(RPROF_TEST_BIN_DIR) + "/apps/page_toucher";
  auto r = run_rprof({"--backend=papi", "--events=perf::PAGE-FAULTS", app, "3", "256"});
  if (r.status != 0 && r.err.find("PAPI is not installed") != std::string::npos) {
    skip_test(r.err.substr(0, r.err.find('\n')));
  }
  // PAPI's perf_event component disables itself where libpfm4 finds no PMU
  // (a VM without one): then PAPI counts no kernel software event either.
  if (r.err.find("PAPI cannot add event perf::PAGE-FAULTS") != std::string::npos) {
    const auto doctor = run_command({RPROF_BIN, "doctor"});
    if (doctor.out.find("Component containing event is disabled") != std::string::npos) {
      skip_test("PAPI's perf_event component is disabled on this machine (no PMU), so PAPI "
                "cannot count kernel software events: " + r.err.substr(0, r.err.find('\n')));
    }
  }
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["backend"] == "papi");
  const auto touch = find_region(p, "touch");
  REQUIRE(touch.is_object());
  REQUIRE(touch["threads"]["rows"] == 3);
  for (const auto& n : touch["threads"]["counters"].at("hw.g0.perf..PAGE-FAULTS")) {
    CHECK(n.get<uint64_t>() >= 256u);
    CHECK(n.get<uint64_t>() < 384u);
  }
  const auto quiet = find_region(p, "quiet");  // a copy: keep it alive while iterating
  for (const auto& n : quiet["threads"]["counters"].at("hw.g0.perf..PAGE-FAULTS")) {
    CHECK(n.get<uint64_t>() <= 16u);  // not the 512 pages touched just before it
  }
}
