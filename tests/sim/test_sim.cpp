// The sim backend end to end: `rprof --backend=sim` on samples whose work is
// known exactly. Skipped (exit 77) when this build has no sim backend.
//
// Valgrind is slow, so vectors are small and the simulated caches are made
// small with --sim-cache where a test needs data far larger than a cache.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "integration/harness.h"
#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// run_rprof with the test machine file.
RunResult rprof_run(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
  env.push_back(test_machine_env());
  return run_rprof(args, env);
}

// The simulated geometry when a test does not choose one: every level pinned,
// so nothing depends on the caches of the machine the test runs on.
const char* const kDefaultCaches = "l1=32K:8:64,l2=1M:8:64,llc=8M:16:64";

// rprof --backend=sim --sim-only -q [extra...] program args; the profile.
json sim_profile(const std::vector<std::string>& cmd,
                 const std::vector<std::string>& options = {},
                 const std::vector<std::string>& env = {}) {
  std::vector<std::string> args = {"--backend=sim", "--sim-only", "-q"};
  args.insert(args.end(), options.begin(), options.end());
  if (std::find(options.begin(), options.end(), "--sim-cache") == options.end()) {
    args.insert(args.end(), {"--sim-cache", kDefaultCaches});
  }
  args.insert(args.end(), cmd.begin(), cmd.end());
  RunResult r = rprof_run(args, env);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return load_json(r.dir + "/profile.json");
}

uint64_t l1_bytes(const json& region) {
  return counter_of(region, "bytes.l1.read") + counter_of(region, "bytes.l1.write");
}

uint64_t dram_bytes(const json& region) {
  return counter_of(region, "bytes.dram.read") + counter_of(region, "bytes.dram.write");
}

// The L1 bytes of a y <- f(x, y) kernel are 24 B per element per call plus a
// fixed cost per call of the code around the kernel inside the region: the
// call to the kernel function (return address pushed, popped) and register
// reloads the compiler placed there. The markers themselves add nothing.
// Checked as an exact slope between two sizes and a bounded intercept.
constexpr uint64_t kMaxCallOverheadBytes = 64;

void check_flops_and_l1(const std::string& sample_name, const char* region,
                        const char* flops_key, int lanes_per_insn) {
  const uint64_t reps = 3, n1 = 1000, n2 = 3000;  // multiples of 8: no remainder loop
  const json p1 = sim_profile({sample(sample_name), std::to_string(n1), std::to_string(reps)});
  const json p2 = sim_profile({sample(sample_name), std::to_string(n2), std::to_string(reps)});
  const json r1 = find_region(p1, region), r2 = find_region(p2, region);
  REQUIRE(r1.is_object());
  REQUIRE(r2.is_object());
  CHECK(r1["calls"] == reps);
  for (auto [r, n] : {std::pair{r1, n1}, std::pair{r2, n2}}) {
    INFO(sample_name << " n=" << n);
    CHECK(counter_of(r, flops_key) == 2 * n * reps);  // FMA = 2 FLOPs
    CHECK(all_flops(r) == 2 * n * reps);         // nothing in other classes
    const std::string fpins = std::string("fpins") + std::string(flops_key).substr(5);
    // Scalar: mul + add (or one FMA: 2 FLOPs in 1 instruction); packed: 1 FMA per vector.
    if (lanes_per_insn == 1) {
      CHECK((counter_of(r, fpins) == 2 * n * reps || counter_of(r, fpins) == n * reps));
    } else {
      CHECK(counter_of(r, fpins) == n * reps / static_cast<uint64_t>(lanes_per_insn));
    }
  }
  CHECK(l1_bytes(r2) - l1_bytes(r1) == 24 * (n2 - n1) * reps);
  CHECK(counter_of(r2, "bytes.l1.read") - counter_of(r1, "bytes.l1.read") == 16 * (n2 - n1) * reps);
  REQUIRE(l1_bytes(r1) >= 24 * n1 * reps);
  const uint64_t overhead_per_call = (l1_bytes(r1) - 24 * n1 * reps) / reps;
  INFO("fixed L1 bytes per call: " << overhead_per_call);
  CHECK(overhead_per_call <= kMaxCallOverheadBytes);
}

}  // namespace

