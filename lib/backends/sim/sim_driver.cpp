// The `sim` backend, tool side: the program runs twice, natively for times
// and under rprof's Valgrind tool for counts (FLOPs, bytes per boundary), and
// the two runs are joined per region (profile/join.h). --sim-only skips the
// native run. The launcher's pieces are sim_config.h (cache geometry) and
// sim_run.h (finding the tool, the command line, reading its files).
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>

#include "backends/sim/avx512_scan.h"
#include "backends/sim/sim_config.h"
#include "backends/sim/sim_run.h"
#include "common/error.h"
#include "machine/topology.h"
#include "profile/function_view.h"
#include "profile/join.h"
#include "profile/merge_runs.h"
#include "run/native_driver.h"
#include "profile/run_layout.h"

namespace rprof {
namespace {

// The simulated run's wall time over the native run's on dense kernels
// (bench/RESULTS-sim.md: gemm, daxpy), for the progress line's estimate only.
constexpr double kExpectedSlowdown = 20;

#if defined(RPROF_SANITIZED_BUILD)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

// The join's note on runs that differ is about a program that behaves
// differently from run to run; a counted run that failed or was stopped did
// not complete, so it says nothing of that.
void drop_determinism_notes(Profile& p) {
  std::vector<std::string> kept;
  for (std::string& n : p.notes) {
    if (n.rfind("the program is not deterministic", 0) != 0) kept.push_back(std::move(n));
  }
  p.notes = std::move(kept);
}

// The sim backend's passes as one profile, for a run (finish) and for
// `rprof merge` (merge_saved): the counted run joined with the timed one (none
// with --sim-only; after_join adds the run's notes on the two runs), the
// whole program's counts from the simulator's totals (none: no_totals says
// why), and the notes on how it was counted. caches: what was simulated.
Profile sim_profile(std::optional<Profile> timed, Profile counted,
                    std::optional<CounterMap> totals, const std::string& no_totals,
                    const std::string& caches, const std::string& from,
                    const std::function<void(Profile&)>& after_join = {}) {
  Profile p;
  if (timed) {
    p = join_timed_and_counted(std::move(*timed), std::move(counted));
    if (after_join) after_join(p);
    p.notes.push_back(from +
                      "times from a native run; counts from a second run under rprof's "
                      "Valgrind tool (its output is in sim/)");
  } else {
    p = std::move(counted);
    p.notes.push_back(from +
                      "--sim-only: times were measured under the simulator, many times "
                      "slower than native; use them only to compare regions");
  }
  if (totals) {
    set_program_counters(p, *totals);
  } else {
    p.notes.push_back(no_totals);
  }
  p.notes.push_back(
      "counts by simulation: FMA = 2 FLOPs, one per lane, by precision and "
      "vector width; bytes.l1 = the program's loads and stores; bytes.l2/llc/"
      "dram = lines moved into (read) and written back out of (write) the "
      "simulated " + caches +
      "; the markers' own instructions are not counted");
  return p;
}

class SimDriver final : public BackendDriver {
 public:
  const char* name() const override { return "sim"; }
  const char* summary() const override {
    return "counts by simulation under Valgrind (FLOPs by precision and vector width, FMA = 2 "
           "FLOPs; bytes at L1, L2, LLC and DRAM from a simulated cache hierarchy), times "
           "from a separate native run";
  }
  int rank() const override { return 20; }
  CountSource source() const override { return CountSource::kSimulation; }
  bool counts_functions() const override { return true; }
  bool counts_without_native_run() const override { return true; }

  DriverProbe probe() const override {
    DriverProbe p;
    std::string why, fix;
    const std::optional<SimTool> tool = find_sim_tool(&why, &fix);
    if (!tool) return {false, why, fix, {}};
    p.works = true;
    p.why = "counts by simulation under Valgrind (" + tool->valgrind + ", tool in " +
            tool->libdir + "): FLOPs by precision and width, bytes at every boundary from a "
            "cache model; slow (10-100x)";
    return p;
  }

  std::optional<std::string> auto_refusal(const RunRequest& request) const override {
    const std::string sanitizer = sanitizer_of(request.program);
    if (!sanitizer.empty()) {
      return "the program is built with " + sanitizer + ", which cannot run under Valgrind";
    }
    if (kSanitizedBuild) {
      return std::string("this rprof's runtime is built with sanitizers (RPROF_SANITIZE), "
                         "which cannot run under Valgrind");
    }
    std::string why;
    if (!find_sim_tool(&why)) return why;
    // Said before anything runs (avx512_scan.h); --backend=sim still tries.
    const std::string avx512 = avx512_code_in(request.program);
    if (!avx512.empty()) return avx512_advice(request.app.front(), avx512);
    return "";
  }

  std::string auto_notice(const std::vector<AutoRefusal>& refused) const override {
    return (refused.empty() ? std::string() : refused.front().reason) +
           "; counting by simulation (--backend=sim: a native run for times, a Valgrind run "
           "for counts; --backend=time for timing only)";
  }

