#include "tools/rprof/hw_run.h"

#include <filesystem>
#include <iostream>

#include "backends/perf/event_tables.h"
#include "backends/perf/hw_metrics.h"
#include "backends/perf/perf_plan.h"
#include "backends/perf/perf_probe.h"
#include "backends/perf/perf_spec.h"
#include "common/error.h"
#include "profile/merge_passes.h"
#include "tools/rprof/hw_library_plans.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

HwRunPlan plan_perf(const HwRunOptions& o) {
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

std::vector<RawProfile> collect(const std::string& dir, std::vector<std::string>& notes) {
  std::vector<std::string> errors;
  std::vector<RawProfile> raws = read_raw_profiles(list_raw_profiles(dir), &errors);
  for (const std::string& e : errors) notes.push_back("skipped " + e);
  return raws;
}

}  // namespace

bool is_hardware_backend(const std::string& name) {
  return name == "perf" || name == "papi" || name == "likwid";
}

HwRunPlan plan_hardware_run(const HwRunOptions& o) {
  if (o.multiplex && o.backend != "perf") {
    throw Error("--perf-multiplex needs --backend=perf", 2);
  }
  if (o.backend == "perf") return plan_perf(o);
  if (o.backend == "papi") return plan_papi(o);
  if (o.backend == "likwid") return plan_likwid(o);
  throw Error("'" + o.backend + "' is not a hardware-counter backend", 2);
}

Profile run_hardware_passes(const HwRunPlan& plan, const LaunchSpec& base,
                            const std::string& raw_dir, LaunchResult* result) {
  std::vector<Profile> runs;
  const size_t n = plan.pass_env.size();
  std::string skipped;
  for (size_t i = 0; i < n; ++i) {
    std::string dir = raw_dir;
    if (n > 1) {
      dir = raw_dir + "/pass" + std::to_string(i + 1);
      fs::create_directory(dir);
      std::cerr << "rprof: run " << i + 1 << " of " << n << " (" << plan.pass_labels[i] << ")\n";
    }
    LaunchSpec spec = base;
    for (const auto& [k, v] : plan.pass_env[i]) spec.env[k] = v;
    spec.env[RPROF_ENV_OUTPUT_DIR] = dir;
    const LaunchResult r = launch(spec);
    std::vector<std::string> notes;
    const std::vector<RawProfile> raws = collect(dir, notes);
    RunInfo run;
    run.command = base.argv;
    run.backend = plan.backend;
    run.wall_time_s = r.wall_time_s;
    run.user_time_s = r.user_time_s;
    run.system_time_s = r.system_time_s;
    run.exit_code = r.exit_code;
    run.signal = r.signal;
    Profile p = aggregate(raws, run);
    p.notes.insert(p.notes.begin(), notes.begin(), notes.end());
    for (const RawProfile& raw : raws) {
      if (raw.backend != plan.backend) {
        p.notes.push_back("counters were off in run " + std::to_string(i + 1) +
                          " (the runtime said why on stderr): its regions have times only");
        break;
      }
    }
    if (raws.empty()) {
      p.notes.push_back(
          "no marker data: the program has no rprof markers, is not linked with the rprof "
          "runtime, or died before writing its profile; only the whole program was measured");
    }
    if (i == 0 || r.exit_code != 0 || r.signal != 0) *result = r;
    runs.push_back(std::move(p));
    if ((r.exit_code != 0 || r.signal != 0) && i + 1 < n) {
      skipped = "run " + std::to_string(i + 1) + " of " + std::to_string(n) +
                " failed, so the remaining event groups were not counted";
      break;
    }
  }
  Profile merged = merge_passes(std::move(runs));
  for (const std::string& note : plan.notes) merged.notes.push_back(note);
  if (!skipped.empty()) merged.notes.push_back(skipped);
  if (result->signal != 0) {
    merged.notes.push_back("the app was killed by signal " + std::to_string(result->signal) +
                           "; regions it completed are kept, open ones are marked incomplete");
  }
  // Multiplexing: say per region how much of its time the counters ran.
  std::string scaled, never;
  for (const Region& r : merged.regions) {
    const ScaledCounts sc = scale_hw_counters(r.counters);
    if (sc.never_ran) never += (never.empty() ? "'" : ", '") + path_string(r.path) + "'";
    if (sc.any && !sc.never_ran && sc.min_ratio < 0.999) {
      scaled += (scaled.empty() ? "'" : ", '") + path_string(r.path) + "' " +
                std::to_string(static_cast<int>(100 * sc.min_ratio + 0.5)) + "%";
    }
  }
  if (!scaled.empty()) {
    merged.notes.push_back("counters were multiplexed and counts scaled by time enabled / time "
                           "running; lowest share of time counted: " + scaled);
  }
  if (!never.empty()) {
    merged.notes.push_back("a counter group never got a counter in " + never +
                           ": its events are left out there (fewer events per run: drop "
                           "--perf-multiplex)");
  }
  std::vector<std::string> moved;
  for (const Region& r : merged.regions) {
    auto it = r.counters.find("likwid.cpu_changes");
    if (it != r.counters.end() && it->second > 0) moved.push_back(path_string(r.path));
  }
  if (!moved.empty()) {
    std::string list;
    for (size_t i = 0; i < moved.size() && i < 5; ++i) list += (i ? ", " : "") + moved[i];
    merged.notes.push_back("likwid counts per CPU and threads moved between CPUs inside " +
                           list + ": those counts are unreliable; pin the threads "
                           "(likwid-pin, or OMP_PROC_BIND=true)");
  }
  return merged;
}

}  // namespace rprof
