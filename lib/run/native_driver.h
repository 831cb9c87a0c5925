// Drivers whose plan is one native run of the program, with the runtime told
// the backend's name (time, fake); and the checks every driver makes of the
// options that belong to other backends.
#ifndef RPROF_RUN_NATIVE_DRIVER_H_
#define RPROF_RUN_NATIVE_DRIVER_H_

#include "run/driver.h"

namespace rprof {

// Usage errors (exit code 2) for options of other backends.
void refuse_sim_only(const RunRequest& request);    // --sim-only
void refuse_hw_options(const RunRequest& request);  // --events, --perf-multiplex
void refuse_sim_cache(const RunRequest& request);   // --sim-cache (and --sample)
void refuse_cache_sample(const RunRequest& request);  // --sample

class NativeRunDriver : public BackendDriver {
 public:
  RunPlan plan(const RunRequest& request) override;
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override;
};

}  // namespace rprof

#endif  // RPROF_RUN_NATIVE_DRIVER_H_
