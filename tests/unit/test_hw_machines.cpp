// The hardware path on each recorded machine (tests/fixtures/machines), with
// scripted counts: the machine's CPU identification selects its table, the
// perf plan gives the groups a run would open, each event gets the count
// the kernel below would produce on that CPU (hw.g<id>.<key>, as the perf
// backend writes them into profile.json), and the analysis -- the hardware
// formulas, the recorded machine's ceilings, the classifier -- must give the
// exact FLOPs and bytes and the verdict the kernel was built to earn.
//
// Kernels (DP, 256-bit FMA, one thread):
//   stream: 1e8 elements of a[i] = b[i] + s*c[i]: 2e8 FLOPs, 3/8 of a line
//           read and 1/8 written per element at every boundary, at 90% of
//           the DRAM figure -> memory-bound at DRAM.
//   dense:  2e10 FLOPs on 1e5 lines, at 90% of the roof that applies
//           (Intel: DP 256-bit add/mul; AMD, precision-agnostic: the
//           highest) -> compute-bound at 90%.
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>

#include "analysis/analysis.h"
#include "hwcounters/event_tables.h"
#include "hwcounters/hw_metrics.h"
#include "hwcounters/perf_plan.h"
#include "machine/machine_file.h"
#include "machine/topology.h"

#include "hw_scripted_counts.h"

using namespace rprof;

