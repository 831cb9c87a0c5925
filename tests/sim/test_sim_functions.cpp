// The function view (issue 14): rprof --functions on programs without
// markers whose functions do known work (tests/sim/functions.c, polybench.c
// built without rprof). Self FLOPs per function must be exact; under a marked
// region the functions appear as region/function; a stripped binary is
// grouped by object and address range, with a note; every function region
// gets a verdict in the reports.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

const char* const kCaches = "l1=32K:8:64,l2=256K:8:64,llc=2M:16:64";
constexpr uint64_t kN = 4096;  // the size passed to functions.c

json run_functions(const std::vector<std::string>& cmd, const std::string& functions = "--functions=1000",
                   const std::vector<std::string>& env = {}) {
  std::vector<std::string> args = {"--backend=sim", "--sim-only", "-q", "--sim-cache", kCaches,
                                   functions};
  args.insert(args.end(), cmd.begin(), cmd.end());
  std::vector<std::string> all_env = {test_machine_env()};
  all_env.insert(all_env.end(), env.begin(), env.end());
  const RunResult r = run_rprof(args, all_env);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return load_json(r.dir + "/profile.json");
}

bool has_note(const json& p, const std::string& part) {
  for (const json& n : p["notes"]) {
    if (n.get<std::string>().find(part) != std::string::npos) return true;
  }
  return false;
}

bool host_has_avx2() { return __builtin_cpu_supports("avx2"); }

// The self FLOPs of all function regions.
uint64_t function_flops(const json& p) {
  uint64_t flops = 0;
  for (const json& r : p["regions"]) {
    if (r.contains("function")) flops += all_flops(r);
  }
  return flops;
}

}  // namespace

TEST_CASE("sim functions: self FLOPs per function of an unannotated program are exact") {
  require_sim_backend();
  const json p = run_functions({sim_test_program("functions_plain"), std::to_string(kN)});
  const json dot = find_region(p, "[program]/dot");
  const json sum_f = find_region(p, "[program]/sum_f");
  const json both = find_region(p, "[program]/dot_and_sum");
  const json main_fn = find_region(p, "[program]/main");
  REQUIRE(dot.is_object());
  REQUIRE(sum_f.is_object());
  REQUIRE(both.is_object());
  REQUIRE(main_fn.is_object());
  // dot runs twice (from main and from dot_and_sum): 2 x 2N, a multiply and
  // an add per element, scalar double.
  CHECK(all_flops(dot) == 4 * kN);
  CHECK(counter_of(dot, "flops.dp.scalar") == 4 * kN);
  // sum_f twice: 2 x N scalar single adds.
  CHECK(all_flops(sum_f) == 2 * kN);
  CHECK(counter_of(sum_f, "flops.sp.scalar") == 2 * kN);
  // Self, not inclusive: the caller's own add only; main's two adds.
  CHECK(all_flops(both) == 1);
  CHECK(all_flops(main_fn) == 2);
  // Inclusive: dot_and_sum with its callees (one dot, one sum_f); main with
  // everything it called.
  const auto inclusive = [](const json& r) {
    return all_flops(json{{"counters", r["function"]["inclusive_counters"]}});
  };
  CHECK(inclusive(both) == 2 * kN + kN + 1);
  CHECK(inclusive(dot) == 4 * kN);
  CHECK(inclusive(main_fn) == all_flops(find_region(p, "[program]")));
  // Loads: dot reads 2 x 8 B per element, twice.
  CHECK(counter_of(dot, "bytes.l1.read") >= 2 * 16 * kN);
  const json scale = find_region(p, "[program]/scale8");
  if (host_has_avx2()) {
    REQUIRE(scale.is_object());
    CHECK(all_flops(scale) == kN);
    CHECK(counter_of(scale, "flops.sp.256") == kN);
    CHECK(counter_of(scale, "fpins.sp.256") == kN / 8);
  } else {
    CHECK(scale.is_null());
  }
  // Debug info: the source file and line of each function.
  REQUIRE(dot.contains("function"));
  CHECK(dot["function"]["symbol"] == "dot");
  CHECK(dot["function"]["source"].get<std::string>().find("functions.c:") != std::string::npos);
  // The functions' self FLOPs add up to the whole program's.
  CHECK(function_flops(p) == all_flops(find_region(p, "[program]")));
  CHECK(has_note(p, "times are simulated: --sim-only"));
  // Code outside .text no symbol covers (the PLT's stubs, called for malloc
  // and printf) is a range at its link-time address, as the sampled times
  // have it (a PIE: within the file), not at its address in the process.
  const std::string object = sim_test_program("functions_plain");
  size_t ranges = 0;
  for (const json& r : p["regions"]) {
    if (!r.contains("function") || r["function"]["object"] != object) continue;
    if (r["function"]["symbol"] != "") continue;
    const std::string name = r["name"];
    INFO(name);
    const size_t plus = name.rfind("+0x");
    REQUIRE(plus != std::string::npos);
    CHECK(std::stoull(name.substr(plus + 3), nullptr, 16) < std::filesystem::file_size(object));
    ++ranges;
  }
  CHECK(ranges >= 1);
}

