// Helpers shared by the sim tests that check rprof's counts against an
// independent reference (issue 18): skipping where the simulator cannot run,
// a hermetic environment (a machine file of the test's own, every cache level
// pinned), and reading counters out of profile.json.
#ifndef RPROF_TESTS_SIM_SIM_CHECKS_H_
#define RPROF_TESTS_SIM_SIM_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "integration/harness.h"

namespace rprof::test {

// Exits with RPROF_SKIP_CODE, saying why, when this build cannot simulate
// (no sim backend, or sanitized: such a runtime cannot run under Valgrind).
void require_sim_backend();

// "RPROF_MACHINE_FILE=<file>": the recorded default machine's file (the
// harness's default too), so that no test calibrates or reads the user's
// cache. It gives the reports a roofline; the simulated geometry of sim_run
// always comes from --sim-cache.
const std::string& test_machine_env();

// The path of a program built in tests/sim.
std::string sim_test_program(const std::string& name);

// `rprof --backend=sim --sim-only -q --sim-cache <caches> cmd...`: the profile.
// `caches` must pin all three levels (l1, l2, llc), or the geometry would
// come from the machine the test runs on.
nlohmann::json sim_run(const std::vector<std::string>& cmd, const std::string& caches);

// A counter of a region (0 when absent).
uint64_t counter_of(const nlohmann::json& region, const std::string& name);
// All FLOPs of a region, every precision and width.
uint64_t all_flops(const nlohmann::json& region);

}  // namespace rprof::test

#endif  // RPROF_TESTS_SIM_SIM_CHECKS_H_
