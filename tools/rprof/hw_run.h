// `rprof --backend=perf|papi|likwid`: what to count (the CPU's event table or
// --events), whether this machine can (fail early with the reason and what
// to do), and the runs: one per event group, merged per region.
//
// cmd_run uses it in two steps, kept apart from the other backends' code:
//   HwRunPlan plan = plan_hardware_run({backend, events, multiplex});  // may throw
//   Profile p = run_hardware_passes(plan, spec, raw_dir, &result);
#ifndef RPROF_TOOLS_RPROF_HW_RUN_H_
#define RPROF_TOOLS_RPROF_HW_RUN_H_

#include <map>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "tools/rprof/launcher.h"

namespace rprof {

bool is_hardware_backend(const std::string& name);  // perf, papi, likwid

struct HwRunOptions {
  std::string backend;              // perf, papi or likwid
  // --events: groups of names in the backend's spelling; a group is counted
  // together, each group is one run.
  std::vector<std::vector<std::string>> events;
  bool multiplex = false;           // perf: all groups in one run, counts scaled
};

struct HwRunPlan {
  std::string backend;
  std::vector<std::map<std::string, std::string>> pass_env;  // handshake per run
  std::vector<std::string> pass_labels;                      // events of each run, for people
  std::vector<std::string> notes;                            // for the report
};

// Throws Error (exit code 1) when the backend cannot count here, with the
// reason and what to do; exit code 2 for bad --events.
HwRunPlan plan_hardware_run(const HwRunOptions& options);

// Runs the app once per pass (raw files in raw_dir, or raw_dir/passN) and
// merges the runs. *result is the first run's outcome, or the first failing
// run's (later passes are then skipped).
Profile run_hardware_passes(const HwRunPlan& plan, const LaunchSpec& base,
                            const std::string& raw_dir, LaunchResult* result);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_HW_RUN_H_
