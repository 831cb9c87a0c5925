// Running a backend's plan: every pass through the one pass runner
// (run/pass.h), in order, in the output directory; then the driver turns
// the passes into one profile (for sim: times of the native run joined with
// counts of the simulated one; for hardware counters: one run per event group
// merged; both with profile/merge_runs.h).
//
//   DriverChoice c = choose_driver(options.backend, request);  // may throw
//   RunPlan plan = c.driver->plan(request);                    // may throw
//   ... create the output directory, add launch environment to plan.env ...
//   RunOutcome out = run_plan(*c.driver, plan, out_dir, progress);
#ifndef RPROF_RUN_PIPELINE_H_
#define RPROF_RUN_PIPELINE_H_

#include <functional>
#include <string>

#include "run/driver.h"

namespace rprof {

// progress receives one-line messages for people ("run 2 of 3 (...)").
RunOutcome run_plan(BackendDriver& driver, RunPlan& plan, const std::string& out_dir,
                    const std::function<void(const std::string&)>& progress);

}  // namespace rprof

#endif  // RPROF_RUN_PIPELINE_H_
