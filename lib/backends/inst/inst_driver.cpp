// The `inst` backend, tool side: one native run of a program built with
// `rprof cc`, whose own code counts its FLOPs and the bytes it loads and
// stores (inst_counters.h). With --backend=auto it is chosen for such a
// program when no hardware counters work.
#include <unistd.h>

#include "backends/inst/inst_cc.h"
#include "common/error.h"
#include "run/native_driver.h"

namespace rprof {
namespace {

const char* const kNote =
    "counts from the program's own instrumentation (rprof cc: rprof's GCC plugin): FLOPs "
    "(FMA = 2, per lane) and the bytes its instrumented code loads and stores (the L1 "
    "boundary), exact for that code; code built without the plugin (libm, other libraries) "
    "is not counted (docs/inst-backend.md)";

// "" when the program, or the program a launcher runs (`rprof mpirun -np 4
// ./app`: mpirun, srun and the like are not instrumented, the app is), was
// built with rprof cc; else why the program itself was not.
std::string refusal_of(const RunRequest& request) {
  const std::string why = inst_refusal(request.program);
  if (why.empty()) return "";
  for (size_t i = 1; i < request.app.size(); ++i) {
    const std::string& a = request.app[i];
    if (a.empty() || a[0] == '-' || access(a.c_str(), X_OK) != 0) continue;
    if (inst_refusal(a).empty()) return "";
  }
  return why;
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
    return NativeRunDriver::plan(request);
  }
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override {
    RunOutcome out = NativeRunDriver::finish(plan, std::move(passes));
    out.profile.notes.push_back(kNote);
    return out;
  }
  Profile merge_saved(SavedPasses saved) const override {
    Profile p = BackendDriver::merge_saved(std::move(saved));
    p.notes.push_back(kNote);
    return p;
  }
};

}  // namespace

std::unique_ptr<BackendDriver> make_inst_driver() { return std::make_unique<InstDriver>(); }

}  // namespace rprof
