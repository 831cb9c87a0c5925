// `rprof ./sample`: region names, paths and exact call counts for every sample.
#include <catch2/catch.hpp>
#include <filesystem>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

TEST_CASE("daxpy: regions, calls, files written") {
  auto r = run_rprof({"--backend=time", sample("daxpy"), "100000", "7"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("daxpy: n=100000 reps=7") != std::string::npos);  // app output kept
  for (const char* f : {"profile.json", "report.txt"}) {
    CHECK(fs::exists(fs::path(r.dir) / f));
  }
  CHECK((fs::status(r.dir).permissions() & fs::perms::all) == fs::perms::owner_all);
  auto p = load_json(r.dir + "/profile.json");
  CHECK(p["format"] == "rprof-profile");
  CHECK(p["schema_version"] == 1);
  auto daxpy = find_region(p, "daxpy");
  REQUIRE(daxpy.is_object());
  CHECK(daxpy["calls"] == 7);
  CHECK(daxpy["complete"] == true);
  CHECK(daxpy["time_s"].get<double>() > 0);
  CHECK(daxpy["declared_work"]["flops"].get<double>() == 7 * 2.0 * 100000);
  CHECK(daxpy["declared_work"]["bytes"].get<double>() == 7 * 24.0 * 100000);
  auto init = find_region(p, "init");
  REQUIRE(init.is_object());
  CHECK(init["calls"] == 1);
  auto prog = find_region(p, "[program]");
  REQUIRE(prog.is_object());
  CHECK(prog["time_s"].get<double>() >= daxpy["time_s"].get<double>());
  // The text report: units in headers, regions listed.
  const std::string text = read_text(r.dir + "/report.txt");
  CHECK(text.find("Time [s]") != std::string::npos);
  CHECK(text.find("daxpy") != std::string::npos);
}

TEST_CASE("nested: paths, calls, recursion on one node, inclusive >= children") {
  auto r = run_rprof({"--backend=time", sample("nested"), "5"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  struct Want { const char* path; int calls; };
  for (Want w : {Want{"solve", 5}, Want{"solve/assemble", 5}, Want{"solve/iterate", 5},
                 Want{"solve/iterate/smooth", 20}, Want{"solve/iterate/residual", 20},
                 Want{"fib", 1973}}) {
    INFO(w.path);
    auto reg = find_region(p, w.path);
    REQUIRE(reg.is_object());
    CHECK(reg["calls"] == w.calls);
    CHECK(reg["depth"] == std::count(w.path, w.path + strlen(w.path), '/'));
  }
  CHECK(find_region(p, "fib/fib").is_null());  // recursion does not grow the tree
  auto solve = find_region(p, "solve");
  const double children = find_region(p, "solve/assemble")["time_s"].get<double>() +
                          find_region(p, "solve/iterate")["time_s"].get<double>();
  CHECK(solve["time_s"].get<double>() >= children);
  CHECK(solve["exclusive_time_s"].get<double>() ==
        Approx(solve["time_s"].get<double>() - children).margin(1e-6));
  // Recursion: fib's exclusive time equals its inclusive time (no children),
  // so it was not counted once per recursion level.
  auto fib = find_region(p, "fib");
  CHECK(fib["exclusive_time_s"].get<double>() ==
        Approx(fib["time_s"].get<double>()).epsilon(1e-6).margin(2e-6));
}

TEST_CASE("OpenMP: per-thread rows, call counts summed over threads") {
  if (!fs::exists(sample("omp_sum"))) {
    skip_test("omp_sum not built (the compiler has no OpenMP)");
  }
  auto r = run_rprof({"--backend=time", sample("omp_sum"), "200000", "16"}, {"OMP_NUM_THREADS=2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  auto par = find_region(p, "parallel");
  REQUIRE(par.is_object());
  CHECK(par["calls"] == 1);
  // Every thread opens "work" inside "parallel": the master in its own, the
  // team threads in the path they inherit (docs/openmp.md).
  uint64_t calls = 0;
  size_t thread_rows = 0;
  for (const auto& reg : p["regions"]) {
    if (reg["name"] == "work") {
      calls += reg["calls"].get<uint64_t>();
      thread_rows += reg["threads"]["rows"].get<size_t>();
    }
  }
  CHECK(calls == 16);
  CHECK(thread_rows == 2);
  CHECK(p["run"]["threads"] == 2);
}

TEST_CASE("16 threads x 10^6 begin/end pairs: exact call counts") {
  const std::string app = std::string(RPROF_TEST_BIN_DIR) + "/apps/threads_stress";
  auto r = run_rprof({"--backend=time", app, "16", "1000000"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  auto outer = find_region(p, "outer");
  auto inner = find_region(p, "outer/inner");
  REQUIRE(outer.is_object());
  REQUIRE(inner.is_object());
  CHECK(outer["calls"] == 16000000);
  CHECK(inner["calls"] == 16000000);
  CHECK(outer["threads"]["rows"] == 16);
  CHECK(inner["threads"]["calls"] == std::vector<uint64_t>(16, 1000000));
  CHECK(p["errors"].empty());
}
