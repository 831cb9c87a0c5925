// A backend driver: the tool side of one counter source (lib/backends/<name>/),
// the counterpart of the runtime's Backend (runtime/backend.h). It says
//   - whether it works here, and if not why and what to do (probe),
//   - which runs of the program it needs (plan): one native run; a native and
//     a simulated run; one run per hardware event group,
//   - how the runs it planned become one profile, and the notes and counters
//     it adds (finish).
// The registry (run/registry.h) lists every driver; `rprof`, `rprof doctor`
// and `rprof --help` iterate it. The pipeline (run/pipeline.h) runs a plan.
//
// One driver object serves one run of rprof: plan() may keep what finish()
// needs (the simulated cache geometry, the run's file layout) in members.
#ifndef RPROF_RUN_DRIVER_H_
#define RPROF_RUN_DRIVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "profile/profile.h"
#include "run/launcher.h"
#include "run/pass.h"

namespace rprof {

struct DriverProbe {
  bool works = false;
  std::string why;                   // what works, or why not
  std::string fix;                   // what to do ("" when it works)
  std::vector<std::string> details;  // further findings, one line each
};

// The machine model, loaded (or calibrated) on first use; null when there is
// none (the run then has no roofline, never fails for it).
struct MachineRef {
  const Machine* machine = nullptr;
  std::string file;
};

// What the user asked for, as far as backends care.
struct RunRequest {
  std::vector<std::string> app;  // the program and its arguments
  std::string program;           // app[0] resolved (PATH), for inspection
  // --events: names in the backend's spelling, "a,b;c,d": a group (a,b) is
  // counted together, each group is one run.
  std::string events;
  bool multiplex = false;  // --perf-multiplex
  bool sim_only = false;   // --sim-only
  std::string sim_cache;   // --sim-cache
  // --sample: the inst backend's cache simulation, "off", "full" or a rate
  // ("0.02", "2%"); "" for the backend's default.
  std::string cache_sample;
  // --functions[=N]: the hottest N functions become regions (0: off). rprof
  // refuses it for a backend whose driver says no to counts_functions().
  size_t functions = 0;
  // --sample-period: cpu-clock period of the function view's sampled run, ns.
  uint64_t sample_period_ns = 0;  // 0: kSamplingPeriodNs
  std::function<MachineRef()> machine;
};

// One run of the program.
struct PassPlan {
  std::string label;            // its events, for people ("run 2 of 3 (...)")
  std::string runtime_backend;  // what the runtime is told (RPROF_BACKEND)
  std::string raw_dir;          // relative to the output directory
  LaunchSpec spec;              // argv, wrapper, backend-specific environment
};

struct RunPlan {
  std::string backend;  // the profile's run.backend
  std::vector<PassPlan> passes;
  // Added to the environment of every pass. Launch-environment additions
  // that are not a backend's (e.g. LD_PRELOAD of a LIKWID/PAPI marker shim
  // chosen from the binary) go here, between plan() and run_plan().
  std::map<std::string, std::string> env;
  bool announce_passes = false;  // say "run i of n (label)" before each
  // A pass slow enough for a progress line (run/progress_line.h), e.g. the
  // simulated one: its index (none: SIZE_MAX), what it does ("simulating"),
  // and its expected wall time as a multiple of the first pass's (0: no
  // estimate). The line shows only where progress_line is set (the caller:
  // a terminal, not -q).
  size_t progress_pass = SIZE_MAX;
  std::string progress_what;
  double progress_slowdown = 0;
  bool progress_line = false;
  // The pass whose times the profile shows (SIZE_MAX: none, e.g. sim's
  // --sim-only), and --repeat N: how many times it runs. The pipeline runs
  // it again N - 1 times right after it, into raw-repeat/run<k>; the driver
  // finishes with the first run (its counts), and each region gets its time
  // over all N runs (Region::repeat).
  size_t timed_pass = 0;
  size_t repeat = 1;
};

// What a run of rprof ends with.
struct RunOutcome {
  Profile profile;
  LaunchResult result;   // the outcome rprof reports (exit status)
  std::string problem;   // a failure of rprof's own run (sim), for people
  bool native = true;    // the program ran natively (not --sim-only)
  // SIGINT, SIGTERM, ... that stopped a run and cut the plan's counts short
  // (the counted run skipped or partial): rprof exits 128 + it.
  int stopped = 0;
};

// Where a backend's counts come from: what --backend=auto's notices and
// --sim-only ask of a driver, never its name.
enum class CountSource {
  kTiming,      // the clock only
  kSimulation,  // a simulated run (counts without a native run, per function)
  kHardware,    // hardware counters
  kInstrumented,  // counts the program's own code keeps (a compiler plugin)
  kScripted,    // tests
};

// What `rprof merge` found of one backend's runs: each raw folder's profiles
// (profile/run_layout.h) aggregated over the processes of every merged input.
struct SavedPasses {
  std::map<std::string, Profile> passes;  // by raw folder: "raw", "raw/pass2", "raw-sim"
  // The merged output directories, for the backend's own files ("" for an
  // input that is a raw profile or a folder of them).
  std::vector<std::string> dirs;
  size_t inputs = 1;
  // "merged from N inputs: " when more than one, for the notes.
  std::string from() const {
    return inputs > 1 ? "merged from " + std::to_string(inputs) + " inputs: " : "";
  }
};

struct AutoRefusal {
  std::string backend;
  std::string reason;
  CountSource source = CountSource::kTiming;
  bool without_native_run = false;  // it could have counted with --sim-only
};

class BackendDriver {
 public:
  virtual ~BackendDriver() = default;
  virtual const char* name() const = 0;
  // One line for --help: what it counts.
  virtual const char* summary() const = 0;
  // Tests-only backends are not listed by --help and doctor.
  virtual bool listed() const { return true; }
  // Doctor recommends the working backend with the highest rank.
  virtual int rank() const = 0;
  virtual CountSource source() const = 0;
  // Capabilities. --functions: counts attributed to the program's functions.
  virtual bool counts_functions() const { return false; }
  // The note of a run whose program has no markers, shown by function.
  virtual std::string function_view_note() const {
    return "the program has no markers: its functions are shown as regions (the function "
           "view; --functions=N for more)";
  }
  // --sim-only: the counts without a native run (no times).
  virtual bool counts_without_native_run() const { return false; }
  virtual DriverProbe probe() const = 0;

