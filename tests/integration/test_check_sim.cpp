// rprof check as a CI job runs it: samples/daxpy counted by the sim backend
// (Valgrind: exact FLOPs and bytes) on the recorded default machine, rules
// that hold and rules that fail (exit codes, the failing rule's message,
// JUnit XML checked by xmllint, GitHub annotations), and a regression made
// on purpose (more elements: more FLOPs, a changed program). Exits 77
// (skipped) with the reason when this build has no sim backend.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;

namespace {

constexpr int kN = 100000, kReps = 2;
// Arrays of 800 kB against a simulated 256 KiB LLC: the bytes reach DRAM.
const char* kSimCache = "l2=64K:8,llc=256K:16";

RunResult daxpy(int n, bool sim_only) {
  std::vector<std::string> args = {"--backend=sim", "-q", "--sim-cache", kSimCache};
  if (sim_only) args.push_back("--sim-only");
  for (const std::string& a : {sample("daxpy"), std::to_string(n), std::to_string(kReps)}) {
    args.push_back(a);
  }
  RunResult r = run_rprof(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r;
}

void require_sim() {
  const RunResult r = run_rprof({"--backend=sim", "-q", "--sim-only", sample("daxpy"), "10", "1"});
  if (r.status == 0) return;
  std::printf("skipped: rprof --backend=sim does not run here: %s", r.err.c_str());
  std::exit(RPROF_SKIP_CODE);
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = fresh_dir("check") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The one line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  size_t at = text.rfind("\n" + prefix);
  if (text.rfind(prefix, 0) == 0)
    at = 0;
  else if (at == std::string::npos)
    return "";
  else
    ++at;
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE(
    "sim: rprof check passes rules that hold, fails one that does not (exit 1, its message)") {
  require_sim();
  const RunResult run = daxpy(kN, false);
  // 2 FLOPs an element and call (FMA = 2), exactly.
  const double flops = 2.0 * kN * kReps;
  const std::string ok =
      write_file("ok.toml",
                 "# daxpy as docs/ci.md writes it\n"
                 "[[rule]]\n"
                 "region = \"daxpy\"\n"
                 "flops = " +
                     std::to_string(static_cast<long>(flops)) +
                     "\n"
                     "flags_absent = [\"load-imbalance\", \"traffic-above-ideal\"]\n"
                     "max_time_s = 60\n"
                     "[[rule]]\n"
                     "region = \"**/init\"\n"
                     "flops = 0\n");
  RunResult r = run_command({RPROF_BIN, "check", run.dir, "--rules", ok});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::EndsWith("rprof check: passed: 5 checks\n"));

  const std::string bad = write_file("bad.toml",
                                     "[[rule]]\n"
                                     "region = \"daxpy\"\n"
                                     "flops = " +
                                         std::to_string(static_cast<long>(flops)) +
                                         "\n"
                                         "\n"
                                         "[[rule]]\n"
                                         "name = \"more work\"\n"
                                         "region = \"daxpy\"\n"
                                         "flops = " +
                                         std::to_string(static_cast<long>(flops) + 1) +
                                         "\n"
                                         "[[rule]]\n"
                                         "region = \"daxpy\"\n"
                                         "bound = \"compute\"\n");
  const std::string junit = fresh_dir("junit") + "/check.xml";
  r = run_command({RPROF_BIN, "check", run.dir, "--rules", bad, "--junit", junit, "--github"});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("rprof check: FAILED: 2 of 3 checks failed\n"));
  const std::string want =
      "more work: daxpy: counted 400000 FLOPs (FMA = 2), expected 400001 "
      "FLOPs (exactly)";
  CHECK_THAT(r.out, Catch::Contains("\n  " + want + "\n"));
  // daxpy's 1/12 FLOP/byte is below every ridge: memory-bound, or below
  // every roof on a host slower than the recorded machine; never compute.
  CHECK_THAT(line_starting(r.out, "  daxpy: bound is "), Catch::Contains(", not compute"));
  CHECK(line_starting(r.out, "::error file=" + bad + ",line=5,") ==
        "::error file=" + bad + ",line=5,title=rprof check (rules)::" + want);
  CHECK_THAT(line_starting(r.out, "::error file=" + bad + ",line=9,"),
             Catch::Contains("::daxpy: bound is "));

  // The JUnit file is well-formed XML with the counts.
  const RunResult lint = run_command({"xmllint", "--noout", junit});
  INFO(lint.err);
  CHECK(lint.status == 0);
  const std::string xml = read_text(junit);
  CHECK_THAT(xml, Catch::Contains("<testsuites name=\"rprof check\" tests=\"3\" failures=\"2\">"));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"" + want + "\" type=\"rule\">"));
}

