// Why perf_event_open failed, for people: one line saying what happened, why,
// and what to do. Shared by the runtime (it says why once when counters are
// off) and the tool (--backend=perf, rprof doctor).
#ifndef RPROF_HWCOUNTERS_PERF_ERRORS_H_
#define RPROF_HWCOUNTERS_PERF_ERRORS_H_

#include <string>
#include <vector>

namespace rprof {

// What the failed event was: the errno means different things for each.
enum class PerfEventClass {
  kHardware,  // the core PMU: generic hardware, cache and raw events
  kSoftware,  // kernel software events (page-faults, task-clock)
  kUncore,    // system-wide memory-controller or data-fabric counters
};

// Facts about this host that decide the message.
struct PerfHost {
  bool cpu_pmu = false;     // /sys/bus/event_source/devices/cpu (or cpu_core) exists
  bool hypervisor = false;  // /proc/cpuinfo flags contain "hypervisor"
  int paranoid = 2;         // /proc/sys/kernel/perf_event_paranoid (-1..4)
  bool privileged = false;  // euid 0 or CAP_PERFMON / CAP_SYS_ADMIN effective
  int seccomp = 0;          // /proc/self/status Seccomp: 0 none, 1 strict, 2 filter
  bool container = false;   // /.dockerenv, /run/.containerenv, or a container cgroup
  bool uncore_pmu = false;  // a memory-controller PMU in sysfs (uncore_imc_*, amd_umc_*, amd_df)
};

// Reads the facts from /proc and /sys under `root` ("" = the real ones).
PerfHost detect_perf_host(const std::string& root = "");

// What decides access to the counters on this host, one topic at a time
// (perf_event_paranoid, CAP_PERFMON, container and seccomp, virtual
// machine), each with its state here and, where it stops rprof, the fix.
struct AccessFact {
  std::string topic;  // "perf_event_paranoid", "CAP_PERFMON", "container", "virtual machine"
  std::string state;  // what it is here and what that means
  std::string fix;    // "" when it does not stop hardware counting
};
std::vector<AccessFact> explain_access(const PerfHost& host);

// "ENOENT", "EACCES", ... or "errno N".
std::string errno_name(int err);

// What happened (with the errno) and what to do, for one failure.
struct PerfErrorText {
  std::string what;  // "no hardware counters: this is a virtual machine without a PMU (perf_event_open: ENOENT)"
  std::string fix;   // "Use --backend=sim to count by simulation, or --backend=time for timing only."
  std::string line() const { return what + ". " + fix; }
};

// The explanation of perf_event_open failing with `err`.
PerfErrorText explain_perf_error(int err, PerfEventClass cls, const PerfHost& host);
// The same as one line (no "rprof: " prefix). Example (ENOENT, a VM without PMU):
//   no hardware counters: this is a virtual machine without a PMU
//   (perf_event_open: ENOENT). Use --backend=sim to count by simulation, or
//   --backend=time for timing only.
std::string perf_open_error(int err, PerfEventClass cls, const PerfHost& host);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PERF_ERRORS_H_