TEST_CASE("sim functions: PolyBench-style kernels at -O0 -g count the source's FLOPs") {
  require_sim_backend();
  const json p = run_functions({sim_test_program("polybench_plain"), "gemm=20,22,24",
                                "atax=30,34", "trisolv=50", "jacobi1d=10,100"});
  struct Want {
    const char* fn;
    uint64_t flops;
  };
  const Want want[] = {{"gemm", 20 * 22 + 3 * 20 * 22 * 24},
                       {"atax", 4 * 30 * 34},
                       {"trisolv", 50 * 49 + 50},
                       {"jacobi1d", 6 * 10 * 98}};
  for (const Want& w : want) {
    const json r = find_region(p, std::string("[program]/") + w.fn);
    INFO(w.fn << ": source " << w.flops << " FLOPs");
    REQUIRE(r.is_object());
    std::printf("%-9s source %8llu FLOPs, counted %8llu FLOPs\n", w.fn,
                static_cast<unsigned long long>(w.flops),
                static_cast<unsigned long long>(all_flops(r)));
    CHECK(all_flops(r) == w.flops);
    CHECK(counter_of(r, "fpins.dp.scalar") == w.flops);
    CHECK(r["function"]["source"].get<std::string>().find("polybench.c:") != std::string::npos);
  }
}

TEST_CASE("sim functions: a marked region is opened up into region/function") {
  require_sim_backend();
  const json p = run_functions({sim_test_program("functions_marked"), std::to_string(kN)});
  const json phase = find_region(p, "phase");
  REQUIRE(phase.is_object());
  const json in_dot = find_region(p, "phase/dot");
  const json in_sum = find_region(p, "phase/sum_f");
  const json in_both = find_region(p, "phase/dot_and_sum");
  const json out_dot = find_region(p, "[program]/dot");
  REQUIRE(in_dot.is_object());
  REQUIRE(in_sum.is_object());
  REQUIRE(in_both.is_object());
  REQUIRE(out_dot.is_object());
  CHECK(all_flops(in_dot) == 2 * kN);
  CHECK(all_flops(in_sum) == kN);
  CHECK(all_flops(in_both) == 1);
  CHECK(all_flops(out_dot) == 2 * kN);
  // main has one add inside the region (r += dot_and_sum()) and one outside.
  CHECK(all_flops(find_region(p, "phase/main")) == 1);
  CHECK(all_flops(find_region(p, "[program]/main")) == 1);
  // The region's own count is its functions' sum.
  CHECK(all_flops(phase) == 2 * kN + kN + 1 + 1);
}

uint64_t inclusive_flops(const json& r) {
  return all_flops(json{{"counters", r["function"]["inclusive_counters"]}});
}

