#include "hwcounters/perf_errors.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rprof {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Effective capabilities from /proc/self/status (CapEff, hex).
bool has_perf_capability(const std::string& root) {
  std::istringstream in(slurp(root + "/proc/self/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
    constexpr unsigned kSysAdmin = 21, kPerfmon = 38;
    return ((caps >> kSysAdmin) & 1) != 0 || ((caps >> kPerfmon) & 1) != 0;
  }
  return false;
}

const char* kAlternatives =
    "Use --backend=sim to count by simulation, or --backend=time for timing only.";

}  // namespace

PerfHost detect_perf_host(const std::string& root) {
  PerfHost h;
  const std::string dev = root + "/sys/bus/event_source/devices/";
  h.cpu_pmu = exists(dev + "cpu") || exists(dev + "cpu_core");
  std::istringstream cpuinfo(slurp(root + "/proc/cpuinfo"));
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      h.hypervisor = (line + " ").find(" hypervisor ") != std::string::npos;
      break;
    }
  }
  const std::string p = slurp(root + "/proc/sys/kernel/perf_event_paranoid");
  if (!p.empty()) h.paranoid = std::atoi(p.c_str());
  h.privileged = (root.empty() && geteuid() == 0) || has_perf_capability(root);
  {
    std::istringstream status(slurp(root + "/proc/self/status"));
    while (std::getline(status, line)) {
      if (line.rfind("Seccomp:", 0) == 0) h.seccomp = std::atoi(line.c_str() + 8);
    }
  }
  const std::string cgroup = slurp(root + "/proc/1/cgroup");
  h.container = exists(root + "/.dockerenv") || exists(root + "/run/.containerenv") ||
                cgroup.find("docker") != std::string::npos ||
                cgroup.find("kubepods") != std::string::npos ||
                cgroup.find("containerd") != std::string::npos ||
                cgroup.find("lxc") != std::string::npos;
  if (DIR* d = opendir(dev.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("uncore_imc", 0) == 0 || n.rfind("amd_umc", 0) == 0 || n == "amd_df") {
        h.uncore_pmu = true;
      }
    }
    closedir(d);
  }
  return h;
}

std::vector<AccessFact> explain_access(const PerfHost& h) {
  std::vector<AccessFact> out;
  const char* meaning = h.paranoid <= -1  ? "no restrictions"
                        : h.paranoid == 0 ? "CPU-wide and memory-controller counting allowed"
                        : h.paranoid == 1 ? "per-process counting, user and kernel space"
                        : h.paranoid == 2
                            ? "per-process user-space counting only: enough for rprof's "
                              "per-thread counters, not for memory controllers (need 0)"
                            : "perf_event_open denied to unprivileged users (a distribution "
                              "patch: Debian, Ubuntu, Android)";
  std::string fix;
  if (!h.privileged && h.paranoid > 2) {
    fix = "sudo sysctl kernel.perf_event_paranoid=2 (or 0 for memory controllers; keep it in "
          "/etc/sysctl.d/), or give the process CAP_PERFMON";
  } else if (!h.privileged && h.paranoid > 0) {
    fix = "memory-controller (DRAM) counters need kernel.perf_event_paranoid=0 or "
          "CAP_PERFMON; without them DRAM traffic is the labelled stand-in";
  }
  out.push_back({"perf_event_paranoid",
                 std::to_string(h.paranoid) + ": " + meaning +
                     (h.privileged ? " (does not apply: this process is privileged)" : ""),
                 fix});
  out.push_back({"CAP_PERFMON",
                 h.privileged ? "held (root, CAP_PERFMON or CAP_SYS_ADMIN): paranoid limits "
                                "do not apply"
                              : "not held (Linux 5.8 and later: CAP_PERFMON lifts the paranoid "
                                "limits for one program, without root)",
                 ""});
  std::string c = h.container ? "inside a container" : "no container detected";
  c += h.seccomp == 2   ? "; a seccomp filter is active (Seccomp: 2)"
       : h.seccomp == 1 ? "; strict seccomp (Seccomp: 1)"
                        : "; no seccomp filter";
  out.push_back({"container", c,
                 h.seccomp >= 1
                     ? "a seccomp filter can deny perf_event_open: Docker's default profile "
                       "lets it through only for containers with CAP_PERFMON (or "
                       "CAP_SYS_ADMIN): docker run --cap-add PERFMON ..., or a profile that "
                       "allows perf_event_open (--security-opt seccomp=FILE)"
                     : ""});
  if (!h.hypervisor) {
    out.push_back({"virtual machine", "not flagged as one (bare metal, or an unflagged VM)", ""});
  } else if (!h.cpu_pmu) {
    out.push_back({"virtual machine",
                   "yes, and the hypervisor exposes no PMU: no hardware counters",
                   "enable the virtual PMU (KVM/QEMU: -cpu host,pmu=on; libvirt: <pmu "
                   "state='on'/>; VMware: \"Virtualize CPU performance counters\"), or use a "
                   "bare-metal instance; meanwhile --backend=sim counts exactly"});
  } else if (!h.uncore_pmu) {
    out.push_back({"virtual machine",
                   "yes, with a core PMU but no memory-controller PMU: FLOPs and cache "
                   "traffic are counted, DRAM traffic is the labelled stand-in",
                   "for measured DRAM traffic, a bare-metal host (VMs rarely get uncore "
                   "counters)"});
  } else {
    out.push_back({"virtual machine", "yes, with core and memory-controller PMUs", ""});
  }
  return out;
}

