// The papi and likwid backends, tool side: which names to count from the
// CPU's event table (PAPI takes libpfm4 names and its presets; likwid its own
// names with a counter register each), and whether the library can count
// here. Both are optional at build time; without them the probe says so.
#ifndef RPROF_TOOLS_RPROF_HW_LIBRARY_PLANS_H_
#define RPROF_TOOLS_RPROF_HW_LIBRARY_PLANS_H_

#include <string>
#include <vector>

#include "backends/perf/event_tables.h"
#include "tools/rprof/hw_run.h"

namespace rprof {

struct LibraryProbe {
  bool built = false;  // compiled into this rprof
  bool ok = false;     // can count hardware events here
  std::string reason;  // why not / what works
  std::string fix;     // what to do
};

// A table event in a library's spelling: key "_" = counted but not recorded
// (likwid's MERGE partner of Zen's FLOP counter).
struct LibraryEvent {
  std::string key, name;
};
using LibraryGroups = std::vector<std::vector<LibraryEvent>>;

// PAPI: libpfm4 names, PAPI_TOT_CYC/PAPI_TOT_INS, perf_raw::rNNNN for the rest.
LibraryGroups papi_event_groups(const CpuTable& table);
// likwid: EVENT:COUNTER (fixed counters where the table says so, PMCn in
// order, MERGE pairs on an even counter); events likwid lacks go to *missing.
LibraryGroups likwid_event_groups(const CpuTable& table, std::vector<std::string>* missing);

LibraryProbe probe_papi();
LibraryProbe probe_likwid();

// Throw Error (exit code 1) with the reason when the library cannot count.
HwRunPlan plan_papi(const HwRunOptions& options);
HwRunPlan plan_likwid(const HwRunOptions& options);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_HW_LIBRARY_PLANS_H_