TEST_CASE("sim: daxpy -O2: 2n scalar DP FLOPs and 24n L1 bytes per call") {
  require_sim_backend();
  check_flops_and_l1("daxpy", "daxpy", "flops.dp.scalar", 1);
}

TEST_CASE("sim: daxpy AVX2+FMA: 2n FLOPs per call, all 256-bit, one FMA per 4 elements") {
  require_sim_backend();
  check_flops_and_l1("daxpy_avx2", "daxpy", "flops.dp.256", 4);
}

TEST_CASE("sim: triad -O2 and AVX2+FMA: 2n FLOPs and 24n L1 bytes per call") {
  require_sim_backend();
  check_flops_and_l1("triad", "triad", "flops.dp.scalar", 1);
  check_flops_and_l1("triad_avx2", "triad", "flops.dp.256", 4);
}

TEST_CASE("sim: a remainder loop keeps the FLOP total exact") {
  require_sim_backend();
  const uint64_t n = 1003;  // 250 vectors of 4, then 3 leftover elements
  const json p = sim_profile({sample("daxpy_avx2"), std::to_string(n), "2"});
  const json r = find_region(p, "daxpy");
  CHECK(all_flops(r) == 2 * n * 2);
  CHECK(counter_of(r, "flops.dp.256") == 2 * 1000 * 2);
}

TEST_CASE("sim: DRAM bytes of daxpy and triad far larger than the LLC") {
  require_sim_backend();
  // 2 vectors of 3.2 MB against a 256 KiB L2 and a 1 MiB LLC. The first call
  // also writes back what init left dirty, so compare calls 2 and 3 (the
  // difference of a 3-call and a 1-call run).
  const std::vector<std::string> caches = {"--sim-cache", "l1=32K:8:64,l2=256K:8:64,llc=1M:16:64"};
  const uint64_t n = 400000;
  for (auto [name, region, per_elem] :
       {std::tuple{"daxpy", "daxpy", 24.0}, std::tuple{"triad", "triad", 32.0}}) {
    INFO(name);
    const json p1 = sim_profile({sample(name), std::to_string(n), "1"}, caches);
    const json p3 = sim_profile({sample(name), std::to_string(n), "3"}, caches);
    const json r1 = find_region(p1, region), r3 = find_region(p3, region);
    const double per_call = static_cast<double>(dram_bytes(r3) - dram_bytes(r1)) / 2;
    // daxpy: 16 B read + 8 B written back per element (the seeds' example);
    // triad: a is also read before it is written (write-allocate): 24 + 8.
    CHECK(per_call == Approx(per_elem * n).epsilon(0.03));
    const double writes = static_cast<double>(counter_of(r3, "bytes.dram.write") -
                                              counter_of(r1, "bytes.dram.write")) / 2;
    CHECK(writes == Approx(8.0 * n).epsilon(0.03));
  }
}

TEST_CASE("sim: a second sweep of an L2-sized vector moves no DRAM bytes") {
  require_sim_backend();
  // x and y: 2 * 256 KiB = 512 KiB, inside a 1 MiB L2.
  const std::vector<std::string> caches = {"--sim-cache", "l1=32K:8:64,l2=1M:8:64,llc=4M:16:64"};
  const uint64_t n = 32768;
  const json p2 = sim_profile({sample("daxpy"), std::to_string(n), "2"}, caches);
  const json p3 = sim_profile({sample("daxpy"), std::to_string(n), "3"}, caches);
  const json r2 = find_region(p2, "daxpy"), r3 = find_region(p3, "daxpy");
  const uint64_t sweep_dram = dram_bytes(r3) - dram_bytes(r2);
  const uint64_t sweep_llc = counter_of(r3, "bytes.llc.read") - counter_of(r2, "bytes.llc.read");
  CHECK(sweep_dram <= 24 * n / 100);  // near zero: under 1% of the 24n ideal
  CHECK(sweep_llc <= 24 * n / 100);   // it never left the L2
  CHECK(l1_bytes(r3) - l1_bytes(r2) >= 24 * n);
}

