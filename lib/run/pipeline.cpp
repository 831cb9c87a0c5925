#include "run/pipeline.h"

#include <optional>

#include "run/private_dir.h"
#include "run/progress_line.h"
#include "run/run_input.h"
#include "runtime/handshake.h"

namespace rprof {

RunOutcome run_plan(BackendDriver& driver, RunPlan& plan, const std::string& out_dir,
                    const std::function<void(const std::string&)>& progress) {
  // What a killed rprof left in $TMPDIR (run/private_dir.h names the rule).
  clean_stale_private_dirs();
  driver.prepare(plan, out_dir);
  const size_t n = plan.passes.size();
  RunInput input(n);
  std::vector<PassResult> done;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && !driver.keep_going(plan, done)) break;
    driver.before_pass(plan, i, out_dir);
    const PassPlan& pass = plan.passes[i];
    if (plan.announce_passes && progress) {
      progress("run " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" +
               pass.label + ")");
    }
    LaunchSpec spec = pass.spec;
    spec.env.insert(plan.env.begin(), plan.env.end());  // the pass's own settings win
    const std::string raw_dir = out_dir + "/" + pass.raw_dir;
    spec.env[RPROF_ENV_OUTPUT_DIR] = raw_dir;
    spec.env[RPROF_ENV_BACKEND] = pass.runtime_backend;
    spec.stdin_fd = input.open_for_run(i);
    std::optional<ProgressLine> line;
    if (plan.progress_line && i == plan.progress_pass) {
      const double estimate =
          i > 0 ? done.front().launch.wall_time_s * plan.progress_slowdown : 0;
      line.emplace(true, plan.progress_what, estimate);
    }
    try {
      done.push_back(run_pass(spec, raw_dir, plan.backend, pass.runtime_backend));
    } catch (...) {
      input.done_with_run(i);
      throw;
    }
    input.done_with_run(i);
  }
  const size_t ran = done.size();
  RunOutcome out = driver.finish(plan, std::move(done));
  if (const std::string note = input.note(ran); !note.empty() && ran > 1) {
    out.profile.notes.push_back(note);
  }
  return out;
}

}  // namespace rprof
