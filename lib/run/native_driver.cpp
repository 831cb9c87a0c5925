#include "run/native_driver.h"

#include "common/error.h"
#include "profile/run_layout.h"

namespace rprof {

void refuse_sim_only(const RunRequest& request) {
  if (request.sim_only) throw Error("--sim-only needs --backend=sim (or auto)", 2);
}

void refuse_hw_options(const RunRequest& request) {
  if (!request.events.empty() || request.multiplex) {
    throw Error("--events and --perf-multiplex need --backend=perf, papi or likwid", 2);
  }
}

void refuse_sim_cache(const RunRequest& request) {
  if (!request.sim_cache.empty()) {
    throw Error("--sim-cache applies to --backend=sim and --backend=inst (and to perf's cache model "
                "for a program built with rprof cc)", 2);
  }
  refuse_cache_sample(request);
}

void refuse_cache_sample(const RunRequest& request) {
  if (!request.cache_sample.empty()) {
    throw Error("--sample applies to --backend=inst (and to perf's cache model) for a program "
                "built with rprof cc", 2);
  }
}

RunPlan NativeRunDriver::plan(const RunRequest& request) {
  refuse_sim_only(request);
  refuse_hw_options(request);
  refuse_sim_cache(request);
  RunPlan plan;
  plan.backend = name();
  PassPlan pass;
  pass.runtime_backend = name();
  pass.raw_dir = layout::kRawDir;
  pass.spec.argv = request.app;
  plan.passes.push_back(std::move(pass));
  return plan;
}

RunOutcome NativeRunDriver::finish(const RunPlan&, std::vector<PassResult> passes) {
  RunOutcome out;
  out.profile = std::move(passes.front().profile);
  out.result = passes.front().launch;
  add_signal_note(out.profile, out.result);
  return out;
}

}  // namespace rprof