constexpr int kDepth = 64;  // functions_rec's recursion depth

TEST_CASE("sim functions: recursion, threads and a region opened inside a function") {
  require_sim_backend();
  const json p = run_functions({sim_test_program("functions_rec"), std::to_string(kDepth),
                                std::to_string(kN)});
  const json even = find_region(p, "[program]/even");
  const json odd = find_region(p, "[program]/odd");
  const json rec = find_region(p, "[program]/rec");
  REQUIRE(even.is_object());
  REQUIRE(odd.is_object());
  REQUIRE(rec.is_object());
  // Mutual recursion: one add per call, half the calls each; the outermost
  // even holds everything below it once, the outermost odd all but one.
  CHECK(all_flops(even) == kDepth / 2);
  CHECK(all_flops(odd) == kDepth / 2);
  CHECK(inclusive_flops(even) == kDepth);
  CHECK(inclusive_flops(odd) == kDepth - 1);
  // Direct recursion: counted once, not once per level.
  CHECK(all_flops(rec) == kDepth);
  CHECK(inclusive_flops(rec) == kDepth);
  // work runs on the second thread and in main, and in the region: 2N each.
  const json work = find_region(p, "[program]/work");
  REQUIRE(work.is_object());
  CHECK(all_flops(work) == 2 * 2 * kN);
  CHECK(inclusive_flops(work) == 2 * 2 * kN);
  // The region around the second thread's life has main's work only: what
  // each thread counted goes to its own totals across thread switches.
  CHECK(all_flops(find_region(p, "spawn")) == 2 * kN);
  CHECK(all_flops(find_region(p, "spawn/work")) == 2 * kN);
  const json inner_work = find_region(p, "inner/work");
  REQUIRE(inner_work.is_object());
  CHECK(all_flops(inner_work) == 2 * kN);
  // phased opens "inner" itself: its adds before and after the region are
  // its own under [program], the one inside under inner; its inclusive counts
  // (in the region open at its entry) hold all three and work's.
  const json phased = find_region(p, "[program]/phased");
  const json inner_phased = find_region(p, "inner/phased");
  REQUIRE(phased.is_object());
  REQUIRE(inner_phased.is_object());
  CHECK(all_flops(phased) == 2);
  CHECK(all_flops(inner_phased) == 1);
  CHECK(inclusive_flops(phased) == 3 + 2 * kN);
  // leaf: called per element from main and from work2 (in "inner"), counted
  // at its call sites: its 2 FLOPs and its return address (8 bytes) per
  // call; the callers keep their loads and the call's push.
  const json leaf = find_region(p, "[program]/leaf");
  const json inner_leaf = find_region(p, "inner/leaf");
  REQUIRE(leaf.is_object());
  REQUIRE(inner_leaf.is_object());
  CHECK(all_flops(leaf) == 2 * kN);
  CHECK(all_flops(inner_leaf) == 2 * kN);
  CHECK(counter_of(leaf, "bytes.l1.read") == 8 * kN);
  CHECK(counter_of(leaf, "bytes.l1.write") == 0);
  CHECK(counter_of(inner_leaf, "bytes.l1.read") == 8 * kN);
  const json work2 = find_region(p, "inner/work2");
  REQUIRE(work2.is_object());
  CHECK(all_flops(work2) == 0);
  CHECK(counter_of(work2, "bytes.l1.read") >= 8 * kN);   // x[i]
  CHECK(counter_of(work2, "bytes.l1.write") >= 8 * kN);  // the calls' pushes
  CHECK(inclusive_flops(work2) == 2 * kN);
  CHECK(all_flops(find_region(p, "inner")) == 1 + 2 * kN + 2 * kN);
  // Self counts add up to the whole program's ([program] is the whole run).
  CHECK(function_flops(p) == all_flops(find_region(p, "[program]")));
  CHECK_FALSE(has_note(p, "distinct call paths"));
}