namespace {

const std::string kMachines = std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/";

using rprof::test::Kernel;
using rprof::test::scripted;
using rprof::test::best_bandwidth;
using rprof::test::dense_roof;

Region region(const PerfPlan& plan, const Kernel& k, double time_s, double ghz) {
  Region reg;
  reg.name = k.name;
  reg.path = {k.name};
  reg.calls = 1;
  reg.time_s = reg.exclusive_time_s = reg.thread_time_s = reg.cpu_time_s = time_s;
  reg.has_cpu_time = true;
  const double cycles = time_s * ghz * 1e9;
  for (const PerfPass& pass : plan.passes) {
    for (const PerfGroupSpec& g : pass.groups) {
      const std::string p = "hw.g" + std::to_string(g.id) + ".";
      for (const PerfEventSpec& e : g.events) {
        double n = 0;
        INFO(e.key);
        REQUIRE(scripted(e.key, k, cycles, &n));
        reg.counters[p + e.key] = static_cast<uint64_t>(n);
      }
      reg.counters[p + "enabled_ns"] = static_cast<uint64_t>(time_s * 1e9);
      reg.counters[p + "running_ns"] = static_cast<uint64_t>(time_s * 1e9);
    }
  }
  reg.exclusive_counters = reg.counters;
  ThreadRow t;
  t.calls = 1;
  t.time_s = time_s;
  t.cpu_time_s = time_s;
  reg.threads.push_back(t);
  return reg;
}

void check_machine(const std::string& name, const std::string& table, bool amd) {
  const std::string root = kMachines + name;
  const CpuId cpu = detect_topology(root).cpu;
  REQUIRE(select_table(cpu).id == table);
  PerfPlanOptions o;
  o.root = root;
  o.try_uncore = false;
  o.allowed_cpus = std::vector<int>{0};
  const PerfPlan plan = plan_perf_run(o);
  REQUIRE(plan.table_id == table);
  const Machine machine = load_machine_file(root + "/machine.json");
  const double ghz = machine.clock_ghz;
  const double roof = dense_roof(machine, amd);
  REQUIRE(roof > 0);
  const double dram = best_bandwidth(machine, "dram");
  REQUIRE(dram > 0);

  const Kernel stream{"stream", 2e8, 3e8 / 8, 1e8 / 8};
  const Kernel dense{"dense", 2e10, 1e5, 1e5};
  // DRAM bytes as this table counts them (AMD: reads only).
  const double dram_bytes = 64 * (stream.read_lines + (amd ? 0 : stream.write_lines));
  const double t_stream = dram_bytes / (0.9 * dram * 1e9);
  const double t_dense = dense.flops / (0.9 * roof * 1e9);

  Profile p;
  p.run.command = {"./app"};
  p.run.backend = "perf";
  p.run.threads = 1;
  p.run.processes = 1;
  p.run.wall_time_s = t_stream + t_dense;
  p.regions.push_back(region(plan, stream, t_stream, ghz));
  p.regions.push_back(region(plan, dense, t_dense, ghz));
  for (const Region& r : p.regions) {
    for (const auto& kv : r.counters) p.counters.push_back(kv.first);
  }
  std::sort(p.counters.begin(), p.counters.end());
  p.counters.erase(std::unique(p.counters.begin(), p.counters.end()), p.counters.end());
  MachineSource src;
  src.machine = &machine;
  src.file = root + "/machine.json";
  const Analysis a = analyze(p, src);
  REQUIRE(a.regions.size() == 2);

  const RegionAnalysis& s = a.regions[0];
  REQUIRE(s.metrics.has_flops);
  CHECK(s.metrics.precision_agnostic == amd);
  CHECK(s.metrics.flops_total() == Approx(2e8).epsilon(1e-12));
  REQUIRE(s.metrics.at(Boundary::kL2).measured);
  CHECK(s.metrics.at(Boundary::kL2).read_bytes == Approx(64 * stream.read_lines));
  // Intel's Golden/Redwood Cove and Zen: no L1D write-back event (noted).
  CHECK(s.metrics.at(Boundary::kL2).write_bytes == 0);
  REQUIRE(s.metrics.at(Boundary::kLLC).measured);
  CHECK(s.metrics.at(Boundary::kLLC).read_bytes == Approx(64 * stream.read_lines));
  CHECK(s.metrics.at(Boundary::kLLC).write_bytes == Approx(amd ? 0 : 64 * stream.write_lines));
  REQUIRE(s.metrics.at(Boundary::kDRAM).measured);
  CHECK(s.metrics.at(Boundary::kDRAM).approximate);  // no memory controllers read here
  CHECK(s.metrics.at(Boundary::kDRAM).bytes() == Approx(dram_bytes));
  REQUIRE(s.verdict);
  INFO(verdict_kind_key(s.verdict->kind) << " at " << s.verdict->fraction << " of its roof");
  CHECK(s.verdict->bound == Bound::kMemory);
  REQUIRE(s.verdict->boundary);
  CHECK(*s.verdict->boundary == Boundary::kDRAM);

  const RegionAnalysis& d = a.regions[1];
  CHECK(d.metrics.flops_total() == Approx(2e10).epsilon(1e-12));
  if (!amd) CHECK(d.metrics.flops[1][static_cast<int>(Width::k256)] == Approx(2e10));
  REQUIRE(d.verdict);
  INFO(verdict_kind_key(d.verdict->kind) << " at " << d.verdict->fraction << " of its roof");
  CHECK(d.verdict->bound == Bound::kCompute);
  CHECK(d.verdict->fraction == Approx(0.9).epsilon(0.02));
}

}  // namespace

TEST_CASE("recorded zen2-rome: zen2 table, scripted counts, verdicts") {
  check_machine("zen2-rome", "zen2", true);
}
TEST_CASE("recorded zen5-turin: zen5 table, scripted counts, verdicts") {
  check_machine("zen5-turin", "zen5", true);
}
TEST_CASE("recorded granite-rapids: gnr table, scripted counts, verdicts") {
  check_machine("granite-rapids", "gnr", false);
}
TEST_CASE("recorded alder-lake: adl table (pinned to cpu 0), scripted counts, verdicts") {
  check_machine("alder-lake", "adl", false);
}
TEST_CASE("recorded zen4-desktop and sapphire-rapids: their tables, the same kernels") {
  check_machine("zen4-desktop", "zen4", true);
  check_machine("sapphire-rapids", "spr", false);
}
