// OpenMP regions whole and CPU time per region with the time backend
// (docs/openmp.md): no simulator needed, so these run everywhere the
// compiler has OpenMP. Ratios, not durations: nothing here times anything.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json omp_triad(const std::vector<std::string>& args) {
  if (!fs::exists(sample("omp_triad"))) skip_test("omp_triad not built (the compiler has no OpenMP)");
  std::vector<std::string> cmd = {"--backend=time", sample("omp_triad")};
  cmd.insert(cmd.end(), args.begin(), args.end());
  const RunResult r = run_rprof(cmd, {"OMP_NUM_THREADS=2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return load_json(r.dir + "/profile.json");
}

}  // namespace

TEST_CASE("OpenMP: the team threads of a marked parallel loop are the region's threads") {
  const json p = omp_triad({"200000", "3", "outside"});
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  CHECK(t["calls"] == 3);
  CHECK(t["threads"]["rows"] == 2);
  std::vector<uint64_t> calls = t["threads"]["calls"].get<std::vector<uint64_t>>();
  std::sort(calls.begin(), calls.end());
  CHECK(calls == std::vector<uint64_t>{0, 3});  // the team adds no call
  CHECK(p["run"]["threads"] == 2);
  CHECK(p["errors"].empty());
  CHECK(t["complete"] == true);
}

TEST_CASE("OpenMP: a region whose threads sleep has CPU time far below its wall time") {
  // Every thread sleeps 0.2 s a rep: the CPU time of each, summed, is a small
  // fraction of the threads' time in the region.
  const json p = omp_triad({"1000", "2", "sleep"});
  const json s = find_region(p, "sleep");
  REQUIRE(s.is_object());
  REQUIRE(s.contains("cpu_time_s"));
  const double thread_time = s["thread_time_s"].get<double>();
  REQUIRE(thread_time > 0);
  CHECK(s["threads"]["rows"] == 2);
  CHECK(s["cpu_time_s"].get<double>() < 0.1 * thread_time);
  double rows = 0;
  for (const auto& v : s["threads"]["cpu_time_s"]) rows += v.get<double>();
  CHECK(rows == Approx(s["cpu_time_s"].get<double>()));
}

TEST_CASE("OpenMP: a computing region's CPU time is within its threads' time") {
  // A thread's CPU time in a region cannot exceed its time there (5% for the
  // clocks' granularity); how far below it is depends on the machine's load.
  const json p = omp_triad({"2000000", "5", "outside"});
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  const double cpu = t["cpu_time_s"].get<double>();
  CHECK(cpu > 0);
  CHECK(cpu <= t["thread_time_s"].get<double>() * 1.05);
}
