// rprof's cache model beside hardware counters (issue 30): on a recorded
// machine whose perf plan counts no DRAM traffic (skylake-sp through the fake
// PMU: no memory-controller PMU, so DRAM would be the LLC-miss stand-in), a
// program built with `rprof cc` (memory accesses instrumented) runs the cache
// model too, and the profile takes FLOPs and the boundaries the PMU counts
// (L2, LLC) from the scripted hardware counts, DRAM from the model, saying
// where each number came from. A program without memory instrumentation gets
// no model: the hardware's stand-in as before, and --sample is refused.
//
// The program (perf_model/stream_sum.c) reads 2^20 doubles (8 MiB) 4 times in
// region "sum"; the simulated LLC is 2 MiB, so the model's DRAM read bytes are
// 4 x 8 MiB = 33,554,432 (within 5%: the model's set mapping and the loop's
// first lines). The scripted counts are rates per second of time running
// (fake_pmu.c), so hardware figures are checked as count / region time =
// scripted rate within 1% (all groups in one run: --perf-multiplex).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/inst/inst_sample.h"
#include "hw_scripted_counts.h"
#include "hwcounters/event_tables.h"
#include "hwcounters/perf_plan.h"
#include "hwcounters/perf_spec.h"
#include "integration/harness.h"
#include "machine/topology.h"
#include "runtime/backend.h"
#include "skip.h"

using namespace rprof;
using namespace rprof::test;
using nlohmann::json;

