// The `inst` backend, tool side: one native run of a program built with
// `rprof cc`, whose own code counts its FLOPs and the bytes it loads and
// stores (inst_counters.h). With --backend=auto it is chosen for such a
// program when no hardware counters work.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backends/inst/inst_cc.h"
#include "backends/inst/inst_model.h"
#include "backends/inst/inst_counters.h"
#include "backends/inst/inst_sample.h"
#include "backends/sim/sim_config.h"
#include "common/elf_file.h"
#include "common/error.h"
#include "machine/topology.h"
#include "runtime/handshake.h"
#include "profile/join.h"
#include "profile/run_layout.h"
#include "run/native_driver.h"
#include "run/preload.h"

namespace rprof {
namespace {

const char* const kNote =
    "counts from the program's own instrumentation (rprof cc: rprof's GCC or LLVM plugin): FLOPs "
    "(FMA = 2, per lane) and the bytes its instrumented code loads and stores (the L1 "
    "boundary), exact for that code; code built without the plugin (libm, other libraries) "
    "is not counted (docs/inst-backend.md)";

// Where the times come from: rates and roof fractions read with them are
// those of the instrumented program, not of its plain build.
const char* const kTimesNote =
    "times: from this same instrumented run, which counts as it runs and, with --sample, "
    "simulates the sampled cache sets in the program: its GFLOP/s, GB/s and roof fractions "
    "are those of a program slower than its plain build (1.4-1.8x without --sample, 1.9-3.5x "
    "with it on PolyBench/C and HPCCG at -O3, bench/RESULTS-inst.md), so they are lower "
    "bounds of the native rates; the sim backend times a native run of an unmodified build";

// Where the times come from in a program whose loop nests have plain
// versions (inst_loops_versioned): a run of those, then a counted run.
std::string two_runs_note(double timed_s, double counted_s) {
  std::string ratio;
  if (timed_s > 0 && counted_s > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%.3g s of wall time against %.3g s: %.2fx)", counted_s,
                  timed_s, counted_s / timed_s);
    ratio = buf;
  }
  return "times: from a run of the program's plain loop versions (rprof cc compiles every loop "
         "nest as a plain, a counted and a counted-with-accesses copy; this run took the plain "
         "ones, at the plain build's speed but for the region entry and exit calls); counts: "
         "from a second run of the counted versions, joined per region and thread (calls that "
         "differ between the runs are noted), which ran slower" + ratio +
         "; rates and roof fractions are the first run's times over the second's counts "
         "(docs/inst-backend.md)";
}

std::string refusal_of(const RunRequest& request) {
  std::string why;
  return instrumented_program(request, &why).empty() ? why : "";
}


// Names the code the instrumented code calls that no instrumented unit
// defines: its FLOPs and bytes are in no count.
void note_uncounted(const std::vector<std::string>& names, Profile& p) {
  if (names.empty()) return;
  constexpr size_t kShown = 12;
  std::string list;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > kShown) list += ", and " + std::to_string(names.size() - kShown) + " more";
  p.notes.push_back("not counted: the instrumented code has calls to " +
                    std::to_string(names.size()) + " function" +
                    (names.size() == 1 ? "" : "s") +
                    " that no unit built with rprof cc defines (a library's, or built without "
                    "the plugin; read from the compiled code, so some may never have run); the "
                    "FLOPs and bytes of those that ran are in no region's counts: " +
                    list);
}

// The cache simulation's default: 1 line in 64 simulated (set sampling,
// inst_sample.h; bench/RESULTS-inst.md: the speed goal, 3x native at most).
constexpr double kDefaultSampleRate = 1.0 / 64;

struct CacheSample {
  double rate = kDefaultSampleRate;  // < 0: full, 0: off
};