  RunPlan plan(const RunRequest& request) override;
  void prepare(RunPlan& plan, const std::string& out_dir) override;
  void before_pass(RunPlan& plan, size_t i, const std::string& out_dir) override;
  bool keep_going(const RunPlan&, const std::vector<PassResult>& done) override {
    return !interrupted(done.front().launch);
  }
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override;
  Profile merge_saved(SavedPasses saved) const override;

 private:
  void add_functions(Profile& p, const FunctionTimes& times);
  Profile counted_profile(PassResult& counted, const std::string& problem, Profile timed,
                          const LaunchResult& timed_result);

  RunRequest request_;
  SimTool tool_;
  SimCaches caches_;
  SimRunFiles files_;
  bool native_ = true;
};

RunPlan SimDriver::plan(const RunRequest& request) {
  const std::string sanitizer = sanitizer_of(request.program);
  if (!sanitizer.empty()) {
    throw Error("--backend=sim: " + request.program + " is built with " + sanitizer +
                    ", which cannot run under Valgrind; rebuild without it or use "
                    "--backend=time",
                2);
  }
  std::string why;
  const std::optional<SimTool> tool = find_sim_tool(&why);
  if (!tool) throw Error("--backend=sim: " + why, 2);
  refuse_hw_options(request);
  refuse_cache_sample(request);
  // A bad --sim-cache fails before anything is created, run or measured.
  caches_ = sim_caches_from_topology(detect_topology());
  apply_sim_cache_spec(caches_, request.sim_cache);
  check_sim_caches(caches_);
  request_ = request;
  tool_ = *tool;
  native_ = !request.sim_only;
  RunPlan plan;
  plan.backend = "sim";
  if (native_) {
    plan.passes.push_back({"timed", "time", layout::kRawDir, {request.app, {}, {}, "", ""}});
    // The function view's times: the native run sampled with cpu-clock.
    plan.passes.back().spec.sample_functions = request.functions > 0;
    if (request.sample_period_ns > 0) {
      plan.passes.back().spec.sample_period_ns = request.sample_period_ns;
    }
  }
  plan.passes.push_back({"counted", "sim", layout::kSimRawDir, {}});  // spec: before_pass
  if (!native_) plan.timed_pass = SIZE_MAX;  // the simulator's times only
  plan.progress_pass = plan.passes.size() - 1;
  plan.progress_what = "simulating";
  plan.progress_slowdown = kExpectedSlowdown;
  return plan;
}

// The simulated caches are the reported ones; the machine file's effective
// size replaces a level only where it contradicts the report by more than
// kCacheContradictionFactor, so the machine is measured (once, cached) BEFORE
// the simulated run, and recalibrating a machine whose sysfs tells the truth
// never changes what is simulated.
void SimDriver::prepare(RunPlan&, const std::string&) {
  const MachineRef m = request_.machine ? request_.machine() : MachineRef{};
  caches_ = sim_caches_from_topology(detect_topology());
  if (m.machine != nullptr) apply_machine_caches(caches_, *m.machine, m.file);
  apply_sim_cache_spec(caches_, request_.sim_cache);
  check_sim_caches(caches_);
}

void SimDriver::before_pass(RunPlan& plan, size_t i, const std::string& out_dir) {
  if (i + 1 < plan.passes.size()) return BackendDriver::before_pass(plan, i, out_dir);
  // Keep the second run's output off the terminal: the user saw it once.
  files_ = sim_run_files(out_dir, native_);
  plan.passes[i].spec =
      sim_launch_spec(tool_, caches_, request_.app, files_, request_.functions > 0);
}

RunOutcome SimDriver::finish(const RunPlan&, std::vector<PassResult> passes) {
  RunOutcome out;
  out.native = native_;
  if (native_) {
    out.profile = std::move(passes.front().profile);
    out.result = passes.front().launch;
    add_signal_note(out.profile, out.result);
    if (passes.size() == 1) {
      const int sig = stop_signal(out.result);
      out.profile.notes.push_back("the timed run was stopped by signal " + signal_name(sig) +
                                  ", so the counted (simulated) run was skipped: no counts");
      out.stopped = sig;
      return out;
    }
  }
  PassResult& counted = passes.back();
  const int stopped = stop_signal(counted.launch);
  // Valgrind's messages before its log is open, and the loader's, come first
  // on the run's stderr (the program's own output follows).
  std::string stderr_text(1u << 20, '\0');
  std::ifstream err_file(files_.app_stderr, std::ios::binary);
  err_file.read(stderr_text.data(), static_cast<std::streamsize>(stderr_text.size()));
  stderr_text.resize(static_cast<size_t>(err_file.gcount()));
  if (stopped == 0) {
    out.problem = diagnose_sim_run(counted.launch, read_sim_logs(files_.dir), stderr_text,
                                   request_.app.front(), sim_log_names(files_.dir));
  }
  // A failed counted run is named once, by its cause (counted_profile).
  if (stopped == 0 && out.problem.empty()) add_signal_note(counted.profile, counted.launch);
  out.profile = counted_profile(counted, out.problem, std::move(out.profile), out.result);
  if (out.problem.empty()) {
    out.profile.run.per_process_cache_model = true;
    if (std::string n = own_cache_note(out.profile, caches_); !n.empty()) {
      out.profile.notes.push_back(std::move(n));
    }
  }
  if (stopped != 0) {
    drop_determinism_notes(out.profile);
    out.profile.notes.push_back(
        "the counted (simulated) run was stopped by signal " + signal_name(stopped) +
        ": its counts cover what ran before the stop; regions it completed are kept, open "
        "ones are marked incomplete");
  }
  if (!native_) out.result = counted.launch;
  out.stopped = stopped;
  // A failed counted run's function table is as partial as its counts.
  if (request_.functions > 0 && out.problem.empty()) {
    FunctionTimes times;
    if (native_) times = passes.front().launch.functions;
    if (!times.sampled && times.why.empty()) {
      times.why = native_ ? "the native run was not sampled"
                          : "--sim-only: there is no native run to sample";
    }
    add_functions(out.profile, times);
  }
  return out;
}

// The function view: the tool's per-function counts joined with the sampled
// times, as regions (profile/function_view.h).
void SimDriver::add_functions(Profile& p, const FunctionTimes& times) {
  FunctionTable table;
  try {
    table = read_sim_functions(files_.dir);
  } catch (const Error& e) {
    p.notes.push_back(std::string("function view: the simulated run's function table was "
                                  "not read: ") + e.what());
    return;
  }
  if (table.rows.empty()) {
    p.notes.push_back("function view: the simulated run left no function table");
    return;
  }
  FunctionViewOptions o;
  o.top = request_.functions;
  add_function_regions(p, table, times, o);
}

// The counted run, joined with the timed one (unless --sim-only), with the
// whole-run totals and the notes on how it was counted.
Profile SimDriver::counted_profile(PassResult& counted, const std::string& problem,
                                   Profile timed, const LaunchResult& timed_result) {
  std::optional<Profile> native;
  if (native_) native = std::move(timed);
  // Runs that both completed and differ: the program's doing. A counted run
  // that failed or was stopped is named by its own note instead.
  const LaunchResult& sr = counted.launch;
  const bool completed = problem.empty() && stop_signal(sr) == 0;
  if (!problem.empty()) {
    // Counts that stop at a failure are not the program's: no row keeps
    // them; the times of the native run stay, and the header names it.
    Profile p = native ? std::move(*native) : Profile{};
    if (!native) {
      p.run = counted.profile.run;
      p.run.wall_time_s = 0;  // no [program] row from the failed run
    }
    drop_determinism_notes(p);
    p.run.failure = "the simulated (counted) run failed: " + problem;
    return p;
  }
  Profile p = sim_profile(
      std::move(native), std::move(counted.profile), read_sim_totals(files_.dir), "",
      describe_sim_caches(caches_), "", [&](Profile& joined) {
        if (!completed) drop_determinism_notes(joined);
        if (completed &&
            (sr.exit_code != timed_result.exit_code || sr.signal != timed_result.signal)) {
          joined.notes.push_back("the program " + outcome_phrase(timed_result) +
                                 " when timed but " + outcome_phrase(sr) +
                                 " when counted (see " + sim_log_names(files_.dir) + ")");
        }
      });
  return p;
}

// `rprof merge` of sim runs: raw/ (none with --sim-only) joined with raw-sim/,
// the whole program's counts summed from every input's sim/totals.
Profile SimDriver::merge_saved(SavedPasses saved) const {
  auto counted = saved.passes.find(layout::kSimRawDir);
  for (const auto& [rel, p] : saved.passes) {
    if (rel != layout::kRawDir && rel != layout::kSimRawDir) {
      throw Error(std::string("rprof merge: a run of the sim backend saves raw/ and raw-sim/, "
                              "not ") + rel + "/");
    }
  }
  if (counted == saved.passes.end()) {
    throw Error("rprof merge: a run of the sim backend saves its counts in raw-sim/; these "
                "inputs have none");
  }
  std::optional<Profile> timed;
  if (auto t = saved.passes.find(layout::kRawDir); t != saved.passes.end()) {
    timed = std::move(t->second);
  }
  CounterMap totals;
  std::vector<std::string> lacking;
  for (const std::string& dir : saved.dirs) {
    const std::string sim = dir + "/" + layout::kSimDir;
    if (dir.empty() || !has_sim_totals(sim)) {
      lacking.push_back(dir.empty() ? std::string("a raw-profile input") : dir);
      continue;
    }
    for (const auto& [k, v] : read_sim_totals(sim)) totals[k] += v;
  }
  std::optional<CounterMap> program;
  std::string no_totals;
  if (lacking.empty()) {
    program = std::move(totals);
  } else {
    no_totals = "no " + std::string(layout::kSimDir) + "/totals.*.txt in " + short_list(lacking) +
                ": the whole program ([program]) has no counts, its regions have";
  }
  Profile p = sim_profile(std::move(timed), std::move(counted->second), std::move(program),
                          no_totals, "caches", saved.from());
  p.run.per_process_cache_model = true;
  return p;
}

}  // namespace

std::unique_ptr<BackendDriver> make_sim_driver() { return std::make_unique<SimDriver>(); }

}  // namespace rprof