namespace {

const std::string kMachine = "skylake-sp";
const char* const kSimCache = "--sim-cache=l1=32K:8:64,l2=256K:8:64,llc=2M:16:64";
constexpr double kN = 1 << 20;
constexpr double kPasses = 4;
constexpr double kArrayReads = 8 * kN * kPasses;  // bytes the loop reads
// The scripted kernel: its counts over kSeconds give the fake PMU's rates.
const Kernel kKernel{"stream", 2e8, 3e8 / 8, 1e8 / 8};
constexpr double kSeconds = 0.1;
constexpr double kGhz = 2.0;

void need_plugin_and_preload() {
#if !RPROF_TEST_INST_PLUGIN
  skip_test("rprof is built without its GCC plugin (no gcc-N-plugin-dev at build time)");
#endif
#if defined(RPROF_TEST_SANITIZED)
  skip_test("sanitized build: the preloaded fake PMU would come before ASan's runtime");
#endif
}

std::string build(const std::string& tag, const std::vector<std::string>& plugin_args,
                  bool markers = true) {
  const std::string out = fresh_path(tag);
  std::vector<std::string> argv = {RPROF_BIN, "cc", RPROF_TEST_CC, "-O2"};
  for (const std::string& a : plugin_args) argv.push_back(a);
  argv.push_back(std::string(RPROF_SOURCE_DIR) + "/tests/integration/perf_model/stream_sum.c");
  argv.push_back("-I" + std::string(RPROF_SOURCE_DIR) + "/include");
  if (markers) {
    for (const std::string& a :
         {std::string("-DRPROF_ENABLE"), "-L" + std::string(RPROF_TEST_LIB_DIR),
          "-Wl,-rpath," + std::string(RPROF_TEST_LIB_DIR), std::string("-lrprof")}) {
      argv.push_back(a);
    }
  }
  argv.push_back("-o");
  argv.push_back(out);
  const RunResult r = run_command(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

// The fake PMU's script: every event of the perf plan at kKernel's rates.
std::string write_script(const PerfPlan& plan) {
  const std::string dir = std::string(RPROF_TEST_BIN_DIR) + "/fake_pmu_scripts";
  std::filesystem::create_directories(dir);
  const std::string script = dir + "/perf-model-" + kMachine;
  std::ofstream s(script);
  s << "root " << machine_root(kMachine) << "\n";
  s << "running 1\n";
  s << "event 0 0 0 0 " << kGhz * 1e9 << "\n";  // the probe's cycles
  for (const PerfPass& pass : plan.passes) {
    for (const PerfGroupSpec& g : pass.groups) {
      for (const PerfEventSpec& e : g.events) {
        double n = 0;
        INFO(e.key);
        REQUIRE(scripted(e.key, kKernel, kSeconds * kGhz * 1e9, &n));
        s << "event " << e.type << " " << e.config << " " << e.config1 << " " << e.config2 << " "
          << n / kSeconds << "\n";
      }
    }
  }
  return script;
}

PerfPlan multiplexed_plan() {
  PerfPlanOptions o;
  o.root = machine_root(kMachine);
  o.try_uncore = false;  // the fake PMU has no memory-controller PMUs
  o.multiplex = true;
  return plan_perf_run(o);
}

RunResult run_perf(const std::string& exe, const std::vector<std::string>& options,
                   bool multiplex = true) {
  const std::string script = write_script(multiplexed_plan());
  std::vector<std::string> env = machine_env(kMachine);
  env.push_back("RPROF_FAKE_PMU=" + script);
  env.push_back(preload_env(RPROF_FAKE_PMU_LIB));
  std::vector<std::string> args = {"--backend=perf", "-q"};
  if (multiplex) args.push_back("--perf-multiplex");
  for (const std::string& o : options) args.push_back(o);
  args.push_back(exe);
  return run_rprof_on_cpu(args, "sum", env, 4);
}

const json* boundary(const json& roofline, const std::string& key) {
  for (const json& b : roofline["boundaries"]) {
    if (b["boundary"] == key) return &b;
  }
  return nullptr;
}

std::string notes_of(const json& p) {
  std::string notes;
  for (const json& n : p["notes"]) notes += n.get<std::string>() + "\n";
  return notes;
}

// The fake PMU's counts follow the clock between the runtime's two reads of
// the counters; the region's time is read beside them, so a thread preempted
// between the two (ctest -j2 on 2 CPUs) moves the time, not the counts: the
// counts are checked against each other (bytes per FLOP within 1%), the time
// only loosely (a rate within 25% of the script's: a unit or scaling error).
void check_hardware_figures(const json& rl) {
  const double t = rl["time_s"].get<double>();
  REQUIRE(t > 0);
  const double flops = rl["flops"].get<double>();
  CHECK(flops / t == Approx(kKernel.flops / kSeconds).epsilon(0.25));
  const double lines = kKernel.read_lines + kKernel.write_lines;
  for (const char* key : {"l2", "llc"}) {
    INFO(key);
    const json* b = boundary(rl, key);
    REQUIRE(b != nullptr);
    CHECK((*b)["bytes"].get<double>() / flops == Approx(64 * lines / kKernel.flops).epsilon(0.01));
    CHECK((*b)["source"].get<std::string>().rfind("hardware events ", 0) == 0);
  }
}

// 64 x the sum over event groups of a region's raw counts of the table
// events that count lines at boundary b (kLines): what the hardware
// translation makes of them (the groups ran all the time: no scaling).
double hardware_bytes(const json& counters, Boundary b) {
  double lines = 0;
  for (const auto& [name, value] : counters.items()) {
    if (name.rfind("hw.g", 0) != 0) continue;
    const std::string key = name.substr(name.find('.', 4) + 1);
    const std::vector<EventRole>* roles = roles_of(key);
    if (roles == nullptr) continue;
    for (const EventRole& r : *roles) {
      if (r.kind == RoleKind::kLines && r.boundary == b) lines += value.get<double>();
    }
  }
  return 64 * lines;
}

}  // namespace

TEST_CASE("perf without DRAM events: rprof's cache model fills DRAM for an instrumented "
          "program (--sample full)") {
  need_plugin_and_preload();
  const PerfPlan plan = multiplexed_plan();
  REQUIRE(plan.table_id == "skx");
  CHECK(plan.counts_traffic[static_cast<int>(Boundary::kL2)]);
  CHECK(plan.counts_traffic[static_cast<int>(Boundary::kLLC)]);
  CHECK_FALSE(plan.counts_traffic[static_cast<int>(Boundary::kDRAM)]);
  const std::string exe = build("stream_sum_mem", {});
  const RunResult r = run_perf(exe, {"--sample=full", kSimCache});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("cache model off") == std::string::npos);
  const json p = load_json(r.dir + "/profile.json");
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("no event of this CPU's plan counts the traffic at DRAM: there the numbers "
                   "are rprof's cache model's") != std::string::npos);
  CHECK(notes.find("every memory access of the instrumented code simulated (--sample full)") !=
        std::string::npos);
  const json region = find_region(p, "sum");
  REQUIRE(region.is_object());
  INFO(region.dump(1));
  const json& c = region["counters"];
  REQUIRE(c.contains("model.bytes.dram.read"));
  CHECK(c["model.bytes.dram.read"].get<double>() == Approx(kArrayReads).epsilon(0.05));
  CHECK(c["model.bytes.dram.write"].get<double>() < 0.01 * kArrayReads);
  const json& rl = region["roofline"];
  REQUIRE(rl["available"] == true);
  check_hardware_figures(rl);
  const json* dram = boundary(rl, "dram");
  REQUIRE(dram != nullptr);
  CHECK((*dram)["bytes"].get<double>() ==
        c["model.bytes.dram.read"].get<double>() + c["model.bytes.dram.write"].get<double>());
  const std::string src = (*dram)["source"].get<std::string>();
  CHECK(src.rfind("rprof's cache model, every access simulated (--sample full) (in place of "
                  "hardware events ",
                  0) == 0);
  CHECK(src.find("LONGEST_LAT_CACHE.MISS") != std::string::npos);
  CHECK((*dram)["approximate"] == false);
  // The text report says it per boundary too.
  const std::string text = read_text(r.dir + "/report.txt");
  INFO(text);
  CHECK(text.find("sum: DRAM bytes: rprof's cache model, every access simulated") !=
        std::string::npos);
  CHECK(text.find("sum: L2 bytes: hardware events ") != std::string::npos);
  CHECK(text.find("sum: LLC bytes: hardware events ") != std::string::npos);
}

