// The `perf` backend, tool side: the CPU's event table (or --events) counted
// through perf_event_open, one run per event group (or all groups in one run,
// multiplexed, with --perf-multiplex). The runtime reads the counters
// (perf_backend.cpp); hw_metrics.h turns them into FLOPs and bytes.
#include "backends/hw_driver.h"
#include "hwcounters/perf_plan.h"
#include "hwcounters/perf_probe.h"
#include "hwcounters/perf_spec.h"
#include "common/error.h"

namespace rprof {
namespace {

class PerfDriver final : public HwDriver {
 public:
  const char* name() const override { return "perf"; }
  bool multiplexes() const override { return true; }
  bool runs_cache_model() const override { return true; }
  const char* summary() const override {
    return "hardware counters through Linux perf_event";
  }
  int rank() const override { return 50; }
  DriverProbe probe() const override;

  // Hardware counters where they work with an event table of this CPU.
  std::optional<std::string> auto_refusal(const RunRequest& request) const override {
    const HardwareProbe hp = probe_perf_hardware();
    if (!request.sim_only && hp.ok && hp.table_works && hp.table_id != "generic") return "";
    return hp.ok ? "no event table for " + hp.cpu : hp.reason;
  }

 protected:
  HwRunPlan plan_hw(const HwRunOptions& o) override;
};

DriverProbe PerfDriver::probe() const {
  const HardwareProbe p = probe_perf_hardware();
  DriverProbe s;
  s.works = p.ok && p.table_works;
  if (!s.works) {
    s.why = p.reason;
    s.fix = p.fix;
  } else {
    s.why = "hardware counters through perf_event with the " + p.table_name + " table";
  }
  if (p.ok && p.table_id == "generic") {
    s.details.push_back("unsupported CPU model " + p.cpu +
                        ": no event table, cycles and instructions only");
  }
  if (p.ok) {
    s.details.push_back(p.uncore ? "DRAM traffic from memory-controller counters"
                                 : "uncore not accessible, DRAM traffic approximated from core "
                                   "events: " + p.uncore_reason);
  }
  s.details.push_back(p.software_events
                          ? "kernel software events work: rprof --backend=perf --events "
                            "page-faults,task-clock ./app"
                          : "kernel software events do not open either");
  return s;
}

HwRunPlan PerfDriver::plan_hw(const HwRunOptions& o) {
  PerfPlanOptions po;
  po.events = o.events;
  po.multiplex = o.multiplex;
  // Software events work without a PMU; everything else needs one.
  PerfPlan pp = plan_perf_run(po);
  if (!pp.software_only) {
    const HardwareProbe probe = probe_perf_hardware();
    if (!probe.ok) throw Error(probe.reason + ". " + probe.fix, 1);
    if (o.events.empty() && !probe.table_works) throw Error(probe.reason + ". " + probe.fix, 1);
  }
  HwRunPlan plan;
  plan.backend = "perf";
  plan.notes = pp.notes;
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    if (!pp.counts_traffic[static_cast<int>(b)]) plan.uncounted.push_back(b);
  }
  if (!pp.passes.empty()) plan.first_run_counters = perf_counter_count(pp.passes.front().groups);
  for (size_t i = 0; i < pp.passes.size(); ++i) {
    plan.pass_env.push_back(pp.env(i));
    std::string label;
    for (const PerfGroupSpec& g : pp.passes[i].groups) {
      for (const std::string& k : g.output_keys()) label += (label.empty() ? "" : ", ") + k;
    }
    plan.pass_labels.push_back(label);
  }
  return plan;
}

}  // namespace

std::unique_ptr<BackendDriver> make_perf_driver() { return std::make_unique<PerfDriver>(); }

}  // namespace rprof
