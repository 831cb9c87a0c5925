#include "run/pipeline.h"

#include <filesystem>

#include "common/error.h"
#include "runtime/handshake.h"

namespace rprof {

namespace fs = std::filesystem;

void create_raw_dir(const std::string& dir) {
  const fs::path parent = fs::path(dir).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::exists(parent, ec)) create_raw_dir(parent.string());
  if (!fs::create_directory(dir, ec)) throw Error("cannot create " + dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
}

// Defaults of the driver interface that the pipeline relies on.
std::optional<std::string> BackendDriver::auto_refusal(const RunRequest&) const {
  return std::nullopt;
}

std::string BackendDriver::auto_notice(const std::vector<AutoRefusal>&) const { return ""; }

void BackendDriver::prepare(RunPlan&, const std::string&) {}

void BackendDriver::before_pass(RunPlan& plan, size_t i, const std::string& out_dir) {
  create_raw_dir(out_dir + "/" + plan.passes[i].raw_dir);
}

bool BackendDriver::keep_going(const RunPlan&, const std::vector<PassResult>&) {
  return true;
}

RunOutcome run_plan(BackendDriver& driver, RunPlan& plan, const std::string& out_dir,
                    const std::function<void(const std::string&)>& progress) {
  driver.prepare(plan, out_dir);
  std::vector<PassResult> done;
  const size_t n = plan.passes.size();
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
    done.push_back(run_pass(spec, raw_dir, plan.backend, pass.runtime_backend));
  }
  return driver.finish(plan, std::move(done));
}

}  // namespace rprof