// fib(n)'s adds: one per call with n >= 2.
uint64_t fib_adds(int n) { return n < 2 ? 0 : 1 + fib_adds(n - 1) + fib_adds(n - 2); }

TEST_CASE("sim functions: calls per element, branchy leaves, longjmp and a handler: exact self and inclusive") {
  require_sim_backend();
  constexpr uint64_t n = 1000;  // functions_calls' N
  const json p = run_functions({sim_test_program("functions_calls"), std::to_string(n)});
  const auto fn = [&](const char* name) {
    const json r = find_region(p, std::string("[program]/") + name);
    INFO(name);
    REQUIRE(r.is_object());
    return r;
  };
  // leaf2: 2 FLOPs per call, from mid (n + 8 calls) and the handler (5).
  CHECK(all_flops(fn("leaf2")) == 2 * (n + 8 + 5));
  CHECK(inclusive_flops(fn("leaf2")) == 2 * (n + 8 + 5));
  // mid, called per element from main and from jumper: its multiply, and
  // leaf2's two below it.
  CHECK(all_flops(fn("mid")) == n + 8);
  CHECK(inclusive_flops(fn("mid")) == 3 * (n + 8));
  // A leaf whose superblock branches: only the even calls multiply.
  CHECK(all_flops(fn("half_if_even")) == n / 2);
  // jumper: no FP work of its own; mid's below it, whether it returned or
  // longjmp'ed out (the two jumps leave nothing behind on the stack).
  CHECK(all_flops(fn("jumper")) == 0);
  CHECK(inclusive_flops(fn("jumper")) == 3 * 8);
  CHECK(all_flops(fn("fib")) == fib_adds(15));
  CHECK(inclusive_flops(fn("fib")) == fib_adds(15));
  CHECK(all_flops(fn("on_signal")) == 0);
  CHECK(inclusive_flops(fn("on_signal")) == 2 * 5);
  // main does none itself and holds everything: the handler runs under raise.
  CHECK(all_flops(fn("main")) == 0);
  CHECK(inclusive_flops(fn("main")) == all_flops(find_region(p, "[program]")));
  CHECK(function_flops(p) == all_flops(find_region(p, "[program]")));
}

TEST_CASE("sim functions: past the call-path limit, self counts stay exact and a note says so") {
  require_sim_backend();
  // A tree of 32 call paths: the mutual recursion (64 deep) does not fit.
  const json p = run_functions({sim_test_program("functions_rec"), std::to_string(kDepth),
                                std::to_string(kN)},
                               "--functions=1000", {"VALGRIND_OPTS=--rp-fn-max-paths=32"});
  CHECK(has_note(p, "distinct call paths"));
  const json even = find_region(p, "[program]/even");
  const json odd = find_region(p, "[program]/odd");
  REQUIRE(even.is_object());
  REQUIRE(odd.is_object());
  CHECK(all_flops(even) == kDepth / 2);
  CHECK(all_flops(odd) == kDepth / 2);
  CHECK(inclusive_flops(even) <= kDepth);
  CHECK(all_flops(find_region(p, "[program]/work")) == 2 * 2 * kN);
  CHECK(all_flops(find_region(p, "[program]/leaf")) == 2 * kN);
}

TEST_CASE("sim functions: what a process counted before its exec is kept, a failed exec counts once") {
  require_sim_backend();
  // functions_exec: before (N FLOPs), an exec that fails, after (2N FLOPs),
  // then an exec of itself, which does the same and execs functions_plain
  // (its counts as in the first case): three images of one pid, four execs.
  const json p = run_functions({sim_test_program("functions_exec"), std::to_string(kN),
                                sim_test_program("functions_exec"), std::to_string(kN),
                                sim_test_program("functions_plain"), std::to_string(kN)});
  const json before = find_region(p, "[program]/before");
  const json after = find_region(p, "[program]/after");
  const json dot = find_region(p, "[program]/dot");
  REQUIRE(before.is_object());
  REQUIRE(after.is_object());
  REQUIRE(dot.is_object());
  CHECK(all_flops(before) == 2 * kN);
  CHECK(counter_of(before, "flops.dp.scalar") == 2 * kN);
  CHECK(all_flops(after) == 2 * 2 * kN);
  CHECK(all_flops(dot) == 4 * kN);
  CHECK(all_flops(find_region(p, "[program]/sum_f")) == 2 * kN);
  // The whole run's totals hold both images, each counted once.
  const uint64_t plain = 4 * kN + 2 * kN + 1 + 2 + (host_has_avx2() ? kN : 0);
  CHECK(all_flops(find_region(p, "[program]")) == 2 * (kN + 2 * kN) + plain);
  CHECK(function_flops(p) == all_flops(find_region(p, "[program]")));
}

