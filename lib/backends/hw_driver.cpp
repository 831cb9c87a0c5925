#include "backends/hw_driver.h"

#include <algorithm>
#include <sstream>

#include "backends/inst/inst_cc.h"
#include "backends/inst/inst_counters.h"
#include "backends/inst/inst_model.h"
#include "backends/inst/inst_sample.h"
#include "hwcounters/hw_metrics.h"
#include "hwcounters/perf_probe.h"
#include "common/error.h"
#include "profile/merge_runs.h"
#include "run/native_driver.h"
#include "runtime/backend.h"
#include "runtime/handshake.h"
#include "profile/run_layout.h"

namespace rprof {
namespace {

// "a,b;c" -> {{a, b}, {c}}: ';' separates groups (one run each).
std::vector<std::vector<std::string>> split_events(const std::string& text) {
  std::vector<std::vector<std::string>> groups;
  std::stringstream gs(text);
  std::string group, e;
  while (std::getline(gs, group, ';')) {
    groups.emplace_back();
    std::stringstream es(group);
    while (std::getline(es, e, ',')) groups.back().push_back(e);
    for (const std::string& name : groups.back()) {
      if (name.empty()) throw Error("--events: empty event name in '" + text + "'", 2);
    }
    if (groups.back().empty()) throw Error("--events: empty group in '" + text + "'", 2);
  }
  return groups;
}

bool failed(const LaunchResult& r) { return r.exit_code != 0 || r.signal != 0; }

// Multiplexing: say per region how much of its time the counters ran.
void add_multiplex_notes(Profile& merged) {
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
}

// likwid counts per CPU: a thread that moved took its counts with it only in part.
void add_cpu_change_note(Profile& merged) {
  std::vector<std::string> moved;
  for (const Region& r : merged.regions) {
    auto it = r.counters.find("likwid.cpu_changes");
    if (it != r.counters.end() && it->second > 0) moved.push_back(path_string(r.path));
  }
  if (moved.empty()) return;
  std::string list;
  for (size_t i = 0; i < moved.size() && i < 5; ++i) list += (i ? ", " : "") + moved[i];
  merged.notes.push_back("likwid counts per CPU and threads moved between CPUs inside " + list +
                         ": those counts are unreliable; pin the threads "
                         "(likwid-pin, or OMP_PROC_BIND=true)");
}

// What the merged counts of the event groups say about how they were
// counted: for a run (finish) and for `rprof merge` (merge_saved).
void add_event_group_notes(Profile& merged) {
  add_multiplex_notes(merged);
  add_cpu_change_note(merged);
}

}  // namespace

std::string pmu_cause() {
  const HardwareProbe p = probe_perf_hardware();
  return p.ok ? "" : ": " + p.reason;
}

void add_pmu_detail(DriverProbe& s) {
  if (s.works || s.why.rfind("not built", 0) == 0) return;
  const HardwareProbe hw = probe_perf_hardware();
  if (!hw.ok && s.why.find(hw.reason) == std::string::npos) {
    s.details.push_back("and: " + hw.reason);
  }
}

HwRunPlan library_plan(const std::string& backend, const LibraryEnv& env,
                       const LibraryGroups& groups, std::vector<std::string> notes) {
  HwRunPlan plan;
  plan.backend = backend;
  plan.notes = std::move(notes);
  int id = 0;
  for (const auto& g : groups) {
    std::string list, label;
    for (const LibraryEvent& n : g) {
      list += (list.empty() ? "" : ",") + n.key + "=" + n.name;
      if (n.key != "_") label += (label.empty() ? "" : ", ") + n.key;
    }
    plan.pass_env.push_back(
        {{RPROF_ENV_BACKEND, backend},
         {env.events, list},
         {env.group_base, std::to_string(id++)}});
    plan.pass_labels.push_back(label);
  }
  if (groups.size() > 1) {
    plan.notes.push_back("the program ran " + std::to_string(groups.size()) +
                         " times, once per event group, and the runs were merged per region "
                         "(times are the first run's)");
  }
  return plan;
}

std::vector<std::string> table_notes(const CpuTable& t, const std::string& backend) {
  std::vector<std::string> notes = {"hardware counters through " + backend + ": " + t.name +
                                    " event table (FMA = 2 FLOPs; bytes = 64 x lines)"};
  notes.insert(notes.end(), t.notes.begin(), t.notes.end());
  if (t.id != "generic") {
    notes.push_back("DRAM traffic is an approximation from core events (the " + backend +
                    " backend reads no memory-controller counters)");
  }
  return notes;
}

RunPlan HwDriver::plan(const RunRequest& request) {
  refuse_sim_only(request);
  HwRunOptions options{name(), split_events(request.events), request.multiplex};
  if (options.multiplex && !multiplexes()) {
    throw Error("--perf-multiplex needs --backend=perf", 2);
  }
  hw_ = plan_hw(options);
  // The PMU counts no traffic at some boundary: an instrumented program's
  // memory accesses go through rprof's cache model as well (--sample and
  // --sim-cache apply to it), which fills those boundaries.
  std::string target;
  model_ = false;
  model_note_.clear();
  if (runs_cache_model() && !hw_.uncounted.empty()) {
    std::string why;
    target = instrumented_program(request, &why);
    // A program without markers is measured as a whole, without counters
    // (no region to read them at): the model would fill nothing.
    model_ = !target.empty() && inst_memory_instrumented(target) && links_librprof(target);
  }
  if (model_) {
    check_inst_model_options(request);
    request_ = request;
  } else if (runs_cache_model() &&
             (!request.sim_cache.empty() || !request.cache_sample.empty())) {
    const std::string option = request.sim_cache.empty() ? "--sample" : "--sim-cache";
    throw Error(option + " applies to --backend=sim and --backend=inst, and to --backend=" +
                    name() + " only for a program built with rprof cc (memory accesses "
                    "instrumented, markers) where the PMU counts no traffic at some boundary" +
                    (hw_.uncounted.empty() ? ": this CPU's events count L2, LLC and DRAM" : ""),
                2);
  }
  if (!model_) refuse_sim_cache(request);
  RunPlan plan;
  plan.backend = name();
  const size_t n = hw_.pass_env.size();
  plan.announce_passes = n > 1;
  for (size_t i = 0; i < n; ++i) {
    PassPlan pass;
    pass.label = hw_.pass_labels[i];
    pass.runtime_backend = name();
    pass.raw_dir = layout::raw_pass_dir(i, n);
    pass.spec.argv = request.app;
    pass.spec.env = hw_.pass_env[i];
    plan.passes.push_back(std::move(pass));
  }
  return plan;
}

void HwDriver::prepare(RunPlan& plan, const std::string& out_dir) {
  BackendDriver::prepare(plan, out_dir);
  if (!model_) return;
  const InstModelRun run = inst_model_run(request_);
  std::string where;
  for (Boundary b : hw_.uncounted) where += (where.empty() ? "" : ", ") + std::string(boundary_name(b));
  // The model runs in the first run only (the runs' counts are summed per
  // region). The hardware's counts first: a model whose counters do not fit beside
  // them does not run (the runtime would drop it too, saying so).
  if (run.on && hw_.first_run_counters + run.counters_beside_hardware > kMaxCounters) {
    plan.passes.front().spec.env[inst::kSampleEnv] = "off";
    model_note_ = "no event of this CPU's plan counts the traffic at " + where +
                  ", and rprof's cache model did not run: its " +
                  std::to_string(run.counters_beside_hardware) + " counters and the first "
                  "run's " + std::to_string(hw_.first_run_counters) + " exceed the runtime's " +
                  std::to_string(kMaxCounters) + " (fewer events per run: drop --perf-multiplex)";
    return;
  }
  for (const auto& [k, v] : run.env) plan.passes.front().spec.env[k] = v;
  // The counted loop versions pass the accesses on (the plain ones, which
  // the other runs take, do not).
  plan.passes.front().spec.env[RPROF_INST_COUNTING_ENV] = "2";
  model_note_ = "no event of this CPU's plan counts the traffic at " + where +
                ": there the numbers are rprof's cache model's, which simulated the program's "
                "instrumented memory accesses (it was built with rprof cc) in the first run; the "
                "other boundaries and the FLOPs are the hardware's. " + run.note;
  if (!run.on) model_note_ = "no event of this CPU's plan counts the traffic at " + where + "; " + run.note;
}

// A failed run stops the passes: the remaining groups would count another
// execution of a broken program.
bool HwDriver::keep_going(const RunPlan&, const std::vector<PassResult>& done) {
  return !failed(done.back().launch);
}

RunOutcome HwDriver::finish(const RunPlan& plan, std::vector<PassResult> passes) {
  RunOutcome out;
  out.result = passes.front().launch;  // the first run's, or the failing one's
  std::vector<Profile> runs;
  for (size_t i = 0; i < passes.size(); ++i) {
    if (failed(passes[i].launch)) out.result = passes[i].launch;
    if (passes[i].counters_off) {
      passes[i].profile.notes.push_back("counters were off in run " + std::to_string(i + 1) +
                                        " (the runtime said why on stderr): its regions have "
                                        "times only");
    }
    runs.push_back(std::move(passes[i].profile));
  }
  const size_t n = plan.passes.size();
  out.profile = merge_passes(std::move(runs));
  for (const std::string& note : hw_.notes) out.profile.notes.push_back(note);
  if (!model_note_.empty()) out.profile.notes.push_back(model_note_);
  if (passes.size() < n) {
    out.profile.notes.push_back("run " + std::to_string(passes.size()) + " of " +
                                std::to_string(n) +
                                " failed, so the remaining event groups were not counted");
  }
  add_signal_note(out.profile, out.result);
  add_event_group_notes(out.profile);
  return out;
}

// The event groups' passes: raw/ for one group, raw/pass1 .. raw/passN for
// several (layout::raw_pass_dir), merged per region in number order.
Profile HwDriver::merge_saved(SavedPasses saved) const {
  std::vector<std::pair<int, std::string>> order;
  const std::string numbered = std::string(layout::kRawDir) + "/" + layout::kPassPrefix;
  for (const auto& [rel, p] : saved.passes) {
    if (rel.rfind(numbered, 0) == 0 && rel.size() > numbered.size() &&
        rel.find_first_not_of("0123456789", numbered.size()) == std::string::npos) {
      order.emplace_back(std::stoi(rel.substr(numbered.size())), rel);
    } else if (rel == layout::kRawDir && saved.passes.size() == 1) {
      order.emplace_back(1, rel);
    } else {
      throw Error(std::string("rprof merge: a run of the ") + name() + " backend saves raw/ "
                  "or raw/pass*/, not " + rel + "/");
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<Profile> runs;
  for (const auto& [i, rel] : order) runs.push_back(std::move(saved.passes.at(rel)));
  const size_t groups = runs.size();
  Profile p = groups == 1 ? std::move(runs.front()) : merge_passes(std::move(runs));
  if (groups > 1) {
    p.notes.push_back(saved.from() + std::to_string(groups) +
                      " runs, one per event group (raw/pass*), merged per region");
  } else if (saved.inputs > 1) {
    p.notes.push_back(saved.from() + "counts summed per region over their processes");
  }
  add_event_group_notes(p);
  return p;
}

}  // namespace rprof