TEST_CASE("sim: rprof check --baseline: the same program passes, more work is a changed program") {
  require_sim();
  const RunResult before = daxpy(kN, true);
  const RunResult same = daxpy(kN, true);
  const RunResult more = daxpy(kN + kN / 5, true);  // 20% more elements
  RunResult r =
      run_command({RPROF_BIN, "check", "--counts-only", "--baseline", before.dir, same.dir});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("FLOPs and bytes exact (counted by simulation in both runs)"));
  CHECK_THAT(r.out, Catch::Contains("rprof check: passed: "));

  r = run_command(
      {RPROF_BIN, "check", "--counts-only", "--baseline", before.dir, more.dir, "--github"});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(
      r.out,
      Catch::Contains(
          "\n  daxpy: changed program: FLOPs 400000 FLOPs -> 480000 FLOPs (+20.00%) (exact counts: "
          "not noise; update the baseline if the change is intended)\n"));
  CHECK_THAT(r.out, Catch::Contains("::error file=" + more.dir +
                                    "/profile.json,title=rprof check (baseline)::daxpy: changed "
                                    "program: FLOPs 400000 FLOPs -> 480000 FLOPs (+20.00%25)"));
  // The same call counts: the change is in the work, not in the markers.
  CHECK_THAT(r.out, !Catch::Contains("changed program: calls"));
  // FLOPs exactly 2 an element: 20% more, whatever the bytes did.
  CHECK_THAT(r.out,
             Catch::Contains("\n  daxpy: changed program: bytes at L1 4800064 B -> 5760064 B "
                             "(+20.00%)"));
}

// The app's environment carries the output directory, rprof's pid-named
// tables directory and PWD; the launcher pads them (run/launcher.h) so the
// initial stack, which the simulated caches see, does not move with them.
TEST_CASE("sim: counts do not move with the -o path, the working directory or the pid") {
  require_sim();
  const std::string short_cwd = fresh_dir("c");
  const std::string long_cwd =
      fresh_dir("a-working-directory-with-a-much-longer-name-than-the-other-one-has-by-far");
  // docs/ci.md's recipe: -o ci/baseline, then -o run, each from its directory.
  const std::string baseline = long_cwd + "/ci/baseline-with-a-long-name-" + std::string(150, 'x');
  const std::string run = short_cwd + "/r";
  std::filesystem::create_directories(long_cwd + "/ci");
  auto in_dir = [&](const std::string& cwd, const std::string& out) {
    RunResult r = run_command({"sh", "-c", "cd \"$0\" && exec \"$@\"", cwd, RPROF_BIN,
                               "--backend=sim", "-q", "--sim-cache", kSimCache, "-o", out,
                               sample("daxpy"), std::to_string(kN), std::to_string(kReps)});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return load_json(out + "/profile.json");
  };
  const nlohmann::json a = in_dir(long_cwd, baseline);
  const nlohmann::json b = in_dir(short_cwd, run);
  size_t compared = 0;
  for (const auto& ra : a["regions"]) {
    const std::string path = ra["path"].dump();
    const auto rb = std::find_if(b["regions"].begin(), b["regions"].end(),
                                 [&](const nlohmann::json& r) { return r["path"].dump() == path; });
    REQUIRE(rb != b["regions"].end());
    INFO(path);
    REQUIRE(ra["counters"].size() > 2);
    CHECK(ra["counters"] == (*rb)["counters"]);
    ++compared;
  }
  CHECK(compared == b["regions"].size());
  CHECK(compared >= 2);  // [program] and daxpy
  const RunResult r =
      run_command({RPROF_BIN, "check", "--baseline", baseline, run, "--counts-only"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("rprof check: passed: "));
}

TEST_CASE("rprof check: bad input exits 2 with one line") {
  const RunResult run = run_rprof({"--backend=time", "-q", sample("daxpy"), "1000", "1"});
  REQUIRE(run.status == 0);
  const std::string rules = write_file("r.toml", "[[rule]]\nregion = \"daxpy\"\nmax_time_s = 60\n");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::string typo = write_file("typo.toml", "[[rule]]\nregion = \"daxpy\"\nmax_time = 1\n");
  const std::vector<Case> cases = {
      {{"check", run.dir},
       "rprof: nothing to check: give --rules FILE, --baseline OLD, or both "
       "(docs/ci.md)\n"},
      {{"check", "/nonexistent", "--rules", rules},
       "rprof: /nonexistent: no such file or directory\n"},
      {{"check", run.dir, "--rules", "/nonexistent.toml"},
       "rprof: /nonexistent.toml: no such file or directory\n"},
      {{"check", run.dir, "--rules", typo},
       "rprof: " + typo +
           ":3: max_time: unknown key (the keys are: region, name, optional, "
           "min_fraction_of_roof, bound, boundary, min_gflops, max_time_s, flags_absent, flops, "
           "bytes_l1, bytes_l2, bytes_llc, bytes_dram, count_tolerance)\n"},
      {{"check", run.dir, "--rules", "/dev/zero"}, ""},
      {{"check", run.dir, "--baseline", run.dir, "--tolerance", "-1"},
       "rprof: --tolerance must be a relative change between 0 and 10 (0.10 = 10%)\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {RPROF_BIN};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const RunResult r = run_command(argv);
    INFO(c.args[1] << " " << (c.args.size() > 3 ? c.args[3] : ""));
    CHECK(r.status == 2);
    if (!c.err.empty()) CHECK(r.err == c.err);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // The time backend counts no FLOPs: a FLOP rule fails (exit 1) and says so.
  const std::string flops = write_file("f.toml", "[[rule]]\nregion = \"daxpy\"\nflops = 2000\n");
  const RunResult r = run_command({RPROF_BIN, "check", run.dir, "--rules", flops});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("\n  daxpy: no FLOP counts in this run\n"));
}
