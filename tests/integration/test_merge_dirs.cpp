// `rprof merge` of output directories keeps every counter the runs had: a
// --backend=sim output (timed raw/ + simulated raw-sim/ + sim/ totals) merges
// to the same counts and verdicts as the run wrote; perf's event groups
// (raw/pass1, raw/pass2) merge per region; outputs of different kinds of runs
// are refused with one line saying what is missing.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "hwcounters/perf_probe.h"
#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void require_sim() {
  const RunResult r = run_rprof({"--backend=sim", "-q", sample("daxpy"), "10", "1"});
  if (r.status == 0) return;
  std::printf("skipped: rprof --backend=sim does not run here: %s", r.err.c_str());
  std::exit(RPROF_SKIP_CODE);
}

// Every region's FLOP and byte counters (inclusive, exclusive, per thread)
// and its verdict are the same in both profiles.
void check_same_counts(const json& run, const json& merged) {
  REQUIRE(run["regions"].size() == merged["regions"].size());
  for (const json& r : run["regions"]) {
    std::string path;
    for (const json& p : r["path"]) path += (path.empty() ? "" : "/") + p.get<std::string>();
    INFO(path);
    const json m = find_region(merged, path);
    REQUIRE(m.is_object());
    CHECK(m["calls"] == r["calls"]);
    CHECK(m["counters"] == r["counters"]);
    CHECK(m["exclusive_counters"] == r["exclusive_counters"]);
    CHECK(m["threads"]["counters"] == r["threads"]["counters"]);
    CHECK(m.contains("verdict") == r.contains("verdict"));
    if (r.contains("verdict")) CHECK(m["verdict"] == r["verdict"]);
  }
}

}  // namespace

TEST_CASE("rprof merge of a --backend=sim output gives the run counts and label and verdicts") {
  require_sim();
  const RunResult run = run_rprof({"--backend=sim", "-q", sample("daxpy"), "20000", "3"});
  INFO(run.err);
  REQUIRE(run.status == 0);
  const json before = load_json(run.dir + "/profile.json");
  const std::string out = fresh_path("merged-sim");
  const RunResult m = run_command({RPROF_BIN, "merge", "-o", out, "--format", "json", run.dir});
  INFO(m.err);
  REQUIRE(m.status == 0);
  const json after = load_json(out + "/profile.json");
  CHECK(after["run"]["backend"] == "sim");
  CHECK(after["counters"] == before["counters"]);
  const json daxpy = find_region(after, "daxpy");
  REQUIRE(daxpy.is_object());
  // daxpy: 2 FLOPs (a multiply and an add, or one FMA) per element and repetition.
  uint64_t flops = 0;
  for (const auto& [k, v] : daxpy["counters"].items()) {
    if (k.rfind("flops.dp.", 0) == 0) flops += v.get<uint64_t>();
  }
  CHECK(flops == uint64_t{2} * 20000 * 3);
  check_same_counts(before, after);
  CHECK(find_region(after, "[program]")["counters"] == find_region(before, "[program]")["counters"]);
  for (const char* file : {"/report.txt", "/report.html", "/roofline.svg"}) {
    CHECK(fs::exists(out + file));
  }
}

TEST_CASE("rprof merge of two --backend=sim outputs sums every counter per region") {
  require_sim();
  const RunResult a = run_rprof({"--backend=sim", "-q", sample("daxpy"), "10000", "1"});
  const RunResult b = run_rprof({"--backend=sim", "-q", sample("daxpy"), "10000", "2"});
  INFO(a.err << b.err);
  REQUIRE((a.status == 0 && b.status == 0));
  const RunResult m = run_command({RPROF_BIN, "merge", "--format", "json", a.dir, b.dir});
  INFO(m.err);
  REQUIRE(m.status == 0);
  const json p = json::parse(m.out);
  CHECK(p["run"]["backend"] == "sim");
  CHECK(p["run"]["processes"] == 2);
  const json daxpy = find_region(p, "daxpy");
  REQUIRE(daxpy.is_object());
  CHECK(daxpy["calls"] == 3);
  CHECK(daxpy["threads"]["rows"] == 2);
  uint64_t flops = 0;
  for (const auto& [k, v] : daxpy["counters"].items()) {
    if (k.rfind("flops.dp.", 0) == 0) flops += v.get<uint64_t>();
  }
  CHECK(flops == uint64_t{2} * 10000 * 3);
  // Every counter of both runs, summed: bytes too.
  const json da = find_region(load_json(a.dir + "/profile.json"), "daxpy");
  const json db = find_region(load_json(b.dir + "/profile.json"), "daxpy");
  for (const auto& [k, v] : da["counters"].items()) {
    INFO(k);
    CHECK(daxpy["counters"][k].get<uint64_t>() ==
          v.get<uint64_t>() + db["counters"].value(k, uint64_t{0}));
  }
}

TEST_CASE("rprof merge: outputs of different kinds of runs are refused in one line") {
  require_sim();
  const RunResult sim = run_rprof({"--backend=sim", "-q", sample("daxpy"), "1000", "1"});
  const RunResult timed = run_rprof({"--backend=time", "-q", sample("daxpy"), "1000", "1"});
  REQUIRE((sim.status == 0 && timed.status == 0));
  const RunResult m = run_command({RPROF_BIN, "merge", sim.dir, timed.dir});
  CHECK(m.status == 1);
  CHECK(m.err.find("no raw-sim/ here") != std::string::npos);
  CHECK(std::count(m.err.begin(), m.err.end(), '\n') == 1);
  // A sim output without its totals: the regions keep their counts and a note
  // says what is missing.
  fs::remove_all(sim.dir + "/sim");
  const RunResult n = run_command({RPROF_BIN, "merge", "--format", "json", sim.dir});
  INFO(n.err);
  REQUIRE(n.status == 0);
  const json p = json::parse(n.out);
  CHECK(find_region(p, "daxpy")["counters"].contains("bytes.l1.read"));
  bool said = false;
  for (const json& note : p["notes"]) said |= note.get<std::string>().find("no sim/totals") == 0;
  CHECK(said);
}

TEST_CASE("rprof merge of perf event groups (raw/pass1 and raw/pass2) keeps every group counters") {
  if (!rprof::probe_perf_hardware().software_events) {
    std::printf("skipped: perf_event_open refuses even kernel software events here\n");
    std::exit(RPROF_SKIP_CODE);
  }
  const std::string app = std::string(RPROF_TEST_BIN_DIR) + "/apps/page_toucher";
  const RunResult run = run_rprof({"--backend=perf", "-q", "--events=page-faults;task-clock",
                                   app, "2", "64"});
  INFO(run.err);
  REQUIRE(run.status == 0);
  const json before = load_json(run.dir + "/profile.json");
  const RunResult m = run_command({RPROF_BIN, "merge", "--format", "json", run.dir});
  INFO(m.err);
  REQUIRE(m.status == 0);
  const json after = json::parse(m.out);
  CHECK(after["counters"] == before["counters"]);
  const json touch = find_region(after, "touch");
  REQUIRE(touch.is_object());
  CHECK(touch["counters"].contains("hw.g0.page-faults"));
  CHECK(touch["counters"].contains("hw.g1.task-clock"));
  CHECK(touch["counters"] == find_region(before, "touch")["counters"]);
}