std::string errno_name(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case EBUSY: return "EBUSY";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENOSPC: return "ENOSPC";
    case E2BIG: return "E2BIG";
    case ENOSYS: return "ENOSYS";
    case EFAULT: return "EFAULT";
    default: return "errno " + std::to_string(err);
  }
}

PerfErrorText explain_perf_error(int err, PerfEventClass cls, const PerfHost& h) {
  const std::string tag = " (perf_event_open: " + errno_name(err) + ")";
  const bool hw = cls == PerfEventClass::kHardware;
  const bool uncore = cls == PerfEventClass::kUncore;
  // No core PMU at all: the kernel has nothing to count hardware events with.
  if (hw && !h.cpu_pmu && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)) {
    if (h.hypervisor) {
      return {"no hardware counters: this is a virtual machine without a PMU" + tag,
              kAlternatives};
    }
    return {"no hardware counters: the kernel has no PMU driver for this CPU "
            "(/sys/bus/event_source/devices/cpu is missing)" + tag,
            kAlternatives};
  }
  switch (err) {
    case EACCES:
    case EPERM: {
      const int needed = uncore ? 0 : 2;
      if (h.paranoid > needed && !h.privileged) {
        return {std::string(uncore ? "uncore counters not accessible"
                                   : "hardware counters not permitted") +
                    ": kernel.perf_event_paranoid is " + std::to_string(h.paranoid) +
                    ", " + (uncore ? "system-wide (uncore)" : "per-thread user-space") +
                    " counting needs " + std::to_string(needed) + " or less" + tag,
                "Run `sudo sysctl kernel.perf_event_paranoid=" + std::to_string(needed) +
                    "`, or give the profiled program CAP_PERFMON."};
      }
      if (h.seccomp == 2) {
        return {"counters not permitted: this process runs under a seccomp filter that "
                "denies perf_event_open" + std::string(h.container ? " (a container's)" : "") +
                    tag,
                "Docker's default seccomp profile allows perf_event_open only with "
                "CAP_PERFMON or CAP_SYS_ADMIN: docker run --cap-add PERFMON, or a profile "
                "that allows it. " + std::string(kAlternatives)};
      }
      return {"counters not permitted although perf_event_paranoid allows them" + tag,
              "A security module (SELinux, AppArmor, a container's seccomp filter) "
              "denies perf_event_open: allow it. " + std::string(kAlternatives)};
    }
    case ENOENT:
      if (hw) {
        return {"the CPU does not know this event" + tag,
                "rprof's event table does not match this CPU model: run `rprof doctor`, "
                "or pick events with --events."};
      }
      if (uncore) {
        return {"the memory-controller PMU has no such event" + tag,
                "DRAM traffic falls back to LLC misses (labelled approximate)."};
      }
      return {"this kernel does not know the software event" + tag,
              "Pick another event with --events."};
    case EOPNOTSUPP:
      if (hw && h.hypervisor) {
        return {"no hardware counters: the hypervisor gives this virtual machine no "
                "usable PMU" + tag,
                kAlternatives};
      }
      return {"the PMU cannot count this way" + tag,
              "The event or a flag (per-thread counting, exclude_kernel) is not supported "
              "by this PMU: run `rprof doctor`."};
    case EINVAL:
      return {"the kernel rejected the event encoding" + tag,
              "Config bits or flags do not fit this PMU (a table or --events entry does "
              "not match this CPU): run `rprof doctor`, or pick events with --events."};
    case ENODEV:
      return {"the event's PMU does not exist here" + tag, "Run `rprof doctor`."};
    case EBUSY:
      return {"the counters are in use by another tool" + tag,
              "Stop the other perf session or monitoring daemon, or free the NMI "
              "watchdog's counter: `sudo sysctl kernel.nmi_watchdog=0`."};
    case EMFILE:
    case ENFILE:
      return {"out of file descriptors" + tag,
              "Every thread needs one per event: raise the limit (ulimit -n)."};
    case ENOSPC:
    case E2BIG:
      return {"too many events in one group" + tag,
              "The PMU has fewer counters: use fewer --events per run."};
    case ENOSYS:
      return {"this kernel has no perf_event_open (CONFIG_PERF_EVENTS is off)" + tag,
              kAlternatives};
    default:
      return {std::string("perf_event_open failed: ") + std::strerror(err) + tag,
              "Run `rprof doctor`."};
  }
}

std::string perf_open_error(int err, PerfEventClass cls, const PerfHost& host) {
  return explain_perf_error(err, cls, host).line();
}

}  // namespace rprof
