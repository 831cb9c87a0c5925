// The labelled set (docs/verdicts.md "The labelled set"): kernels/verdict_kernels.c,
// each written to a known limit, counted by the sim backend on a recorded
// machine (tests/fixtures/machines through RPROF_SYSROOT and its machine file,
// so the simulated caches and the ceilings are that machine's), each case
// asserting its verdict and its key number.
//
// Sizes come from the recorded machine's caches. Counts are exact for that
// geometry; times are this host's native run. So each verdict rests on a
// number that does not depend on this host's speed (counts, intensities,
// ratios), or on a margin of several times: a kernel that must reach a roof
// is held against the recorded machine with the lowest roofs (skylake-sp),
// one that must stay far below every roof against the highest (zen4-desktop).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <fstream>

#include "integration/harness.h"
#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

const std::string kKernels = std::string(RPROF_SIM_TEST_BIN_DIR) + "/verdict_kernels";
// The lowest roofs (DRAM copy 15.3 GB/s with write-allocate, DP 256-bit FMA
// 59 GFLOP/s, 1 thread) and the highest (zen4-desktop: 70.1 GB/s, 86.4).
const std::string kLow = "skylake-sp";
const std::string kHigh = "zen4-desktop";

struct Geometry {
  uint64_t l1 = 0, l2 = 0, llc = 0;  // effective bytes where measured
};

Geometry geometry(const std::string& machine) {
  const json m = load_json(machine_file(machine));
  Geometry g;
  int last = 0;
  for (const json& c : m["caches"]) last = std::max(last, c["level"].get<int>());
  for (const json& c : m["caches"]) {
    const uint64_t eff = c["effective_bytes"].get<uint64_t>();
    const uint64_t bytes = eff > 0 ? eff : c["reported_bytes"].get<uint64_t>();
    const int level = c["level"].get<int>();
    if (level == 1) g.l1 = bytes;
    if (level == 2) g.l2 = bytes;
    if (level == last) g.llc = bytes;
  }
  REQUIRE(g.l1 > 0);
  REQUIRE(g.l2 > g.l1);
  REQUIRE(g.llc > g.l2);
  return g;
}

void require_sim() {
#if !defined(RPROF_TEST_HAVE_SIM)
  skip_test("this build has no sim backend (Valgrind not found at configure time)");
#endif
#if defined(RPROF_TEST_SANITIZED)
  skip_test("sanitized programs cannot run under Valgrind (the sim backend)");
#endif
}

struct Run {
  json region, verdict;
};

// Every kernel but sleep and lock is built never to wait: a "waiting" verdict
// on one of them means this host was busy, and the run is made again
// (run_rprof_on_cpu).
Run run_kernel(const std::string& machine, const std::vector<std::string>& kernel_args,
               const std::string& region, bool waits = false) {
  require_sim();
  std::vector<std::string> args = {"--backend=sim", "-q", kKernels};
  args.insert(args.end(), kernel_args.begin(), kernel_args.end());
  const RunResult r = waits ? run_rprof(args, machine_env(machine))
                            : run_rprof_on_cpu(args, region, machine_env(machine));
  INFO(machine << ": " << r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  Run out;
  out.region = find_region(p, region);
  REQUIRE(out.region.is_object());
  REQUIRE(out.region.contains("verdict"));
  out.verdict = out.region["verdict"];
  return out;
}

bool has_flag(const json& v, const std::string& name) {
  for (const json& f : v["flags"]) {
    if (f["name"] == name) return true;
  }
  return false;
}

double counter(const json& region, const std::string& name) {
  return static_cast<double>(counter_of(region, name));
}

double flops(const json& region) {
  double sum = 0;
  for (const auto& [k, v] : region["counters"].items()) {
    if (k.rfind("flops.", 0) == 0) sum += v.get<double>();
  }
  return sum;
}

double intensity_at(const json& region, const std::string& boundary) {
  for (const json& b : region["roofline"]["boundaries"]) {
    if (b["boundary"] == boundary) return b["intensity"].get<double>();
  }
  FAIL("no roofline boundary " << boundary << " in " << region["roofline"].dump());
  return 0;
}

std::string n_of(uint64_t n) { return std::to_string(n); }

// A kernel whose intensity puts it under the compute roof: compute-bound at
// or above half of that roof, below every roof under it, never memory-bound.
// Which one depends on this host's FLOP rate against the recorded roof (a
// shared or throttled host runs these at a fraction of a quiet one's), so
// the rule is checked at the fraction measured.
void check_compute_verdict(const json& v) {
  const double fraction = v["fraction_of_roof"].get<double>();
  if (fraction >= 0.5) {
    CHECK(v["bound"] == "compute");
  } else {
    CHECK(v["bound"] == "below-roofs");
    WARN("this host ran the kernel at " << 100 * fraction
                                        << "% of the recorded compute roof: below every roof");
  }
  CHECK(v["bound"] != "memory");
}

}  // namespace

