// The function view (issue 14): rprof --functions on programs without
// markers whose functions do known work (tests/sim/functions.c, polybench.c
// built without rprof). Self FLOPs per function must be exact; under a marked
// region the functions appear as region/function; a stripped binary is
// grouped by object and address range, with a note; every function region
// gets a verdict in the reports.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

const char* const kCaches = "l1=32K:8:64,l2=256K:8:64,llc=2M:16:64";
constexpr uint64_t kN = 4096;  // the size passed to functions.c

json run_functions(const std::vector<std::string>& cmd, const std::string& functions = "--functions=1000") {
  std::vector<std::string> args = {"--backend=sim", "--sim-only", "-q", "--sim-cache", kCaches,
                                   functions};
  args.insert(args.end(), cmd.begin(), cmd.end());
  const RunResult r = run_rprof(args, {test_machine_env()});
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
  uint64_t fn_flops = 0;
  for (const json& r : p["regions"]) {
    if (r.contains("function")) fn_flops += all_flops(r);
  }
  CHECK(fn_flops == all_flops(find_region(p, "[program]")));
  CHECK(has_note(p, "times are simulated: --sim-only"));
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