TEST_CASE("perf without DRAM events: the sampled cache model's DRAM estimate, its units "
          "and interval") {
  need_plugin_and_preload();
  const std::string exe = build("stream_sum_mem_sampled", {});
  // 1 line in 4 (25%); a unit every 1,024 simulated accesses.
  // One run per event group (the model's 17 counters do not fit beside all
  // groups at once): the model joins the first run.
  const RunResult r = run_perf(exe, {"--sample=25%", kSimCache}, false);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("cache model off") == std::string::npos);
  const json p = load_json(r.dir + "/profile.json");
  const json region = find_region(p, "sum");
  REQUIRE(region.is_object());
  INFO(region.dump(1));
  const json& c = region["counters"];
  REQUIRE(c.contains("model.sample.units"));
  const double units = c["model.sample.units"].get<double>();
  CHECK(units >= 5);
  // The exact L1 bytes the estimate is scaled by: the loop's reads.
  CHECK(c["model.bytes.l1.read"].get<double>() == Approx(kArrayReads).epsilon(0.001));
  const json& rl = region["roofline"];
  REQUIRE(rl["available"] == true);
  // The runs' times differ (the model slows the first), so the hardware's
  // figures are checked against their raw counts: L2 and LLC bytes are
  // 64 x the lines the table's events counted, FLOPs 4 x the 256-bit DP
  // instructions (the only FP event scripted above 0).
  for (const auto& [key, b] : {std::pair<std::string, Boundary>{"l2", Boundary::kL2},
                               std::pair<std::string, Boundary>{"llc", Boundary::kLLC}}) {
    INFO(key);
    const json* x = boundary(rl, key);
    REQUIRE(x != nullptr);
    const double hw = hardware_bytes(c, b);
    CHECK(hw > 0);
    CHECK((*x)["bytes"].get<double>() == Approx(hw).epsilon(1e-9));
    CHECK((*x)["source"].get<std::string>().rfind("hardware events ", 0) == 0);
  }
  double fp256 = 0;
  for (const auto& [name, value] : c.items()) {
    if (name.size() > 40 &&
        name.compare(name.size() - 40, 40, "FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE") == 0) {
      fp256 += value.get<double>();
    }
  }
  CHECK(fp256 > 0);
  CHECK(rl["flops"].get<double>() == Approx(4 * fp256).epsilon(1e-9));
  const json* dram = boundary(rl, "dram");
  REQUIRE(dram != nullptr);
  // Reads and write-backs within 5%: the sampled sets see every access to
  // their lines, the write loop's and the read sweep's before the region too
  // (windows with skips between them wrote back, inside the region, 7% of
  // what the program wrote before it).
  CHECK((*dram)["bytes"].get<double>() == Approx(kArrayReads).epsilon(0.05));
  CHECK(c["model.sample.dram.read"].get<double>() / c["model.sample.l1"].get<double>() *
            kArrayReads ==
        Approx(kArrayReads).epsilon(0.05));
  const std::string src = (*dram)["source"].get<std::string>();
  CHECK(src.rfind("rprof's cache model, sampled (" +
                      std::to_string(static_cast<long long>(units)) + " units)",
                  0) == 0);
  const std::string text = read_text(r.dir + "/report.txt");
  INFO(text);
  CHECK(text.find("sum: DRAM bytes: rprof's cache model, sampled (" +
                  std::to_string(static_cast<long long>(units)) + " units)") !=
        std::string::npos);
  CHECK(text.find("95% interval +/- ") != std::string::npos);
}