// --sample: "off", "full", or a RATE in (0, 1], a percentage or a fraction
// 1/N: the share of cache sets (so of lines) simulated, rounded to 1 in a
// power of two.
CacheSample parse_cache_sample(const std::string& v) {
  CacheSample s;
  if (v.empty()) return s;
  if (v == "off") {
    s.rate = 0;
    return s;
  }
  if (v == "full") {
    s.rate = -1;
    return s;
  }
  const std::string bad = "--sample " + v +
                          ": expected a RATE in (0, 1] (0.02, 2% or 1/64: the share of cache "
                          "sets simulated), full or off";
  std::string num = v;
  double scale = 1;
  if (!num.empty() && num.back() == '%') {
    num.pop_back();
    scale = 0.01;
  } else if (const size_t slash = num.find('/'); slash != std::string::npos) {
    char* end = nullptr;
    const double numerator = std::strtod(num.substr(0, slash).c_str(), &end);
    if (slash == 0 || end == nullptr || *end != '\0' || !(numerator > 0)) throw Error(bad, 2);
    num = num.substr(slash + 1);  // the denominator, read below
    const double d = std::strtod(num.c_str(), &end);
    if (num.empty() || *end != '\0' || !(d > 0)) throw Error(bad, 2);
    num = "1";
    scale = numerator / d;
  }
  char* end = nullptr;
  const double r = std::strtod(num.c_str(), &end) * scale;
  if (num.empty() || end == nullptr || *end != '\0' || !(r > 0) || r > 1) throw Error(bad, 2);
  s.rate = r;
  return s;
}

// A level's set count.
uint64_t sets_of(const SimCache& c) {
  return static_cast<uint64_t>(c.size_bytes) /
         (static_cast<uint64_t>(c.ways) * static_cast<uint64_t>(c.line_bytes));
}

// The power of two F nearest 1 / rate (at least 2), at most the smallest
// level's set count.
uint64_t sample_sets(double rate, const SimCaches& caches) {
  uint64_t limit = uint64_t{1} << 20;
  for (const SimCache* c : {&caches.l1, &caches.l2, &caches.llc}) {
    uint64_t p = 1;
    while (p * 2 <= std::min(limit, sets_of(*c))) p *= 2;
    limit = std::min(limit, p);
  }
  const double want = std::round(std::log2(1.0 / rate));
  const uint64_t f = uint64_t{1} << static_cast<int>(std::clamp(want, 1.0, 20.0));
  return std::min(f, limit);
}

// A RATE that rounds to fewer sets than the caches can sample (1 in the
// smallest level's set count, at most 1 in 2^20) is refused, not clamped:
// the run would sample more than was asked and say so only in a note.
void check_sample_rate(const std::string& given, double rate, const SimCaches& caches) {
  if (!(rate > 0)) return;
  const uint64_t limit = sample_sets(0.5 / (uint64_t{1} << 20), caches);
  if (limit < 2) return;  // nothing to sample by: every access simulated, as the note says
  if (!(std::round(std::log2(1.0 / rate)) > std::log2(static_cast<double>(limit)))) return;
  std::string why = "the model samples at most 1 in 1048576";
  for (const auto& [c, name] :
       {std::pair{&caches.l1, "L1"}, {&caches.l2, "L2"}, {&caches.llc, "LLC"}}) {
    if (sets_of(*c) < 2 * limit) {
      why = std::string("the ") + name + " has " + std::to_string(sets_of(*c)) + " sets";
      break;
    }
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.3g%%", 100.0 / static_cast<double>(limit));
  throw Error("--sample " + given + ": below the smallest share these caches can sample, 1 in " +
                  std::to_string(limit) + " sets (" + share + ": " + why +
                  "); give a RATE of at least " + share + ", full or off",
              2);
}

}  // namespace

