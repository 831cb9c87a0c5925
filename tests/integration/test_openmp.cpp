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

namespace {

// samples/omp_triad.c built by clang against LLVM's libomp (OMPT), linked
// with librprof; empty when this machine has no clang or no libomp.
std::string libomp_triad() {
#if defined(RPROF_TEST_SANITIZED)
  skip_test("the clang build of omp_triad is not sanitized; the sanitizer pass leaves it out");
#endif
  const std::string out = fresh_dir("libomp") + "/omp_triad_libomp";
  for (const char* cc : {"clang", "clang-16", "clang-15", "clang-14"}) {
    const RunResult r = run_command(
        {cc, "-O2", "-fopenmp=libomp", "-DRPROF_ENABLE", "-I" RPROF_SOURCE_DIR "/include",
         RPROF_SOURCE_DIR "/samples/omp_triad.c", "-o", out, "-L" RPROF_RUNTIME_DIR, "-lrprof",
         "-Wl,-rpath," RPROF_RUNTIME_DIR});
    if (r.status == 0) return out;
  }
  skip_test("no clang with LLVM's libomp here (clang, libomp-dev): the OMPT path is not run");
  return "";
}

}  // namespace

TEST_CASE("OpenMP with LLVM's libomp: OMPT puts the team in the region, OMP_TOOL=disabled is named") {
  const std::string app = libomp_triad();
  const RunResult r = run_rprof({"--backend=time", app, "200000", "3", "outside"},
                                {"OMP_NUM_THREADS=2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  CHECK(t["calls"] == 3);
  CHECK(t["threads"]["rows"] == 2);
  for (const json& n : p["notes"]) CHECK(n.get<std::string>().rfind("OpenMP:", 0) != 0);

  // Without OMPT the team is not seen: one row, and a note that says why.
  const RunResult off = run_rprof({"--backend=time", app, "200000", "3", "outside"},
                                  {"OMP_NUM_THREADS=2", "OMP_TOOL=disabled"});
  INFO(off.err);
  REQUIRE(off.status == 0);
  const json q = load_json(off.dir + "/profile.json");
  CHECK(find_region(q, "triad")["threads"]["rows"] == 1);
  bool noted = false;
  for (const json& n : q["notes"]) {
    noted |= n.get<std::string>().rfind("OpenMP: OMP_TOOL=disabled", 0) == 0;
  }
  CHECK(noted);
}
