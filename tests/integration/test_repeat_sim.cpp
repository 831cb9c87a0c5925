// rprof --repeat N (issue 31): N timed runs of the program, the counts once.
// samples/daxpy with the sim backend (Valgrind: exact counts) on the recorded
// default machine: three native timed runs and one simulated counted run,
// counts equal to a single run's exactly, the time over the runs (min <=
// median <= max, spread = (max - min) / median) in profile.json, the text,
// CSV, SVG and HTML reports; rprof check --baseline with the runs' own spread
// as its tolerance (on profiles whose times the test sets: tests do not time
// things); bad values of --repeat. The sim cases exit 77 (skipped) with the
// reason when this build has no sim backend; the bad-input case runs first.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

constexpr int kN = 100000, kReps = 2;
const char* kSimCache = "l2=64K:8,llc=256K:16";

void require_sim() {
  const RunResult r = run_rprof({"--backend=sim", "-q", "--sim-only", sample("daxpy"), "10", "1"});
  if (r.status == 0) return;
  std::printf("skipped: rprof --backend=sim does not run here: %s", r.err.c_str());
  std::exit(RPROF_SKIP_CODE);
}

RunResult daxpy(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--backend=sim", "--sim-cache", kSimCache};
  args.insert(args.end(), extra.begin(), extra.end());
  for (const std::string& a : {sample("daxpy"), std::to_string(kN), std::to_string(kReps)}) {
    args.push_back(a);
  }
  RunResult r = run_rprof(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A copy of run's profile.json whose region daxpy took `median` seconds, its
// 3 timed runs within `median` x (1 -+ half_spread).
std::string with_times(const std::string& run_dir, const std::string& name, double median,
                       double half_spread) {
  json p = load_json(run_dir + "/profile.json");
  for (json& g : p["regions"]) {
    if (g["name"] != "daxpy") continue;
    g["time_s"] = median;
    g["repeat_times"] = {{"runs", 3},
                         {"min_time_s", median * (1 - half_spread)},
                         {"median_time_s", median},
                         {"max_time_s", median * (1 + half_spread)},
                         {"spread", 2 * half_spread}};
  }
  const std::string dir = fresh_dir("repeat-" + name);
  std::ofstream(dir + "/profile.json") << p.dump(1);
  return dir;
}

}  // namespace

TEST_CASE("rprof --repeat: a bad value is one line and exit 2") {
  struct Case {
    std::string value, err;
  };
  const std::string range = "rprof: --repeat expects a number of timed runs from 1 to 1000, not '";
  for (const Case& c : std::vector<Case>{{"0", range + "0'\n"},
                                         {"abc", range + "abc'\n"},
                                         {"-1", range + "-1'\n"},
                                         {"1001", range + "1001'\n"},
                                         {"3x", range + "3x'\n"}}) {
    const RunResult r = run_rprof({"--backend=time", "-q", "--repeat=" + c.value, sample("daxpy"),
                                   "1000", "1"});
    INFO(c.value << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err == c.err);
    // Nothing ran: the program's line is not on stdout.
    CHECK(count(r.out, "daxpy: n=") == 0);
  }
}

TEST_CASE("sim: --repeat 3 runs the program natively 3 times and simulates it once") {
  require_sim();
  const RunResult once = daxpy({"-q"});
  const RunResult rep = daxpy({"--repeat", "3", "--format", "csv"});
  // The program's own line on stdout: once per native timed run (the
  // simulated run's output is not shown again): 3, against 1 for a single run.
  CHECK(count(rep.out, "daxpy: n=100000 reps=2") == 3);
  CHECK(count(once.out, "daxpy: n=100000 reps=2") == 1);
  CHECK_THAT(rep.err, Catch::Contains("rprof: timed run 3 of 3\n"));
  CHECK(std::filesystem::is_directory(rep.dir + "/raw-repeat/run2"));
  CHECK(std::filesystem::is_directory(rep.dir + "/raw-repeat/run3"));
  CHECK(!std::filesystem::exists(rep.dir + "/raw-repeat/run4"));

  const json p = load_json(rep.dir + "/profile.json");
  const json p1 = load_json(once.dir + "/profile.json");
  CHECK(p["run"]["repeat"] == 3);
  CHECK(!p1["run"].contains("repeat"));
  for (const std::string path : {"daxpy", "init"}) {
    INFO(path);
    const json g = find_region(p, path), g1 = find_region(p1, path);
    REQUIRE(g.is_object());
    REQUIRE(g1.is_object());
    CHECK(!g1.contains("repeat_times"));
    // Calls per run unchanged; the counts exactly a single run's.
    CHECK(g["calls"] == (path == "daxpy" ? kReps : 1));
    CHECK(g["calls"] == g1["calls"]);
    CHECK(g["counters"] == g1["counters"]);
    const json& t = g["repeat_times"];
    CHECK(t["runs"] == 3);
    const double lo = t["min_time_s"], med = t["median_time_s"], hi = t["max_time_s"];
    CHECK(lo > 0);
    CHECK(lo <= med);
    CHECK(med <= hi);
    CHECK(t["spread"].get<double>() == Approx((hi - lo) / med).epsilon(1e-12));
    // time_s is one of the runs' (the first).
    CHECK(g["time_s"].get<double>() >= lo);
    CHECK(g["time_s"].get<double>() <= hi);
  }
  // The counts compared above are there (simulated FLOPs and bytes).
  CHECK(find_region(p, "daxpy")["counters"].size() >= 4);

  // CSV on stdout (the last columns), text report, chart and HTML.
  CHECK_THAT(rep.out, Catch::Contains(",repeat_runs,min_time_s,median_time_s,max_time_s,"
                                      "time_spread\n"));
  const std::string daxpy_row = rep.out.substr(rep.out.find("\ndaxpy,daxpy,0,2,") + 1);
  const std::string row = daxpy_row.substr(0, daxpy_row.find('\n'));
  CHECK(count(row, ",3,") >= 1);
  const std::string text = read_text(rep.dir + "/report.txt");
  CHECK_THAT(text, Catch::Contains("Spread [%]"));
  CHECK_THAT(text, Catch::Contains("--repeat 3: Time is the first timed run's"));
  const std::string svg = read_text(rep.dir + "/roofline.svg");
  // Error bars for the regions with FLOPs: daxpy and [program] (init has none).
  CHECK(count(svg, "data-role=\"repeat-spread\" data-runs=\"3\"") == 2);
  const std::string html = read_text(rep.dir + "/report.html");
  CHECK_THAT(html, Catch::Contains("data-role=\"repeat-spread\" data-runs=\"3\""));
  CHECK_THAT(html, Catch::Contains("\"repeat_times\""));
  // A single run shows none of it.
  CHECK_THAT(read_text(once.dir + "/report.txt"), !Catch::Contains("Spread [%]"));
  CHECK(count(read_text(once.dir + "/roofline.svg"), "repeat-spread") == 0);

  // --sim-only has no timed run to repeat.
  const RunResult only = run_rprof({"--backend=sim", "-q", "--sim-only", "--repeat", "2",
                                    sample("daxpy"), "10", "1"});
  CHECK(only.status == 2);
  CHECK(only.err == "rprof: --repeat needs a timed native run (not with --sim-only)\n");
}

TEST_CASE("sim: rprof check --baseline uses the runs' own spread as the tolerance") {
  require_sim();
  const RunResult run = daxpy({"-q", "--repeat", "3"});
  // Baseline: median 1 s, runs within +-10% (spread 20%).
  const std::string before = with_times(run.dir, "before", 1.0, 0.10);
  // 15% slower, runs within +-5% (spread 10%): within the larger spread, 20%,
  // though beyond the default 10%.
  const std::string slower = with_times(run.dir, "slower", 1.15, 0.05);
  // 30% slower: beyond it.
  const std::string slowest = with_times(run.dir, "slowest", 1.30, 0.05);

  RunResult r = run_command({RPROF_BIN, "check", "--baseline", before, slower});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("median time and GFLOP/s within the runs' own spread, "
                                    "(max - min) / median, the larger of the two (both runs "
                                    "repeated: 3 and 3 timed runs;"));
  CHECK_THAT(r.out, Catch::Contains("median 1.15 s (+15.0%) within 20%"));

  r = run_command({RPROF_BIN, "check", "--baseline", before, slowest});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("daxpy: regression: median time 1 s -> 1.3 s (+30.0%), beyond "
                                    "the 20% tolerance (the runs' spread, median of 3 and 3 runs)"));
  CHECK_THAT(r.out, Catch::Contains("daxpy: regression: median "));
  CHECK_THAT(r.out, Catch::Contains("GFLOP/s (-23.1%, FMA = 2 FLOPs), beyond the 20% tolerance"));

  // --tolerance overrides the spread: 50% lets 30% pass.
  r = run_command({RPROF_BIN, "check", "--baseline", before, slowest, "--tolerance", "0.5"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("time and GFLOP/s within 50% (--tolerance)"));

  // A baseline that was not repeated: the default tolerance, 10%: 15% slower fails.
  json p = load_json(before + "/profile.json");
  p["run"].erase("repeat");
  for (json& g : p["regions"]) g.erase("repeat_times");
  const std::string plain = fresh_dir("repeat-plain");
  std::ofstream(plain + "/profile.json") << p.dump(1);
  r = run_command({RPROF_BIN, "check", "--baseline", plain, slower});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("daxpy: regression: time 1 s -> 1.15 s (+15.0%), beyond the "
                                    "10% tolerance"));
}