TEST_CASE("sim functions: a binary without symbols is grouped by object and address range") {
  require_sim_backend();
  const json p = run_functions({sim_test_program("functions_stripped"), std::to_string(kN)});
  CHECK(has_note(p, "no symbols for"));
  uint64_t flops = 0;
  size_t ranges = 0;
  for (const json& r : p["regions"]) {
    if (!r.contains("function")) continue;
    const std::string object = r["function"]["object"];
    if (object.find("functions_stripped") == std::string::npos) continue;
    CHECK(r["function"]["symbol"] == "");
    CHECK(r["name"].get<std::string>().rfind("functions_stripped+0x", 0) == 0);
    flops += all_flops(r);
    ++ranges;
  }
  CHECK(ranges >= 1);
  const uint64_t want = 4 * kN + 2 * kN + 1 + 2 + (host_has_avx2() ? kN : 0);
  CHECK(flops == want);
}

TEST_CASE("sim functions: on by default without markers, every function with a verdict") {
  require_sim_backend();
  const RunResult r = run_rprof({"--backend=sim", "--sim-only", "-q", "--sim-cache",
                                 kCaches, sim_test_program("functions_plain"), "1024"},
                                {test_machine_env()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("the program has no markers") == std::string::npos);  // a note, not stderr
  const RunResult js = run_command({RPROF_BIN, "report", "--format", "json", r.dir}, {test_machine_env()});
  INFO(js.err);
  REQUIRE(js.status == 0);
  const json report = json::parse(js.out);
  bool default_note = false;
  for (const json& n : report["notes"]) {
    default_note |= n.get<std::string>().find("the program has no markers") != std::string::npos;
  }
  CHECK(default_note);
  size_t functions = 0;
  for (const json& g : report["regions"]) {
    if (!g.contains("function")) continue;
    ++functions;
    INFO(g["name"]);
    REQUIRE(g.contains("verdict"));
    CHECK(g["verdict"]["bound"] != "unknown");
  }
  CHECK(functions >= 4);
  const RunResult text = run_command({RPROF_BIN, "report", r.dir}, {test_machine_env()});
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("dot (functions.c:") != std::string::npos);
  CHECK(text.out.find("times are simulated") != std::string::npos);
}

TEST_CASE("sim functions: a bad --functions=N is a one-line error") {
  for (const char* bad : {"--functions=0", "--functions=abc", "--functions=-3"}) {
    const RunResult r = run_rprof({"--backend=sim", bad, "/bin/true"}, {test_machine_env()});
    INFO(bad << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("--functions=") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("sim functions: a bad --sample-period is a one-line error") {
  for (const char* bad : {"--sample-period=5us", "--sample-period=fast", "--sample-period=250",
                          "--sample-period=0Hz", "--sample-period=2s"}) {
    const RunResult r =
        run_rprof({"--backend=sim", "--functions", bad, "/bin/true"}, {test_machine_env()});
    INFO(bad << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(std::string(bad) + ": ") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // Without the function view it has nothing to set.
  const RunResult r =
      run_rprof({"--backend=time", "--sample-period=1ms", "/bin/true"}, {test_machine_env()});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("--sample-period sets the function view's sampling") != std::string::npos);
}
