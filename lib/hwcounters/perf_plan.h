// What `rprof --backend=perf` asks the runtime to count, and in how many runs.
//
// The CPU's table (event_tables.h) gives event groups that each fit the
// core's counters. By default the app runs once per group (passes) and the
// runs are merged per region, so no count is ever scaled; with multiplex the
// kernel rotates all groups in one run and counts are scaled by
// enabled/running (the ratio is reported). Memory-controller counters join
// the table's uncore pass when this machine exposes and permits them;
// otherwise DRAM traffic is the table's labelled LLC-miss approximation.
// --events replaces the table by groups of named events (libpfm4 names,
// perf's generic names, or rNNNN raw codes): events of a group are counted
// together; groups are runs (or multiplexed), as the table's are.
#ifndef RPROF_HWCOUNTERS_PERF_PLAN_H_
#define RPROF_HWCOUNTERS_PERF_PLAN_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hwcounters/event_tables.h"
#include "hwcounters/perf_spec.h"
#include "machine/topology.h"

namespace rprof {

struct PerfPlanOptions {
  std::vector<std::vector<std::string>> events;  // --events groups; empty = the CPU's table
  bool multiplex = false;           // one run, groups rotated by the kernel
  bool try_uncore = true;
  std::string root;                 // sysfs/proc root, for tests
  std::optional<CpuId> cpu;         // default: this machine's
  // CPUs the program may run on (hybrid tables check them); default: this
  // process's affinity (the program inherits it).
  std::optional<std::vector<int>> allowed_cpus;
};

struct PerfPass {
  std::vector<PerfGroupSpec> groups;
  int first_group = 0;
};

struct PerfPlan {
  std::string table_id;  // "" with --events
  std::vector<PerfPass> passes;
  std::vector<std::string> notes;  // approximations and conventions, for the report
  bool software_only = false;      // every event is a kernel software event
  bool uncore = false;
  // Boundaries whose traffic an event of the plan counts (a kLines role, or
  // the memory controllers for DRAM): not the LLC-miss stand-in for DRAM,
  // not --events. Where false, an instrumented program's cache model fills
  // the boundary (docs/inst-backend.md).
  bool counts_traffic[4] = {};
  bool counts_all_traffic() const;
  // The handshake for one pass: RPROF_BACKEND, RPROF_PERF_EVENTS, RPROF_PERF_GROUP_BASE.
  std::map<std::string, std::string> env(size_t pass) const;
};

// Throws Error (exit code 2) for unknown --events names or a plan that does
// not fit the runtime's counter slots.
PerfPlan plan_perf_run(const PerfPlanOptions& options);

// A hybrid CPU's table counts on the performance cores only (cpu_core); on
// an efficiency core (cpu_atom) the counters stop and the kernel's
// enabled/running scaling would extrapolate. "" when every allowed CPU is a
// performance core (or sysfs under `root` shows no cpu_atom PMU), else why
// the run is refused and the taskset command that pins it.
std::string hybrid_check(const std::string& root, const std::vector<int>& allowed);
// (The CPUs this process may run on: machine/thread_team.h allowed_cpus().)
// "0-3,8" -> {0, 1, 2, 3, 8}; empty on malformed text.
std::vector<int> parse_cpu_set(const std::string& text);

// Encoding of one table event for this machine: libpfm4 when it drives the
// table's PMU and knows the name, else the table's raw code.
PerfEventSpec encode_table_event(const CpuTable& table, const TableEvent& event);
// Encoding of a user-named event, or nullopt and *why.
std::optional<PerfEventSpec> encode_named_event(const std::string& name, std::string* why);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PERF_PLAN_H_
