// rprof diff on real counts: samples/fusion.c fused and unfused under the
// sim backend (Valgrind), the seeds' check of a transformation. Exits 77
// (skipped) with the reason when this build has no sim backend.
//
// Arrays of 1.6 MB against a simulated 256 KiB LLC, so the bytes reach DRAM.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

constexpr int kN = 200000, kReps = 3;

// rprof --backend=sim on the sample; the output directory.
RunResult sim_run(const char* mode) {
  return run_rprof({"--backend=sim", "--sim-only", "-q", "--sim-cache", "l2=64K:8,llc=256K:16",
                    sample("fusion"), mode, std::to_string(kN), std::to_string(kReps)});
}

// Skips the test unless `rprof --backend=sim` works here: builds without the
// sim backend, or without Valgrind, refuse it with a one-line reason.
void require_sim() {
  const RunResult r = run_rprof({"--backend=sim", "-q", sample("daxpy"), "10", "1"});
  if (r.status == 0) return;
  std::printf("skipped: rprof --backend=sim does not run here: %s", r.err.c_str());
  std::exit(RPROF_SKIP_CODE);
}

}  // namespace

TEST_CASE("sim: rprof diff shows fusion's byte reduction at the same FLOPs") {
  require_sim();
  const RunResult before = sim_run("unfused");
  INFO(before.err);
  REQUIRE(before.status == 0);
  const RunResult after = sim_run("fused");
  INFO(after.err);
  REQUIRE(after.status == 0);

  const RunResult r = run_command({RPROF_BIN, "diff", before.dir, after.dir, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json d = json::parse(r.out);
  json sweep;
  for (const json& reg : d["regions"]) {
    if (reg["path_string"] == "sweep") sweep = reg;
  }
  REQUIRE(sweep.is_object());
  // Same useful work: one multiply and one add per element, both runs.
  CHECK(sweep["flops"]["before"].get<double>() == Approx(2.0 * kN * kReps));
  CHECK(sweep["flops"]["ratio"].get<double>() == Approx(1));
  // L1: 40 B per element unfused, 24 fused (plus a few bytes per call).
  CHECK(sweep["bytes"]["l1"]["ratio"].get<double>() == Approx(24.0 / 40).epsilon(0.02));
  // DRAM: 56 B per element unfused (t and c each read for write-allocate
  // and written back), 32 B fused: 4/7. A few lines more from what
  // initialisation left in the caches.
  const double elems = 1.0 * kN * kReps;
  CHECK(sweep["bytes"]["dram"]["before"].get<double>() == Approx(56 * elems).epsilon(0.03));
  CHECK(sweep["bytes"]["dram"]["after"].get<double>() == Approx(32 * elems).epsilon(0.03));
  const double dram = sweep["bytes"]["dram"]["ratio"].get<double>();
  CHECK(dram == Approx(4.0 / 7).epsilon(0.03));
  CHECK(sweep["intensity"]["dram"]["ratio"].get<double>() == Approx(1 / dram));
  CHECK(d["only_before"].size() == 2);
  CHECK(d["only_after"] == json({"sweep/scale_add"}));

  const RunResult text = run_command({RPROF_BIN, "diff", before.dir, after.dir});
  REQUIRE(text.status == 0);
  CHECK(text.out.find("Bytes DRAM [GB]") != std::string::npos);
  CHECK(text.out.find("backend sim") != std::string::npos);
}

// The progress line of the simulated run (run/progress_line.h): forced on
// with RPROF_PROGRESS=1 it shows, with an estimate from the native run, and
// is erased; a stderr that is no terminal (here: a pipe) and -q get nothing.
TEST_CASE("sim: a progress line only on a terminal and never with -q") {
  require_sim();
  const std::vector<std::string> args = {"--backend=sim", sample("daxpy"), "1000", "1"};
  const RunResult forced = run_rprof(args, {"RPROF_PROGRESS=1"});
  INFO(forced.err);
  REQUIRE(forced.status == 0);
  CHECK(forced.err.find("\rrprof: simulating... 0 s of ~") != std::string::npos);
  // Erased at the end: the last carriage return is followed by blanks only.
  const size_t cr = forced.err.rfind('\r');
  REQUIRE(cr != std::string::npos);
  CHECK(forced.err.find_first_not_of(' ', forced.err.rfind('\r', cr - 1) + 1) == cr);

  const RunResult piped = run_rprof(args);
  INFO(piped.err);
  REQUIRE(piped.status == 0);
  CHECK(piped.err.find("simulating") == std::string::npos);
  CHECK(piped.err.find('\r') == std::string::npos);

  std::vector<std::string> quiet = args;
  quiet.insert(quiet.begin(), "-q");
  const RunResult q = run_rprof(quiet, {"RPROF_PROGRESS=1"});
  REQUIRE(q.status == 0);
  CHECK(q.err.find("simulating") == std::string::npos);
}