TEST_CASE("sim: single and double precision are counted apart") {
  require_sim_backend();
  const uint64_t n = 4000, reps = 2;
  const json p = sim_profile({sample("precision"), std::to_string(n), std::to_string(reps)});
  const json s = find_region(p, "saxpy"), d = find_region(p, "daxpy");
  CHECK(counter_of(s, "flops.sp.256") == 2 * n * reps);
  CHECK(counter_of(s, "fpins.sp.256") == n * reps / 8);  // 8 floats per FMA
  CHECK(counter_of(d, "flops.dp.256") == 2 * n * reps);
  CHECK(counter_of(d, "fpins.dp.256") == n * reps / 4);
  for (const char* w : {"scalar", "128", "256"}) {
    CHECK(counter_of(s, std::string("flops.dp.") + w) == 0);
    CHECK(counter_of(d, std::string("flops.sp.") + w) == 0);
  }
  // 12 B per float element, 24 B per double element, plus the call's bytes.
  CHECK(l1_bytes(s) >= 12 * n * reps);
  CHECK(l1_bytes(s) <= 12 * n * reps + kMaxCallOverheadBytes * reps);
  CHECK(l1_bytes(d) >= 24 * n * reps);
  CHECK(l1_bytes(d) <= 24 * n * reps + kMaxCallOverheadBytes * reps);
}

TEST_CASE("sim: cache blocking moves far fewer DRAM bytes for the same FLOPs") {
  require_sim_backend();
  // 128 x 128 doubles: 128 KiB a matrix, against a 64 KiB LLC.
  const uint64_t n = 128;
  const json p = sim_profile({sample("matmul"), std::to_string(n), "16"},
                             {"--sim-cache", "l1=8K:8:64,l2=32K:8:64,llc=64K:16:64"});
  const json naive = find_region(p, "naive"), blocked = find_region(p, "blocked");
  CHECK(all_flops(naive) == 2 * n * n * n);
  CHECK(all_flops(blocked) == 2 * n * n * n);
  INFO("DRAM bytes: naive " << dram_bytes(naive) << ", blocked " << dram_bytes(blocked));
  REQUIRE(dram_bytes(blocked) > 0);
  CHECK(dram_bytes(naive) >= 10 * dram_bytes(blocked));
  // The naive order misses on B at every step: at least 8n^3 / 8 lines' worth.
  CHECK(dram_bytes(naive) >= n * n * n);
}

TEST_CASE("sim: OpenMP per-thread counts sum to the whole") {
  require_sim_backend();
  if (!fs::exists(sample("omp_sum"))) {
    skip_test("omp_sum not built (the compiler has no OpenMP)");
  }
  const uint64_t n = 40000;
  auto work_rows = [&](const char* threads) {
    const json p = sim_profile({sample("omp_sum"), std::to_string(n), "8"}, {},
                               {std::string("OMP_NUM_THREADS=") + threads});
    std::map<std::string, uint64_t> total, rows;
    size_t nrows = 0;
    for (const auto& reg : p["regions"]) {
      if (reg["name"] != "work") continue;
      // Per-thread rows are stored by column: counters[name][row].
      const json& th = reg["threads"];
      const size_t n_rows = th["rows"].get<size_t>();
      for (const char* k : {"flops.dp.scalar", "bytes.l1.read", "bytes.l2.read"}) {
        total[k] += counter_of(reg, k);
        REQUIRE(th["counters"].contains(k));
        REQUIRE(th["counters"][k].size() == n_rows);
        for (const auto& v : th["counters"][k]) rows[k] += v.get<uint64_t>();
      }
      for (const auto& v : th["counters"]["flops.dp.scalar"]) {
        ++nrows;
        CHECK(v.get<uint64_t>() > 0);  // every thread worked
      }
    }
    CHECK(rows == total);  // per-thread rows add up to the regions' counts
    return std::pair{total, nrows};
  };
  const auto [two, rows2] = work_rows("2");
  const auto [one, rows1] = work_rows("1");
  CHECK(rows2 == 2);
  CHECK(rows1 == 1);
  // v[i] * v[i] summed: 2 FLOPs an element, and `total += s` once a chunk.
  CHECK(two.at("flops.dp.scalar") == 2 * n + 8);
  CHECK(one.at("flops.dp.scalar") == 2 * n + 8);
  CHECK(two.at("bytes.l1.read") >= 8 * n);
}

