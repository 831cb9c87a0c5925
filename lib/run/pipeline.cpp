#include "run/pipeline.h"

#include <map>
#include <optional>

#include "profile/run_layout.h"
#include "run/private_dir.h"
#include "run/progress_line.h"
#include "run/run_input.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

// One launch of the program: pass `pass`, its run `run` (0, or 1..N-1 for
// the repeats of the timed pass).
struct Launch {
  size_t pass = 0;
  size_t run = 0;
};

std::vector<Launch> launches(const RunPlan& plan) {
  std::vector<Launch> out;
  for (size_t i = 0; i < plan.passes.size(); ++i) {
    out.push_back({i, 0});
    if (i == plan.timed_pass) {
      for (size_t k = 1; k < plan.repeat; ++k) out.push_back({i, k});
    }
  }
  return out;
}

std::string repeat_dir(size_t run) {
  return std::string(layout::kRepeatDir) + "/run" + std::to_string(run + 1);
}

// Region time_s by path, and calls, of one timed run.
struct RunTimes {
  std::map<std::vector<std::string>, std::pair<double, uint64_t>> regions;
  explicit RunTimes(const Profile& p) {
    for (const Region& g : p.regions) regions[g.path] = {g.time_s, g.calls};
  }
};

// Each region of the finished profile found in every timed run gets its
// times over the runs; a region whose calls differ between runs is noted.
void add_repeat_times(Profile& p, const std::vector<RunTimes>& runs) {
  p.run.repeat = static_cast<int>(runs.size());
  std::vector<std::string> differ;
  for (Region& g : p.regions) {
    std::vector<double> times;
    for (const RunTimes& r : runs) {
      const auto it = r.regions.find(g.path);
      if (it == r.regions.end()) break;
      if (it->second.second != runs.front().regions.at(g.path).second) {
        differ.push_back(path_string(g.path));
      }
      times.push_back(it->second.first);
    }
    if (times.size() == runs.size()) g.repeat = RepeatTimes::of(std::move(times));
  }
  if (!differ.empty()) {
    std::string list;
    for (const std::string& s : differ) list += (list.empty() ? "" : ", ") + s;
    p.notes.push_back("--repeat: calls differ between the timed runs in " + list +
                      " (the counts are the first run's)");
  }
  p.notes.push_back("--repeat " + std::to_string(runs.size()) +
                    ": per-region time min, median and max over " +
                    std::to_string(runs.size()) +
                    " timed runs (spread = (max - min) / median); time_s, counts and rates "
                    "are the first run's");
}

}  // namespace

RunOutcome run_plan(BackendDriver& driver, RunPlan& plan, const std::string& out_dir,
                    const std::function<void(const std::string&)>& progress) {
  // What a killed rprof left in $TMPDIR (run/private_dir.h names the rule).
  clean_stale_private_dirs();
  driver.prepare(plan, out_dir);
  const size_t n = plan.passes.size();
  const std::vector<Launch> steps = launches(plan);
  const bool repeated = plan.repeat > 1 && plan.timed_pass < n;
  RunInput input(steps.size());
  std::vector<PassResult> done;
  std::vector<RunTimes> timed;  // the timed pass's runs, first included
  size_t launched = 0;
  for (size_t s = 0; s < steps.size(); ++s) {
    const size_t i = steps[s].pass, k = steps[s].run;
    if (k == 0 && i > 0 && !driver.keep_going(plan, done)) break;
    const PassPlan& pass = plan.passes[i];
    std::string raw_dir;
    if (k == 0) {
      driver.before_pass(plan, i, out_dir);
      raw_dir = out_dir + "/" + pass.raw_dir;
    } else {
      create_raw_dir(out_dir + "/" + repeat_dir(k));
      raw_dir = out_dir + "/" + repeat_dir(k);
    }
    if (progress && repeated && i == plan.timed_pass) {
      progress("timed run " + std::to_string(k + 1) + " of " + std::to_string(plan.repeat));
    } else if (plan.announce_passes && progress) {
      progress("run " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" +
               pass.label + ")");
    }
    LaunchSpec spec = pass.spec;
    spec.env.insert(plan.env.begin(), plan.env.end());  // the pass's own settings win
    spec.env[RPROF_ENV_OUTPUT_DIR] = raw_dir;
    spec.env[RPROF_ENV_BACKEND] = pass.runtime_backend;
    spec.stdin_fd = input.open_for_run(s);
    ++launched;
    std::optional<ProgressLine> line;
    if (plan.progress_line && i == plan.progress_pass && k == 0) {
      const double estimate =
          i > 0 ? done.front().launch.wall_time_s * plan.progress_slowdown : 0;
      line.emplace(true, plan.progress_what, estimate);
    }
    try {
      PassResult r = run_pass(spec, raw_dir, plan.backend, pass.runtime_backend);
      if (repeated && i == plan.timed_pass) timed.emplace_back(r.profile);
      if (k == 0) done.push_back(std::move(r));
    } catch (...) {
      input.done_with_run(s);
      throw;
    }
    input.done_with_run(s);
  }
  const size_t ran = launched;
  RunOutcome out = driver.finish(plan, std::move(done));
  if (const std::string note = input.note(ran); !note.empty() && ran > 1) {
    out.profile.notes.push_back(note);
  }
  if (repeated && timed.size() == plan.repeat) add_repeat_times(out.profile, timed);
  return out;
}

}  // namespace rprof
