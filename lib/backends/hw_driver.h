// What the hardware-counter backends (perf, papi, likwid) share on the tool
// side: a plan of one run per event group (the core has too few counters for
// all events at once), each run told its events through the handshake, the
// runs merged per region (profile/merge_runs.h), and the notes on how far
// the counts can be trusted (multiplexing, threads moving between CPUs).
#ifndef RPROF_BACKENDS_HW_DRIVER_H_
#define RPROF_BACKENDS_HW_DRIVER_H_

#include <map>
#include <string>
#include <vector>

#include "common/kinds.h"
#include "hwcounters/event_tables.h"
#include "run/driver.h"

namespace rprof {

struct HwRunOptions {
  std::string backend;  // perf, papi or likwid
  // --events: groups of names in the backend's spelling; a group is counted
  // together, each group is one run.
  std::vector<std::vector<std::string>> events;
  bool multiplex = false;  // perf: all groups in one run, counts scaled
};

struct HwRunPlan {
  std::string backend;
  std::vector<std::map<std::string, std::string>> pass_env;  // handshake per run
  std::vector<std::string> pass_labels;                      // events of each run, for people
  std::vector<std::string> notes;                            // for the report
  // Boundaries below L1 (L2, LLC, DRAM) whose traffic no event of the plan
  // counts (an approximation does not count): where any, a program built
  // with rprof cc and memory accesses instrumented runs rprof's cache model
  // too, which fills those boundaries (docs/inst-backend.md).
  std::vector<Boundary> uncounted;
  // Counter slots the first run's events take (the model joins that run).
  int first_run_counters = 0;
};

// A table event in a library's spelling: key "_" = counted but not recorded
// (likwid's MERGE partner of Zen's FLOP counter).
struct LibraryEvent {
  std::string key, name;
};
using LibraryGroups = std::vector<std::vector<LibraryEvent>>;

// How a library backend's runtime is told its events (runtime/handshake.h):
// the event list's and the group numbering's environment names.
struct LibraryEnv {
  const char* events;
  const char* group_base;
};
// The plan of a library backend (papi, likwid): one run per group.
HwRunPlan library_plan(const std::string& backend, const LibraryEnv& env,
                       const LibraryGroups& groups, std::vector<std::string> notes);
// The notes of counting with a CPU's event table through a library.
std::vector<std::string> table_notes(const CpuTable& table, const std::string& library);
// ": <the PMU's problem>" when perf_event cannot count here, else "": when a
// library fails, the perf probe usually knows the real cause.
std::string pmu_cause();
// A library that fails for the PMU's reason too says it once more, unless
// its reason already does ("and: <reason>" in the probe's details).
void add_pmu_detail(DriverProbe& probe);

class HwDriver : public BackendDriver {
 public:
  CountSource source() const override { return CountSource::kHardware; }
  RunPlan plan(const RunRequest& request) override;
  bool keep_going(const RunPlan& plan, const std::vector<PassResult>& done) override;
  RunOutcome finish(const RunPlan& plan, std::vector<PassResult> passes) override;
  // --perf-multiplex: all groups in one run, counts scaled (perf only).
  virtual bool multiplexes() const { return false; }
  // Runs rprof's cache model beside its counters for an instrumented program
  // where its plan counts no traffic at a boundary (HwRunPlan::uncounted).
  virtual bool runs_cache_model() const { return false; }
  Profile merge_saved(SavedPasses saved) const override;
  // The cache model's environment, once the machine is known.
  void prepare(RunPlan& plan, const std::string& out_dir) override;

 protected:
  // Throws Error (exit code 1) when the backend cannot count here, with the
  // reason and what to do; exit code 2 for bad --events.
  virtual HwRunPlan plan_hw(const HwRunOptions& options) = 0;

 private:
  HwRunPlan hw_;
  // The cache model beside the counters (hw_.uncounted, an instrumented
  // program): the request it is set up from, and what it simulates.
  bool model_ = false;
  RunRequest request_;
  std::string model_note_;
};

}  // namespace rprof

#endif  // RPROF_BACKENDS_HW_DRIVER_H_