TEST_CASE("labelled: STREAM copy out of cache is memory-bound at DRAM, 24 bytes an element") {
  const Geometry g = geometry(kLow);
  const uint64_t n = 4 * g.llc / 16;  // two arrays, 4x the LLC
  const Run r = run_kernel(kLow, {"copy", n_of(n), "2"}, "copy");
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "memory");
  CHECK(r.verdict["boundary"] == "dram");
  CHECK(r.region["memory"]["limiting_boundary"] == "dram");
  // Read a, read c for write-allocate, write c back: 24 bytes per element.
  const double dram = counter(r.region, "bytes.dram.read") + counter(r.region, "bytes.dram.write");
  CHECK(dram / (2.0 * static_cast<double>(n)) == Approx(24).epsilon(0.10));
  CHECK(flops(r.region) == 0);
}

TEST_CASE("labelled: STREAM triad out of cache is memory-bound at DRAM, I = 2/32 FLOP/byte") {
  const Geometry g = geometry(kLow);
  const uint64_t n = 4 * g.llc / 24;
  const Run r = run_kernel(kLow, {"triad", n_of(n), "2"}, "triad");
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "memory");
  CHECK(r.verdict["boundary"] == "dram");
  CHECK(flops(r.region) == 2.0 * 2 * static_cast<double>(n));
  // 2 FLOPs per 32 bytes (b, c, a's write-allocate read, a's write-back).
  CHECK(intensity_at(r.region, "dram") == Approx(2.0 / 32).epsilon(0.10));
}

TEST_CASE("labelled: CSR SpMV, random columns in cache: below every roof, irregular access") {
  const Geometry g = geometry(kHigh);
  // x in a quarter of the L1, 64K rows of 8 random columns: the matrix (12
  // bytes a nonzero, 6 MiB) streams from the LLC. Intensity is above every
  // ridge (compute-limited, as HPCCG's SpMV in the LLC), yet the row sums
  // and the loads keep it below half the scalar roof on most hosts. Not on
  // every one: a Zen 5 host runs it at 44% of its own DP scalar add/mul
  // roof, and at 47-51% of the recorded zen4-desktop's (10.8 GFLOP/s, the
  // highest recorded, lower than that host's 12.4). So the verdict is checked
  // at the fraction measured, as matmul's, and the counts that name its
  // cause (rule 5c) are checked on every host.
  const uint64_t x_len = g.l1 / 4 / 8;
  const Run r = run_kernel(kHigh, {"spmv", n_of(x_len), "2", "65536"}, "spmv");
  INFO(r.verdict.dump(2));
  CHECK(r.region["roofline"]["limited_by"] == "compute");
  CHECK(r.verdict["bound"] != "memory");
  // 2 FLOPs a nonzero; 8 + 4 + 8 bytes loaded per nonzero at L1 (and the row
  // pointers and y): at least 10 bytes at L1 per FLOP, the matrix's 12 bytes
  // a nonzero crossing L2 (over half of them; rule 5c needs 10%).
  const double nnz = 2.0 * 65536 * 8;
  CHECK(flops(r.region) == 2 * nnz);
  const double l1 = counter(r.region, "bytes.l1.read") + counter(r.region, "bytes.l1.write");
  const double l2 = counter(r.region, "bytes.l2.read") + counter(r.region, "bytes.l2.write");
  CHECK(l1 / flops(r.region) >= 10);
  CHECK(l2 / l1 > 0.4);
  const double fraction = r.verdict["fraction_of_roof"].get<double>();
  if (fraction < 0.5) {
    CHECK(r.verdict["bound"] == "below-roofs");
    // Its loads, not its arithmetic: the misses it waits on (lines in flight
    // by Little's law, which needs this host's time) or, failing that, the
    // irregular access its counts show.
    const json& limit = r.verdict["numbers"]["likely_limit"];
    CHECK((limit["kind"] == "latency" || limit["kind"] == "irregular" ||
           limit["kind"] == "irregular-no-flops"));
  } else {
    CHECK(r.verdict["bound"] == "compute");
    WARN("this host ran the kernel at " << 100 * fraction
                                        << "% of the recorded DP scalar roof: compute-bound");
  }
}