  // --backend=auto: nullopt when auto never picks this backend, "" when it
  // would count this run, else why not (one phrase, for the notice).
  virtual std::optional<std::string> auto_refusal(const RunRequest& request) const;
  // The notice when auto picked this backend after the better ones refused
  // (best first), or "" for none.
  virtual std::string auto_notice(const std::vector<AutoRefusal>& refused) const;

  // The runs this backend needs. Throws Error (exit code 2 for bad options,
  // 1 when it cannot count here) before anything is created or run.
  virtual RunPlan plan(const RunRequest& request) = 0;
  // Once the output directory exists, before the first pass.
  virtual void prepare(RunPlan& plan, const std::string& out_dir);
  // Before pass i: creates its raw directory; may finish its launch spec.
  virtual void before_pass(RunPlan& plan, size_t i, const std::string& out_dir);
  // After pass i: whether the next one runs.
  virtual bool keep_going(const RunPlan& plan, const std::vector<PassResult>& done);
  // The passes that ran, as one profile with the backend's notes.
  virtual RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) = 0;
  // `rprof merge`: the passes runs of this backend saved, merged as finish()
  // merges a run's passes (through the same functions). The default: one
  // native pass (raw/), its counts summed per region over the processes.
  // Throws Error (one line) for passes this backend never writes.
  virtual Profile merge_saved(SavedPasses saved) const;
};

// One native pass (raw/): BackendDriver::merge_saved's default, and `rprof
// merge` of raw profiles given as files or folders of them (whatever backend
// wrote them: their own counts, summed per region over the processes).
Profile merge_single_pass(SavedPasses saved, const std::string& backend);

// Creates a pass's raw directory (and its parent, inside the output
// directory) with mode 0700; throws Error when it cannot.
void create_raw_dir(const std::string& dir);

}  // namespace rprof

#endif  // RPROF_RUN_DRIVER_H_
