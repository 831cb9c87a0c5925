// The `inst` backend, tool side: one native run of a program built with
// `rprof cc`, whose own code counts its FLOPs and the bytes it loads and
// stores (inst_counters.h). With --backend=auto it is chosen for such a
// program when no hardware counters work.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/inst/inst_cc.h"
#include "backends/inst/inst_counters.h"
#include "common/elf_file.h"
#include "common/error.h"
#include "runtime/handshake.h"
#include "run/native_driver.h"

namespace rprof {
namespace {

const char* const kNote =
    "counts from the program's own instrumentation (rprof cc: rprof's GCC plugin): FLOPs "
    "(FMA = 2, per lane) and the bytes its instrumented code loads and stores (the L1 "
    "boundary), exact for that code; code built without the plugin (libm, other libraries) "
    "is not counted (docs/inst-backend.md)";

// The program built with rprof cc: the program itself, or the program a
// launcher runs (`rprof mpirun -np 4 ./app`: mpirun, srun and the like are
// not instrumented, the app is); "" with *why (the program's own reason)
// when there is none.
std::string instrumented_program(const RunRequest& request, std::string* why) {
  *why = inst_refusal(request.program);
  if (why->empty()) return request.program;
  for (size_t i = 1; i < request.app.size(); ++i) {
    const std::string& a = request.app[i];
    if (a.empty() || a[0] == '-' || access(a.c_str(), X_OK) != 0) continue;
    if (inst_refusal(a).empty()) return a;
  }
  return "";
}

std::string refusal_of(const RunRequest& request) {
  std::string why;
  return instrumented_program(request, &why).empty() ? why : "";
}

bool links_librprof(const std::string& program) {
  for (const std::string& n : elf_needed(program)) {
    if (n.rfind("librprof.so", 0) == 0) return true;
  }
  return false;
}

// Names the code the instrumented code calls that no instrumented unit
// defines: its FLOPs and bytes are in no count.
void note_uncounted(const std::vector<std::string>& names, Profile& p) {
  if (names.empty()) return;
  constexpr size_t kShown = 12;
  std::string list;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > kShown) list += ", and " + std::to_string(names.size() - kShown) + " more";
  p.notes.push_back("not counted: the instrumented code calls " +
                    std::to_string(names.size()) + " function" +
                    (names.size() == 1 ? "" : "s") +
                    " that no unit built with rprof cc defines (a library's, or built without "
                    "the plugin); their FLOPs and bytes are in no region's counts: " +
                    list);
}

class InstDriver final : public NativeRunDriver {
 public:
  const char* name() const override { return "inst"; }
  const char* summary() const override {
    return "counts compiled into the program by rprof cc (GCC plugin): exact FLOPs and L1 "
           "bytes at near-native speed";
  }
  int rank() const override { return 25; }
  CountSource source() const override { return CountSource::kInstrumented; }
  DriverProbe probe() const override {
    std::string why;
    const InstFiles files = find_inst_files(&why);
    if (files.plugin.empty() || files.runtime.empty()) {
      return {false, why, "install gcc-N-plugin-dev for the GCC that builds rprof; rebuild rprof",
              {"programs already built with rprof cc still run with --backend=inst"}};
    }
    return {true,
            "counts programs built with `rprof cc` (GCC " + files.gcc_major + " plugin " +
                files.plugin + ")",
            "",
            {}};
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
    const std::string why = refusal_of(request);
    if (!why.empty()) {
      throw Error("--backend=inst: " + why + "; build it with `rprof cc gcc ...` (docs/inst-backend.md)",
                  2);
    }
    if (request.sample_period_ns > 0) {
      throw Error("--sample-period: the inst backend times functions and loops by clock reads "
                  "at their entry and exit, not by samples",
                  2);
    }
    RunPlan plan = NativeRunDriver::plan(request);
    // Functions and loop nests are regions everywhere in a program without
    // markers (the function view, request.functions), else inside the
    // marked regions only.
    plan.env[RPROF_INST_REGIONS_ENV] = request.functions > 0 ? "all" : "marked";
    // A program without markers does not link the runtime that reads its
    // counters: preloaded, for that program only (not mpirun nor what it
    // starts), before the user's own preloads.
    std::string unused;
    const std::string target = instrumented_program(request, &unused);
    target_ = target;
    const InstFiles files = find_inst_files(nullptr);
    if (!target.empty() && !links_librprof(target) && !files.librprof.empty()) {
      std::error_code ec;
      const std::filesystem::path canon = std::filesystem::canonical(target, ec);
      plan.env[RPROF_ENV_PRELOAD_PROGRAM] = ec ? target : canon.string();
      std::string user;
      if (auto it = plan.env.find("LD_PRELOAD"); it != plan.env.end()) {
        user = it->second;
      } else if (const char* inherited = std::getenv("LD_PRELOAD"); inherited != nullptr) {
        user = inherited;
      }
      plan.env["LD_PRELOAD"] = user.empty() ? files.librprof : files.librprof + ":" + user;
    }
    return plan;
  }
  std::string function_view_note() const override {
    return "the program has no markers: its functions that have loops, and their loop nests "
           "(outermost loops, named by file:line), are regions; times from clock reads at "
           "their entry and exit, counts from the program's instrumentation (no sampling)";
  }
  // Its functions and loop nests are regions of their own (no sampling).
  bool counts_functions() const override { return true; }
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override {
    RunOutcome out = NativeRunDriver::finish(plan, std::move(passes));
    out.profile.notes.push_back(kNote);
    if (!target_.empty()) note_uncounted(uncounted_callees(target_), out.profile);
    return out;
  }
  Profile merge_saved(SavedPasses saved) const override {
    Profile p = BackendDriver::merge_saved(std::move(saved));
    p.notes.push_back(kNote);
    return p;
  }

 private:
  // The program built with rprof cc, once plan() found it.
  std::string target_;
};

}  // namespace

std::unique_ptr<BackendDriver> make_inst_driver() { return std::make_unique<InstDriver>(); }

}  // namespace rprof