TEST_CASE("labelled: CSR SpMV, random columns out of cache: memory-bound at DRAM") {
  const Geometry g = geometry(kLow);
  // x twice the larger of the recorded LLC and this host's, so the native
  // run misses too; 64K rows: nearly every x load a line from DRAM.
  const uint64_t x_len = 2 * std::max(g.llc, host_largest_cache()) / 8;
  const Run r = run_kernel(kLow, {"spmv", n_of(x_len), "1", "65536"}, "spmv");
  INFO(r.verdict.dump(2));
  CHECK(r.region["roofline"]["limited_by"] == "memory");
  CHECK(r.region["roofline"]["limiting_boundary"] == "dram");
  CHECK(r.verdict["bound"] == "memory");
  CHECK(r.verdict["boundary"] == "dram");
  // Each x load a 64-byte line from DRAM: below 2/64 FLOP/byte there.
  CHECK(intensity_at(r.region, "dram") < 2.0 / 64);
}

TEST_CASE("labelled: a pointer chase out of cache is latency-bound at DRAM") {
  const Geometry g = geometry(kLow);
  const uint64_t big = std::max(g.llc, host_largest_cache());
  const uint64_t nodes = 4 * big / 64;
  // 2 x the LLC of other data written after the nodes: none left in it.
  const Run r = run_kernel(kLow, {"chase", n_of(nodes), "200000", n_of(2 * big)}, "chase");
  INFO(r.verdict.dump(2));
  // One line a step: 200,000 misses within 5% (the first touches and the
  // code around the loop add a few). (Without the other data, a quarter of
  // the nodes stayed in an LLC of 32 MiB: 165,000.)
  const json& dram = r.region["memory"]["boundaries"].back();
  CHECK(dram["boundary"] == "dram");
  CHECK(dram["line_misses"].get<double>() == Approx(200000).epsilon(0.05));
  const double in_flight = dram["misses_in_flight_per_thread"].get<double>();
  if (r.verdict["bound"] == "below-roofs") {
    // This host's misses cost more than the recorded machine's latency (page
    // walks; a busy host: seen under ctest -j2, 0.2-0.25 in flight): under
    // the band, so below every roof with the misses named as the limit.
    WARN("this host's DRAM misses cost more than the recorded machine's latency: "
         << in_flight << " misses in flight");
    CHECK(in_flight < 0.25);
    REQUIRE(r.verdict["likely_limit"].is_string());
    CHECK(r.verdict["numbers"]["likely_limit"]["kind"] == "irregular-no-flops");
    return;
  }
  CHECK(r.verdict["bound"] == "memory");
  REQUIRE(has_flag(r.verdict, "latency-bound"));
  CHECK(in_flight >= 0.25);
  CHECK(in_flight <= 2.5);
}

TEST_CASE("labelled: an integer hash loop is below every roof, not memory") {
  const Run r = run_kernel(kHigh, {"hash", "2000000"}, "hash");
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "below-roofs");
  CHECK_FALSE(has_flag(r.verdict, "latency-bound"));
  CHECK(r.verdict["numbers"]["likely_limit"]["kind"] == "non-fp");
  CHECK(flops(r.region) == 0);
  // About one 4-byte table load a key, all from L1: a tiny share of its roof.
  CHECK(r.region["memory"]["fraction_of_roof"].get<double>() < 0.05);
}

TEST_CASE("labelled: a blocked dense matrix multiply is compute-bound") {
  const uint64_t n = 256;  // 3 x 512 KiB: in every recorded LLC
  const Run r = run_kernel(kLow, {"matmul", n_of(n)}, "matmul");
  INFO(r.verdict.dump(2));
  CHECK(r.region["roofline"]["limited_by"] == "compute");
  check_compute_verdict(r.verdict);
  const double nd = static_cast<double>(n);
  CHECK(flops(r.region) == 2.0 * nd * nd * nd);
  // The matrices are in the LLC when it starts: at most a few bytes at
  // DRAM, an intensity there above 10 FLOP/byte (or none crossing at all).
  const double dram = counter(r.region, "bytes.dram.read") + counter(r.region, "bytes.dram.write");
  CHECK(10 * dram < flops(r.region));
}