std::string instrumented_program(const RunRequest& request, std::string* why) {
  *why = inst_refusal(request.program);
  if (why->empty()) return request.program;
  std::vector<std::string> candidates = {request.program};
  for (size_t i = 1; i < request.app.size(); ++i) {
    const std::string& a = request.app[i];
    if (a.empty() || a[0] == '-' || access(a.c_str(), X_OK) != 0) continue;
    // A shared library named as an argument (a program that dlopens it) is
    // no program to run.
    const std::string file = std::filesystem::path(a).filename().string();
    if (file.size() > 3 && (file.compare(file.size() - 3, 3, ".so") == 0 ||
                            file.find(".so.") != std::string::npos)) {
      continue;
    }
    if (inst_refusal(a).empty()) return a;
    candidates.push_back(a);
  }
  // A plain program that loads a library built with rprof cc.
  for (const std::string& c : candidates) {
    if (!inst_libraries(c).empty()) return c;
  }
  return "";
}

std::vector<std::string> inst_objects(const std::string& program) {
  std::vector<std::string> out;
  if (program.empty()) return out;
  if (inst_refusal(program).empty()) out.push_back(program);
  for (std::string& lib : inst_libraries(program)) out.push_back(std::move(lib));
  return out;
}

void check_inst_model_options(const RunRequest& request) {
  const CacheSample sample = parse_cache_sample(request.cache_sample);
  SimCaches caches = sim_caches_from_topology(detect_topology());
  apply_sim_cache_spec(caches, request.sim_cache);  // a bad spec fails before anything runs
  check_sim_caches(caches);
  check_sample_rate(request.cache_sample, sample.rate, caches);
}

