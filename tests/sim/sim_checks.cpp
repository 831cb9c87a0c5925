#include "sim_checks.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

namespace rprof::test {

void require_sim_backend() {
#if !defined(RPROF_TEST_HAVE_SIM)
  skip_test("this build has no sim backend (valgrind not installed)");
#elif defined(RPROF_TEST_SANITIZED)
  skip_test("a sanitized runtime cannot run under Valgrind");
#endif
}

const std::string& test_machine_env() {
  static const std::string env = "RPROF_MACHINE_FILE=" + machine_file(default_machine());
  return env;
}

std::string sim_test_program(const std::string& name) {
  return std::string(RPROF_SIM_TEST_BIN_DIR) + "/" + name;
}

nlohmann::json sim_run(const std::vector<std::string>& cmd, const std::string& caches) {
  for (const char* level : {"l1=", "l2=", "llc="}) REQUIRE(caches.find(level) != std::string::npos);
  std::vector<std::string> args = {"--backend=sim", "--sim-only", "-q", "--sim-cache", caches};
  args.insert(args.end(), cmd.begin(), cmd.end());
  const RunResult r = run_rprof(args, {test_machine_env()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return load_json(r.dir + "/profile.json");
}

uint64_t counter_of(const nlohmann::json& region, const std::string& name) {
  REQUIRE(region.is_object());
  const nlohmann::json& c = region.at("counters");
  return c.contains(name) ? c.at(name).get<uint64_t>() : 0;
}

uint64_t all_flops(const nlohmann::json& region) {
  uint64_t s = 0;
  for (const char* p : {"sp", "dp"}) {
    for (const char* w : {"scalar", "128", "256"}) {
      s += counter_of(region, std::string("flops.") + p + "." + w);
    }
  }
  return s;
}

}  // namespace rprof::test