TEST_CASE("sim: each instruction counted once, by precision and width") {
  require_sim_backend();
  const uint64_t n = 500;
  const json p = sim_profile({sim_test_program("fp_ops"), std::to_string(n)});
  struct Want {
    const char* region;
    const char* cls;  // e.g. "dp.256"
    uint64_t flops_per_insn;
  };
  const Want wants[] = {
      {"mulsd", "dp.scalar", 1},         {"addss", "sp.scalar", 1},
      {"sqrtsd", "dp.scalar", 1},        {"vfmadd231sd", "dp.scalar", 2},
      {"vfmadd231ss", "sp.scalar", 2},   {"addpd", "dp.128", 2},
      {"mulps", "sp.128", 4},            {"maxpd", "dp.128", 2},
      {"addsubpd", "dp.128", 2},         {"haddpd", "dp.128", 2},
      {"vfmadd231pd_x", "dp.128", 4},    {"vfnmsub231ps_x", "sp.128", 8},
      {"vaddpd_y", "dp.256", 4},         {"vdivps_y", "sp.256", 8},
      {"vaddsubpd_y", "dp.256", 4},      {"vhaddpd_y", "dp.256", 4},
      {"vsqrtpd_y", "dp.256", 4},        {"vfmadd231pd_y", "dp.256", 8},
      {"vfmadd231ps_y", "sp.256", 16},   {"vfmaddsub231pd_y", "dp.256", 8},
      {"vfmadd231pd_mem", "dp.256", 8},  {"andpd", "", 0},
      {"cvtsi2sd", "", 0},
  };
  for (const Want& w : wants) {
    INFO(w.region);
    const json r = find_region(p, w.region);
    REQUIRE(r.is_object());
    CHECK(all_flops(r) == w.flops_per_insn * n);
    if (*w.cls) {
      CHECK(counter_of(r, std::string("flops.") + w.cls) == w.flops_per_insn * n);
      CHECK(counter_of(r, std::string("fpins.") + w.cls) == n);
    }
  }
  CHECK(counter_of(find_region(p, "vmovupd_load"), "bytes.l1.read") == 32 * n);
  CHECK(counter_of(find_region(p, "vmovupd_store"), "bytes.l1.write") == 32 * n);
  CHECK(counter_of(find_region(p, "vfmadd231pd_mem"), "bytes.l1.read") == 32 * n);
  CHECK(counter_of(find_region(p, "add_mem"), "bytes.l1.read") == 8 * n);
  CHECK(counter_of(find_region(p, "add_mem"), "bytes.l1.write") == 8 * n);
}

TEST_CASE("sim: a region holding only its markers or a flush counts nothing") {
  require_sim_backend();
  const json p = sim_profile({sim_test_program("fp_ops"), "200"});
  for (auto [name, calls] : {std::pair{"empty", 200}, std::pair{"flush", 2}}) {
    const json r = find_region(p, name);
    INFO(name);
    REQUIRE(r.is_object());
    CHECK(r["calls"] == calls);
    for (const auto& [k, v] : r["counters"].items()) {
      INFO(k);
      CHECK(v.get<uint64_t>() == 0);
    }
  }
}

TEST_CASE("sim: two runs joined: native times, simulated counts, output once") {
  require_sim_backend();
  RunResult r = rprof_run({"--backend=sim", "-q", sample("daxpy"), "2000", "3"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("daxpy: n=2000 reps=3") != std::string::npos);
  CHECK(r.out.find("daxpy: n=2000 reps=3") == r.out.rfind("daxpy: n=2000 reps=3"));
  CHECK(read_text(r.dir + "/sim/stdout.txt").find("daxpy: n=2000") != std::string::npos);
  const json p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["backend"] == "sim");
  const json d = find_region(p, "daxpy");
  CHECK(d["calls"] == 3);
  CHECK(d["time_s"].get<double>() > 0);
  CHECK(counter_of(d, "flops.dp.scalar") == 2 * 2000 * 3);
  CHECK(d["threads"]["counters"]["flops.dp.scalar"][0] == 2 * 2000 * 3);
  const json prog = find_region(p, "[program]");
  CHECK(all_flops(prog) >= all_flops(d));  // whole-run totals of the tool
  bool noted = false;
  for (const auto& note : p["notes"]) {
    noted |= note.get<std::string>().find("times from a native run") != std::string::npos;
    CHECK(note.get<std::string>().find("not deterministic") == std::string::npos);
  }
  CHECK(noted);
}