InstModelRun inst_model_run(const RunRequest& request) {
  CacheSample sample = parse_cache_sample(request.cache_sample);
  InstModelRun run;
  if (sample.rate == 0) {
    run.env[inst::kSampleEnv] = "off";
    run.note = "traffic below L1: not simulated (--sample off)";
    return run;
  }
  run.on = true;
  run.sampled = sample.rate > 0;
  run.counters_beside_hardware = run.sampled ? inst::kSampledCounters + 2 : inst::kFullCounters;
  // As the sim backend's caches: the machine file's effective sizes where the
  // reported ones contradict them, then --sim-cache.
  const MachineRef m = request.machine ? request.machine() : MachineRef{};
  SimCaches caches = sim_caches_from_topology(detect_topology());
  if (m.machine != nullptr) apply_machine_caches(caches, *m.machine, m.file);
  apply_sim_cache_spec(caches, request.sim_cache);
  check_sim_caches(caches);
  run.caches = caches;
  std::string geometry;
  for (const SimCache* c : {&caches.l1, &caches.l2, &caches.llc}) {
    geometry += (geometry.empty() ? "" : ",") + std::to_string(c->size_bytes) + ":" +
                std::to_string(c->ways) + ":" + std::to_string(c->line_bytes);
  }
  run.env[inst::kCachesEnv] = geometry;
  const std::string model =
      "rprof's cache model (the sim backend's): " + describe_sim_caches(caches);
  if (sample.rate < 0) {
    run.env[inst::kSampleEnv] = "full";
    run.note = "traffic below L1 (L2, LLC, DRAM): every memory access of the instrumented code "
               "simulated (--sample full) in " + model;
    return run;
  }
  check_sample_rate(request.cache_sample, sample.rate, caches);
  const uint64_t f = sample_sets(sample.rate, caches);
  // The plugin's filter tests 64-byte lines (inst_counters.h): lines of 64
  // bytes or more sample whole; a level of 1 set has nothing to sample by.
  const char* no_sets = f < 2 ? "a level of 1 set"
                        : caches.l1.line_bytes < 64 ? "lines under 64 bytes"
                                                    : nullptr;
  if (no_sets != nullptr) {
    run.sampled = false;
    run.counters_beside_hardware = inst::kFullCounters;
    run.env[inst::kSampleEnv] = "full";
    run.note = "traffic below L1 (L2, LLC, DRAM): every memory access of the instrumented "
               "code simulated (" + std::string(no_sets) + ": no set sampling) in " + model;
    return run;
  }
  run.env[inst::kSampleEnv] = "sets=" + std::to_string(f) + ",sel=1";
  // Exact where F divides every level's set count; else approximate (an
  // effective size from the machine file can have any set count).
  std::string approx;
  for (const SimCache* c : {&caches.l1, &caches.l2, &caches.llc}) {
    if (sets_of(*c) % f != 0 && approx.empty()) {
      approx = " (approximate: a level of " + std::to_string(sets_of(*c)) +
               " sets, not a multiple of " + std::to_string(f) + ")";
    }
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.3g%%", 100.0 / static_cast<double>(f));
  run.note = "traffic below L1 (L2, LLC, DRAM): estimated from 1 in " + std::to_string(f) +
             " cache sets (" + share + " of the lines) at every level, whose accesses are all "
             "simulated (set sampling: no warm-up, no cold start)" + approx +
             ", per thread: each figure F times the sampled lines' bytes, with its 95% "
             "interval; " + model;
  return run;
}

bool links_librprof(const std::string& program) {
  for (const std::string& n : elf_needed(program)) {
    if (n.rfind("librprof.so", 0) == 0) return true;
  }
  return false;
}

void preload_librprof_into(const std::string& target, std::map<std::string, std::string>& env) {
  const InstFiles files = find_inst_files(nullptr);
  if (target.empty() || links_librprof(target) || files.librprof.empty()) return;
  std::error_code ec;
  const std::filesystem::path canon = std::filesystem::canonical(target, ec);
  env[RPROF_ENV_PRELOAD_PROGRAM] = ec ? target : canon.string();
  prepend_preload(env, {files.librprof});
}

namespace {

class InstDriver final : public NativeRunDriver {
 public:
  const char* name() const override { return "inst"; }
  const char* summary() const override {
    return "counts compiled into the program by rprof cc (GCC or LLVM plugin): exact FLOPs and L1 "
           "bytes at near-native speed";
  }
  int rank() const override { return 25; }
  CountSource source() const override { return CountSource::kInstrumented; }
  DriverProbe probe() const override {
    std::string why;
    const InstFiles files = find_inst_files(&why);
    const bool gcc = !files.plugin.empty() && !files.runtime.empty();
    const bool llvm = !files.llvm_plugin.empty() && !files.runtime.empty();
    if (!gcc && !llvm) {
      return {false, why,
              "install gcc-N-plugin-dev for the GCC that builds rprof (or llvm-N-dev for "
              "clang N); rebuild rprof",
              {"programs already built with rprof cc still run with --backend=inst"}};
    }
    std::string plugins;
    if (gcc) plugins = "GCC " + files.gcc_major + " plugin " + files.plugin;
    if (llvm) {
      plugins += (gcc ? "; " : "") + std::string("clang (LLVM ") + files.llvm_major +
                 ") plugin " + files.llvm_plugin;
    }
    return {true, "counts programs built with `rprof cc` (" + plugins + ")", "", {}};
  }
  // Chosen by --backend=auto for an instrumented program (after the hardware
  // backends); silent for any other program.
  std::optional<std::string> auto_refusal(const RunRequest& request) const override {
    if (!refusal_of(request).empty()) return std::nullopt;
    return "";
  }
  std::string auto_notice(const std::vector<AutoRefusal>& refused) const override {
    return (refused.empty() ? std::string() : refused.front().reason + "; ") +
           "counting with the program's own instrumentation (--backend=inst: it was built "
           "with rprof cc)";
  }
  RunPlan plan(const RunRequest& request) override {
    // A bad --sample or --sim-cache fails first: one line naming it.
    check_inst_model_options(request);
    std::string why = refusal_of(request);
    // A plain program that loads its kernels with dlopen: the libraries it
    // loads that rprof cc built count themselves once librprof is there.
    dlopen_only_ = !why.empty() && calls_dlopen(request.program);
    if (dlopen_only_) why.clear();
    if (!why.empty()) {
      throw Error("--backend=inst: " + why + "; build it with `rprof cc gcc ...` (docs/inst-backend.md)",
                  2);
    }
    if (request.sample_period_ns > 0) {
      throw Error("--sample-period: the inst backend times functions and loops by clock reads "
                  "at their entry and exit, not by samples",
                  2);
    }
    request_ = request;
    RunRequest native = request;  // --sim-cache and --sample are this backend's
    native.sim_cache.clear();
    native.cache_sample.clear();
    RunPlan plan = NativeRunDriver::plan(native);
    // Functions and loop nests are regions everywhere in a program without
    // markers (the function view, request.functions), else inside the
    // marked regions only.
    plan.env[RPROF_INST_REGIONS_ENV] = request.functions > 0 ? "all" : "marked";
    // A program without markers does not link the runtime that reads its
    // counters: preloaded, for that program only (not mpirun nor what it
    // starts), before the user's own preloads.
    std::string unused;
    target_ = dlopen_only_ ? request.program : instrumented_program(request, &unused);
    preload_librprof_into(target_, plan.env);
    // Loop nests with plain versions: a timed run of those (the first pass,
    // raw/; no memory access passed on), then a counted run.
    objects_ = inst_objects(target_);
    two_runs_ = std::any_of(objects_.begin(), objects_.end(),
                            [](const std::string& o) { return inst_loops_versioned(o); });
    if (two_runs_) {
      PassPlan counted = plan.passes.front();
      // The clock only: what the plain run's remaining counted code (outside
      // loop nests) adds is not read, the counted run's counts are the
      // region's.
      plan.passes.front().label = "timed: plain loop versions";
      plan.passes.front().runtime_backend = "time";
      plan.passes.front().spec.env[inst::kSampleEnv] = "off";
      counted.label = "counted";
      counted.raw_dir = layout::kCountedRawDir;
      plan.passes.push_back(std::move(counted));
      plan.announce_passes = true;
    }
    return plan;
  }
  // The simulated caches (inst_model_run): the machine is known by now.
  void prepare(RunPlan& plan, const std::string& out_dir) override {
    NativeRunDriver::prepare(plan, out_dir);
    // The counted run takes the loop nests' counted versions (inst_counters.h).
    plan.passes.back().spec.env[RPROF_INST_COUNTING_ENV] = "1";
    if (!target_.empty() && !dlopen_only_ &&
        std::none_of(objects_.begin(), objects_.end(),
                     [](const std::string& o) { return inst_memory_instrumented(o); })) {
      // Nothing to simulate: the program passes no accesses.
      plan.env[inst::kSampleEnv] = "off";
      model_ = InstModelRun{};
      if (!request_.cache_sample.empty() && request_.cache_sample != "off") {
        model_.note = "traffic below L1: not simulated: " + target_ +
                      " was built without its memory accesses instrumented (rprof cc with "
                      "-fplugin-arg-rprof_inst-memory=off, or an older rprof); rebuild it with "
                      "rprof cc";
      } else {
        model_.note = "traffic below L1: not simulated: " + target_ +
                      " was built without its memory accesses instrumented";
      }
      return;
    }
    model_ = inst_model_run(request_);
    for (const auto& [k, v] : model_.env) plan.env[k] = v;
    // With their accesses where the model runs.
    if (model_.on) plan.passes.back().spec.env[RPROF_INST_COUNTING_ENV] = "2";
  }
  std::string function_view_note() const override {
    return "the program has no markers: its functions that have loops, and their loop nests "
           "(outermost loops, named by file:line), are regions; times from clock reads at "
           "their entry and exit, counts from the program's instrumentation (no sampling)";
  }
  // Its functions and loop nests are regions of their own (no sampling).
  bool counts_functions() const override { return true; }
  bool keep_going(const RunPlan&, const std::vector<PassResult>& done) override {
    return !interrupted(done.front().launch);
  }
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override {
    if (!two_runs_) {
      RunOutcome out = NativeRunDriver::finish(plan, std::move(passes));
      out.profile.notes.push_back(kNote);
      out.profile.notes.push_back(kTimesNote);
      out.profile.notes.push_back(model_.note);
      if (dlopen_only_) out.profile.notes.push_back(dlopen_note(target_));
      add_own_cache_note(out.profile);
      if (!objects_.empty()) note_uncounted(uncounted_callees(objects_), out.profile);
      return out;
    }
    RunOutcome out;
    PassResult& timed = passes.front();
    out.result = timed.launch;
    add_signal_note(timed.profile, timed.launch);
    if (passes.size() == 1) {
      out.profile = std::move(timed.profile);
      const int sig = stop_signal(out.result);
      out.profile.notes.push_back("the timed run was stopped by signal " + signal_name(sig) +
                                  ", so the counted run was skipped: no counts");
      out.stopped = sig;
      return out;
    }
    PassResult& counted = passes.back();
    add_signal_note(counted.profile, counted.launch);
    const LaunchResult& t = timed.launch;
    const LaunchResult& c = counted.launch;
    out.profile = join_timed_and_counted(std::move(timed.profile), std::move(counted.profile));
    if (stop_signal(c) == 0 && (t.exit_code != c.exit_code || t.signal != c.signal)) {
      out.profile.notes.push_back("the program " + outcome_phrase(t) + " when timed but " +
                                  outcome_phrase(c) + " when counted");
    }
    out.stopped = stop_signal(c);
    if (out.stopped != 0) {
      out.profile.notes.push_back("the counted run was stopped by signal " +
                                  signal_name(out.stopped) +
                                  ": its counts cover what ran before the stop");
    }
    out.profile.notes.push_back(kNote);
    out.profile.notes.push_back(two_runs_note(t.wall_time_s, c.wall_time_s));
    out.profile.notes.push_back(model_.note);
    add_own_cache_note(out.profile);
    if (!objects_.empty()) note_uncounted(uncounted_callees(objects_), out.profile);
    return out;
  }
  Profile merge_saved(SavedPasses saved) const override {
    auto counted = saved.passes.find(layout::kCountedRawDir);
    if (counted == saved.passes.end()) {
      Profile p = BackendDriver::merge_saved(std::move(saved));
      p.notes.push_back(kNote);
      p.notes.push_back(kTimesNote);
      return p;
    }
    auto timed = saved.passes.find(layout::kRawDir);
    if (timed == saved.passes.end()) {
      throw Error("rprof merge: a run of the inst backend with loop versions saves its times in "
                  "raw/; these inputs have counts (raw-counted/) only");
    }
    for (const auto& [rel, p] : saved.passes) {
      if (rel != layout::kRawDir && rel != layout::kCountedRawDir) {
        throw Error(std::string("rprof merge: a run of the inst backend saves raw/ and "
                                "raw-counted/, not ") + rel + "/");
      }
    }
    Profile p = join_timed_and_counted(std::move(timed->second), std::move(counted->second));
    p.notes.push_back(kNote);
    p.notes.push_back(two_runs_note(0, 0));
    return p;
  }

 private:
  // The program built with rprof cc, once plan() found it.
  std::string target_;
  // Processes that shared a host were each simulated with their own LLC.
  void add_own_cache_note(Profile& p) const {
    if (!model_.on) return;
    p.run.per_process_cache_model = true;
    if (std::string n = own_cache_note(p, model_.caches); !n.empty()) p.notes.push_back(std::move(n));
  }
  // The ELF objects built with rprof cc: target_ and the libraries it loads.
  std::vector<std::string> objects_;
  // Its loop nests have plain versions: a timed run, then a counted one.
  bool two_runs_ = false;
  // No object linked into target_ was built with rprof cc; it calls dlopen.
  bool dlopen_only_ = false;
  static std::string dlopen_note(const std::string& program) {
    return "no object linked into " + program +
           " was built with rprof cc; it calls dlopen, so the libraries built with rprof cc that "
           "it loads are counted (their functions and loop nests are regions) and nothing else "
           "is; one run gives times and counts, at the counted code's speed (the loaded "
           "libraries' loop versions are not known before the run)";
  }
  RunRequest request_;
  InstModelRun model_;
};

}  // namespace

std::unique_ptr<BackendDriver> make_inst_driver() { return std::make_unique<InstDriver>(); }

}  // namespace rprof