TEST_CASE("perf without DRAM events: a sampled model that does not fit beside every group "
          "(--perf-multiplex) does not run, the hardware's counts stay") {
  need_plugin_and_preload();
  const std::string exe = build("stream_sum_mem_full_groups", {});
  const RunResult r = run_perf(exe, {"--sample=25%", kSimCache});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  const std::string notes = notes_of(p);
  INFO(notes);
  const int groups = perf_counter_count(multiplexed_plan().passes.front().groups);
  CHECK(notes.find("no event of this CPU's plan counts the traffic at DRAM, and rprof's cache "
                   "model did not run: its " +
                   std::to_string(rprof::inst::kSampledCounters + 2) +  // + bytes.l1.read/write
                   " counters and the first run's " + std::to_string(groups) +
                   " exceed the runtime's " + std::to_string(rprof::kMaxCounters)) !=
        std::string::npos);
  const json region = find_region(p, "sum");
  REQUIRE(region.is_object());
  INFO(region.dump(1));
  for (const auto& [key, value] : region["counters"].items()) {
    INFO(key);
    CHECK(key.rfind("model.", 0) != 0);
  }
  const json& rl = region["roofline"];
  REQUIRE(rl["available"] == true);
  check_hardware_figures(rl);
  const json* dram = boundary(rl, "dram");
  REQUIRE(dram != nullptr);
  CHECK((*dram)["approximate"] == true);
}

TEST_CASE("perf without DRAM events: a program without memory instrumentation gets no model") {
  need_plugin_and_preload();
  const std::string exe = build("stream_sum_nomem", {"-fplugin-arg-rprof_inst-memory=off"});
  const RunResult r = run_perf(exe, {});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("cache model") == std::string::npos);
  const json region = find_region(p, "sum");
  REQUIRE(region.is_object());
  INFO(region.dump(1));
  for (const auto& [key, value] : region["counters"].items()) {
    INFO(key);
    CHECK(key.rfind("model.", 0) != 0);
  }
  const json& rl = region["roofline"];
  REQUIRE(rl["available"] == true);
  check_hardware_figures(rl);
  // DRAM: the hardware's LLC-miss stand-in, marked approximate, as before.
  const json* dram = boundary(rl, "dram");
  REQUIRE(dram != nullptr);
  CHECK((*dram)["approximate"] == true);
  // Against the FLOPs of the same reads (check_hardware_figures says why).
  CHECK((*dram)["bytes"].get<double>() / rl["flops"].get<double>() ==
        Approx(64 * (kKernel.read_lines + kKernel.write_lines) / kKernel.flops).epsilon(0.01));
  const std::string text = read_text(r.dir + "/report.txt");
  CHECK(text.find("bytes: rprof's cache model") == std::string::npos);
  CHECK(text.find("sum: DRAM bytes:") == std::string::npos);
  // --sample means the model, which this program cannot run.
  const RunResult refused = run_perf(exe, {"--sample=full"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--sample applies to") != std::string::npos);
}

TEST_CASE("perf without DRAM events: an instrumented program without markers gets no model") {
  need_plugin_and_preload();
  // Memory accesses instrumented, but no markers: perf measures the whole
  // program's time only, with no region for the model's counts.
  const std::string exe = build("stream_sum_unmarked", {}, false);
  const RunResult r = run_perf(exe, {});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("cache model") == std::string::npos);
  CHECK(notes.find("only the whole program was measured") != std::string::npos);
  CHECK(notes.find("the program ran with the rprof runtime") == std::string::npos);
  const RunResult refused = run_perf(exe, {"--sample=full"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--sample applies to --backend=sim and --backend=inst, and to "
                         "--backend=perf only for a program built with rprof cc (memory "
                         "accesses instrumented, markers)") != std::string::npos);
}