TEST_CASE("sim: call counts that differ between the runs are reported") {
  require_sim_backend();
  RunResult r = rprof_run({"--backend=sim", "-q", sim_test_program("nondet")});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "r")["calls"] == 2);  // from the timed run
  std::string notes;
  for (const auto& note : p["notes"]) notes += note.get<std::string>() + "\n";
  CHECK(notes.find("not deterministic") != std::string::npos);
  CHECK(notes.find("'r' 2 calls timed, 3 counted") != std::string::npos);
  CHECK(notes.find("extra") != std::string::npos);
}

TEST_CASE("sim: AVX-512 code is recognised and the fix is named") {
  require_sim_backend();
  if (!fs::exists(sim_test_program("avx512"))) {
    skip_test("the compiler cannot assemble AVX-512");
  }
  RunResult r = rprof_run({"--backend=sim", "--sim-only", "-q", sim_test_program("avx512")});
  CHECK(r.status == 1);
  CHECK(r.err.find("AVX-512") != std::string::npos);
  CHECK(r.err.find("-mno-avx512f") != std::string::npos);
  CHECK(r.err.find("--backend=time") != std::string::npos);
  CHECK(fs::exists(r.dir + "/profile.json"));  // the report is still written
}

TEST_CASE("sim: a sanitizer build is refused, and auto times it instead") {
  require_sim_backend();
  if (!fs::exists(sim_test_program("sanitized"))) {
    skip_test("no AddressSanitizer in this compiler");
  }
  RunResult r = rprof_run({"--backend=sim", sim_test_program("sanitized")});
  CHECK(r.status == 2);
  CHECK(r.err.find("AddressSanitizer") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  r = rprof_run({"-q", sim_test_program("sanitized")}, {"ASAN_OPTIONS=detect_leaks=0"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("timing only") != std::string::npos);
  CHECK(load_json(r.dir + "/profile.json")["run"]["backend"] == "time");
}

TEST_CASE("sim: --backend=auto falls back to the simulator with a notice") {
  require_sim_backend();
  RunResult r = rprof_run({"-q", sample("daxpy"), "1000", "1"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("counting by simulation") != std::string::npos);
  const json p = load_json(r.dir + "/profile.json");
  CHECK(counter_of(find_region(p, "daxpy"), "flops.dp.scalar") == 2000);
}

TEST_CASE("sim: bad options are one-line errors") {
  require_sim_backend();
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--backend=sim", "--sim-cache", "l1=33000:8"},
        {"--backend=sim", "--sim-cache", "l4=1M"},
        {"--backend=sim", "--sim-cache", "llc=1M:8:48"},
        {"--backend=time", "--sim-only"},
        {"--backend=time", "--sim-cache", "llc=1M"},
        {"--backend=bogus"}}) {
    std::vector<std::string> args = bad;
    args.push_back(sample("daxpy"));
    RunResult r = rprof_run(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.rfind("rprof: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(r.dir));  // refused before anything was created
  }
}

TEST_CASE("sim: an installed rprof finds its tool by itself") {
  require_sim_backend();
  const std::string prefix = fresh_dir("install");
  RunResult inst = run_command({RPROF_CMAKE_COMMAND, "--install", RPROF_BUILD_DIR,
                                "--prefix", prefix});
  INFO(inst.out << inst.err);
  REQUIRE(inst.status == 0);
  const std::string out = fresh_path("installed-out");
  RunResult r = run_command({prefix + "/bin/rprof", "-o", out, "--backend=sim",
                             "--sim-only", "-q", sample("daxpy"), "500", "1"},
                            {"RPROF_SIM_LIBDIR=", test_machine_env()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(out + "/profile.json");
  CHECK(counter_of(find_region(p, "daxpy"), "flops.dp.scalar") == 1000);
}
