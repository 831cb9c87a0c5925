// OpenMP regions whole under the sim backend (docs/openmp.md): the threads of
// a parallel region count in the region open on the thread that started it.
// samples/omp_triad.c does 2n FLOPs a rep (a[i] = b[i] + s*c[i]: one add and
// one multiply, FMA = 2 FLOPs) in every mode, so each mode's region must hold
// exactly 2n*reps FLOPs, spread over the threads that worked in it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "integration/harness.h"
#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kN = 20000;
constexpr uint64_t kReps = 3;
constexpr uint64_t kFlops = 2 * kN * kReps;

// omp_triad <mode> under the simulator, 2 OpenMP threads, every cache pinned.
json omp_triad(const std::string& mode) {
  require_sim_backend();
  if (!fs::exists(sample("omp_triad"))) skip_test("omp_triad not built (the compiler has no OpenMP)");
  const RunResult r = run_rprof({"--backend=sim", "--sim-only", "-q", "--sim-cache",
                                 "l1=32K:8:64,l2=1M:8:64,llc=8M:16:64", sample("omp_triad"),
                                 std::to_string(kN), std::to_string(kReps), mode},
                                {test_machine_env(), "OMP_NUM_THREADS=2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return load_json(r.dir + "/profile.json");
}

// Per-thread FLOPs of a region (all precisions and widths), row by row.
std::vector<uint64_t> thread_flops(const json& region) {
  const json& th = region.at("threads");
  std::vector<uint64_t> rows(th.at("rows").get<size_t>(), 0);
  for (const auto& [k, col] : th.at("counters").items()) {
    if (k.rfind("flops.", 0) != 0) continue;
    for (size_t i = 0; i < rows.size(); ++i) rows[i] += col.at(i).get<uint64_t>();
  }
  return rows;
}

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

uint64_t exclusive_flops(const json& region) {
  uint64_t s = 0;
  for (const auto& [k, v] : region.at("exclusive_counters").items()) {
    if (k.rfind("flops.", 0) == 0) s += v.get<uint64_t>();
  }
  return s;
}

}  // namespace

TEST_CASE("sim OpenMP: a marker around a parallel loop holds every thread's work") {
  const json p = omp_triad("outside");
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  CHECK(t["calls"] == kReps);  // the starting thread's calls; the team adds none
  CHECK(all_flops(t) == kFlops);
  // Both threads worked in it, each its share, the shares adding up.
  CHECK(t["thread_spread"]["threads"] == 2);
  const std::vector<uint64_t> rows = thread_flops(t);
  REQUIRE(rows.size() == 2);
  CHECK(sum(rows) == kFlops);
  for (uint64_t r : rows) CHECK(r == kFlops / 2);  // schedule(static), n even
  // None of the loop's work is left outside the region.
  const json prog = find_region(p, "[program]");
  REQUIRE(prog.is_object());
  CHECK(exclusive_flops(prog) < kN);
  // No CPU time from a simulated run (--sim-only): under Valgrind it is the
  // simulator's, threads taking turns; test_openmp checks it natively.
  CHECK_FALSE(t.contains("cpu_time_s"));
}

TEST_CASE("sim OpenMP: markers inside the parallel region nest under the inherited one") {
  const json p = omp_triad("inside");
  const json t = find_region(p, "triad"), part = find_region(p, "triad/part");
  REQUIRE(t.is_object());
  REQUIRE(part.is_object());
  CHECK(t["calls"] == kReps);
  CHECK(part["calls"] == 2 * kReps);  // one per thread per rep
  CHECK(all_flops(t) == kFlops);
  CHECK(all_flops(part) == kFlops);
  CHECK(sum(thread_flops(part)) == kFlops);
  CHECK(part["thread_spread"]["threads"] == 2);
  CHECK(!find_region(p, "part").is_object());  // no stray top-level copy
}

TEST_CASE("sim OpenMP: an inner marker of the inherited name is not counted twice") {
  const json p = omp_triad("same");
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  // Recursion on the region's node: the outer call and one inner call per
  // thread a rep, the work once.
  CHECK(t["calls"] == 3 * kReps);
  CHECK(all_flops(t) == kFlops);
  CHECK(!find_region(p, "triad/triad").is_object());
}

TEST_CASE("sim OpenMP: nested parallel regions inherit the whole path") {
  const json p = omp_triad("nested");
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  CHECK(all_flops(t) == kFlops);
  const std::vector<uint64_t> rows = thread_flops(t);
  CHECK(sum(rows) == kFlops);
  CHECK(rows.size() >= 4);  // two outer threads, each with a team of its own
  CHECK(exclusive_flops(find_region(p, "[program]")) < kN);
}

TEST_CASE("sim OpenMP: tasks run by the team count in the region") {
  const json p = omp_triad("tasks");
  const json t = find_region(p, "triad");
  REQUIRE(t.is_object());
  CHECK(all_flops(t) == kFlops);
  CHECK(sum(thread_flops(t)) == kFlops);
  CHECK(exclusive_flops(find_region(p, "[program]")) < kN);
}
