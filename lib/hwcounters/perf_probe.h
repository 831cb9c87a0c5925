// Can hardware counters be used here, and if not, why and what to do?
// Used by `--backend=perf` (fail early with the reason), `rprof doctor`, and
// `--backend=auto` (fall back to sim when !ok).
#ifndef RPROF_HWCOUNTERS_PERF_PROBE_H_
#define RPROF_HWCOUNTERS_PERF_PROBE_H_

#include <string>

namespace rprof {

struct HardwareProbe {
  bool ok = false;       // per-thread hardware counters open on this machine
  int err = 0;           // errno of the failed perf_event_open, when !ok
  std::string reason;    // what happened and why ("no hardware counters: this is a
                         // virtual machine without a PMU (perf_event_open: ENOENT)")
  std::string fix;       // what to do
  std::string table_id;  // the CPU's event table ("zen4", ..., "generic")
  std::string table_name;
  std::string cpu;       // "AMD EPYC (family 25, model 17)"
  bool table_works = false;   // the table's first group opened (only tried when ok)
  bool uncore = false;        // memory-controller counters usable
  std::string uncore_reason;  // why not
  bool software_events = false;  // kernel software events (page-faults) open
  std::string line() const { return ok ? "hardware counters available" : reason + ". " + fix; }
};

// Opens (and closes) counters on the calling thread; cheap (< 1 ms).
HardwareProbe probe_perf_hardware(const std::string& root = "");

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PERF_PROBE_H_