TEST_CASE("labelled: a scalar FP dependency chain is below every roof, dependency chains") {
  const Run r = run_kernel(kHigh, {"chain", "20000000"}, "chain");
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "below-roofs");
  CHECK(r.verdict["numbers"]["likely_limit"]["kind"] == "dependency-chains");
  // One scalar mul and one scalar add a step, no FMA.
  CHECK(counter(r.region, "flops.dp.scalar") == Approx(4e7).epsilon(1e-4));
  CHECK(r.region["roofline"]["fma_share"].get<double>() == Approx(0).margin(0.01));
}

TEST_CASE("labelled: 12 independent 256-bit FMA chains are compute-bound at the FMA roof") {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    skip_test("this CPU runs no AVX2+FMA code");
  }
  const Run r = run_kernel(kLow, {"fma", "1000000"}, "fma");
  INFO(r.verdict.dump(2));
  CHECK(r.region["roofline"]["limited_by"] == "compute");
  check_compute_verdict(r.verdict);
  // 12 FMAs x 4 lanes x 2 FLOPs an iteration, every one 256-bit.
  CHECK(counter(r.region, "flops.dp.256") == Approx(1e6 * 96).epsilon(1e-4));
  CHECK(r.region["roofline"]["fma_share"].get<double>() == Approx(1).margin(0.01));
  CHECK(r.region["roofline"]["compute_roof"]["width"] == "256");
  CHECK(r.region["roofline"]["compute_roof"]["mix"] == "fma");
}

// The cases below read the CPU time per region (the "waiting" verdict), the
// attribution of an OpenMP team's work to the region open on the thread that
// started it (lib/runtime/openmp.cpp), and the sample count of a function's
// time (time_samples).

TEST_CASE("labelled: a region that sleeps is waiting") {
  const Run r = run_kernel(kHigh, {"sleep", "300"}, "sleep", true);
  REQUIRE(r.region.contains("cpu_time_s"));
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "waiting");
  CHECK_FALSE(has_flag(r.verdict, "latency-bound"));
  CHECK(r.region["cpu_time_s"].get<double>() < 0.1 * r.region["time_s"].get<double>());
}

TEST_CASE("labelled: a thread blocked on a lock is waiting") {
  const Run r = run_kernel(kHigh, {"lock", "300"}, "lock", true);
  REQUIRE(r.region.contains("cpu_time_s"));
  INFO(r.verdict.dump(2));
  CHECK(r.verdict["bound"] == "waiting");
  CHECK(r.region["time_s"].get<double>() >= 0.25);
}

TEST_CASE("labelled: an OpenMP triad with the marker outside the parallel region, 2 threads") {
  const Geometry g = geometry(kLow);
  const uint64_t n = 4 * g.llc / 24;
  require_sim();
  std::vector<std::string> args = {"--backend=sim", "-q", kKernels, "omp_triad", n_of(n), "2"};
  std::vector<std::string> env = machine_env(kLow);
  env.push_back("OMP_NUM_THREADS=2");
  const RunResult run = run_rprof_on_cpu(args, "omp_triad", env);
  INFO(run.err);
  if (run.status != 0 && run.err.find("OpenMP") != std::string::npos) {
    skip_test("no OpenMP runtime for the kernel");
  }
  REQUIRE(run.status == 0);
  const json region = find_region(load_json(run.dir + "/profile.json"), "omp_triad");
  REQUIRE(region.is_object());
  // The worker's half of the FLOPs counts in the region too (without the
  // team's attribution it would land in [program]), and the region has both
  // threads.
  INFO(region["verdict"].dump(2));
  CHECK(flops(region) == 2.0 * 2 * static_cast<double>(n));
  CHECK(region["threads"]["rows"] == 2);
  CHECK(region["verdict"]["bound"] == "memory");
  CHECK(region["verdict"]["boundary"] == "dram");
}

TEST_CASE("labelled: the function view marks a tiny function uncertain") {
  require_sim();
  const RunResult run = run_rprof({"--backend=sim", "--functions", "-q", kKernels, "tiny",
                                   "20000000"},
                                  machine_env(kHigh));
  INFO(run.err);
  REQUIRE(run.status == 0);
  const json p = load_json(run.dir + "/profile.json");
  json tiny;
  for (const json& r : p["regions"]) {
    if (r["name"].get<std::string>().find("tiny_fn") != std::string::npos) tiny = r;
  }
  REQUIRE(tiny.is_object());
  INFO(tiny.dump(2));
  REQUIRE(tiny.contains("time_samples"));
  CHECK(tiny["time_samples"]["uncertain"] == true);
  CHECK(tiny["time_samples"]["samples"].get<double>() < 100);
  CHECK(tiny["verdict"]["bound"] != "compute");
}
