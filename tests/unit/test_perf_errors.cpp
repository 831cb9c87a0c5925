// perf_event_open errno -> one-line message with what to do, for each errno
// and host situation; host facts read from a scripted /proc and /sys.
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "hwcounters/perf_errors.h"
#include "hwcounters/perf_probe.h"

using namespace rprof;
namespace fs = std::filesystem;

namespace {

PerfHost host(bool pmu, bool vm, int paranoid, bool privileged) {
  PerfHost h;
  h.cpu_pmu = pmu;
  h.hypervisor = vm;
  h.paranoid = paranoid;
  h.privileged = privileged;
  return h;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("ENOENT in a VM without PMU: the message of STYLE.md") {
  CHECK(perf_open_error(ENOENT, PerfEventClass::kHardware, host(false, true, 2, false)) ==
        "no hardware counters: this is a virtual machine without a PMU (perf_event_open: "
        "ENOENT). Use --backend=sim to count by simulation, or --backend=time for timing only.");
  // Some hypervisors answer EOPNOTSUPP or ENODEV instead: same diagnosis.
  for (int err : {EOPNOTSUPP, ENODEV}) {
    CHECK(explain_perf_error(err, PerfEventClass::kHardware, host(false, true, 2, false)).what ==
          "no hardware counters: this is a virtual machine without a PMU (perf_event_open: " +
              errno_name(err) + ")");
  }
}

TEST_CASE("ENOENT: no PMU driver on bare metal -- unknown event with a PMU -- software -- uncore") {
  CHECK(perf_open_error(ENOENT, PerfEventClass::kHardware, host(false, false, 2, false))
            .find("the kernel has no PMU driver for this CPU") != std::string::npos);
  const std::string unknown = perf_open_error(ENOENT, PerfEventClass::kHardware, host(true, false, 2, false));
  CHECK(unknown.find("the CPU does not know this event (perf_event_open: ENOENT)") == 0);
  CHECK(unknown.find("rprof doctor") != std::string::npos);
  CHECK(perf_open_error(ENOENT, PerfEventClass::kSoftware, host(true, false, 2, false))
            .find("software event") != std::string::npos);
  CHECK(perf_open_error(ENOENT, PerfEventClass::kUncore, host(true, false, 2, false))
            .find("falls back to LLC misses") != std::string::npos);
}

TEST_CASE("EACCES/EPERM: paranoid too high says the value, the limit and the sysctl") {
  const std::string m = perf_open_error(EACCES, PerfEventClass::kHardware, host(true, false, 3, false));
  CHECK(m == "hardware counters not permitted: kernel.perf_event_paranoid is 3, per-thread "
             "user-space counting needs 2 or less (perf_event_open: EACCES). Run `sudo sysctl "
             "kernel.perf_event_paranoid=2`, or give the profiled program CAP_PERFMON.");
  const std::string u = perf_open_error(EPERM, PerfEventClass::kUncore, host(true, false, 2, false));
  CHECK(u.find("uncore counters not accessible: kernel.perf_event_paranoid is 2, system-wide "
               "(uncore) counting needs 0 or less (perf_event_open: EPERM)") == 0);
  CHECK(u.find("kernel.perf_event_paranoid=0") != std::string::npos);
  // Allowed by paranoid (or privileged) and still refused: a security module.
  for (const PerfHost& h : {host(true, false, 1, false), host(true, false, 3, true)}) {
    CHECK(perf_open_error(EACCES, PerfEventClass::kHardware, h).find("security module") !=
          std::string::npos);
  }
}

TEST_CASE("EOPNOTSUPP, EINVAL, EBUSY, EMFILE, ENOSPC each say what to do") {
  const PerfHost bare = host(true, false, 2, false);
  CHECK(perf_open_error(EOPNOTSUPP, PerfEventClass::kHardware, host(true, true, 2, false))
            .find("the hypervisor gives this virtual machine no usable PMU") != std::string::npos);
  CHECK(perf_open_error(EOPNOTSUPP, PerfEventClass::kHardware, bare)
            .find("the PMU cannot count this way (perf_event_open: EOPNOTSUPP)") == 0);
  CHECK(perf_open_error(EINVAL, PerfEventClass::kHardware, bare)
            .find("the kernel rejected the event encoding (perf_event_open: EINVAL). ") == 0);
  CHECK(perf_open_error(EBUSY, PerfEventClass::kHardware, bare).find("nmi_watchdog") != std::string::npos);
  CHECK(perf_open_error(EMFILE, PerfEventClass::kHardware, bare).find("ulimit -n") != std::string::npos);
  CHECK(perf_open_error(ENOSPC, PerfEventClass::kHardware, bare).find("fewer --events") != std::string::npos);
  CHECK(errno_name(12345) == "errno 12345");
}

TEST_CASE("host facts from a scripted /proc and /sys") {
  const fs::path root = fs::path(RPROF_TEST_BIN_DIR) / ("fakehost-" + std::to_string(getpid()));
  fs::remove_all(root);
  write(root / "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 hypervisor avx\n\n");
  write(root / "proc/sys/kernel/perf_event_paranoid", "3\n");
  write(root / "proc/self/status", "Name:\tx\nCapEff:\t0000000000000000\n");
  fs::create_directories(root / "sys/bus/event_source/devices/software");
  PerfHost h = detect_perf_host(root.string());
  CHECK_FALSE(h.cpu_pmu);
  CHECK(h.hypervisor);
  CHECK(h.paranoid == 3);
  CHECK_FALSE(h.privileged);
  fs::create_directories(root / "sys/bus/event_source/devices/cpu");
  write(root / "proc/self/status", "CapEff:\t0000004000000000\n");  // CAP_PERFMON (38)
  h = detect_perf_host(root.string());
  CHECK(h.cpu_pmu);
  CHECK(h.privileged);
  fs::remove_all(root);
}

TEST_CASE("the probe on this machine agrees with the host's facts") {
  const PerfHost h = detect_perf_host();
  const HardwareProbe p = probe_perf_hardware();
  INFO(p.line());
  if (!h.cpu_pmu) {
    CHECK_FALSE(p.ok);
    CHECK(p.reason.find("no hardware counters") == 0);
    CHECK(p.reason.find("(perf_event_open: " + errno_name(p.err) + ")") != std::string::npos);
    if (h.hypervisor && p.err == ENOENT) {
      CHECK(p.line() == perf_open_error(ENOENT, PerfEventClass::kHardware, h));
    }
  }
  CHECK(p.software_events);  // kernel software events need no PMU
  CHECK_FALSE(p.table_id.empty());
}

TEST_CASE("access explained: paranoid levels, CAP_PERFMON, seccomp, VMs with and without PMUs") {
  PerfHost h;
  h.paranoid = 3;
  auto facts = explain_access(h);
  REQUIRE(facts.size() == 4);
  CHECK(facts[0].topic == "perf_event_paranoid");
  CHECK(facts[0].state.find("3: perf_event_open denied to unprivileged users") == 0);
  CHECK(facts[0].fix.find("sudo sysctl kernel.perf_event_paranoid=2") == 0);
  h.paranoid = 2;
  CHECK(explain_access(h)[0].fix.find("need kernel.perf_event_paranoid=0") != std::string::npos);
  h.privileged = true;
  facts = explain_access(h);
  CHECK(facts[0].fix.empty());
  CHECK(facts[1].state.find("held") == 0);
  h.seccomp = 2;
  h.container = true;
  facts = explain_access(h);
  CHECK(facts[2].state == "inside a container; a seccomp filter is active (Seccomp: 2)");
  CHECK(facts[2].fix.find("docker run --cap-add PERFMON") != std::string::npos);
  // EPERM under the filter names the filter, not paranoid.
  const PerfErrorText t = explain_perf_error(EPERM, PerfEventClass::kHardware, h);
  CHECK(t.what == "counters not permitted: this process runs under a seccomp filter that denies "
                  "perf_event_open (a container's) (perf_event_open: EPERM)");
  h.hypervisor = true;
  CHECK(explain_access(h)[3].fix.find("-cpu host,pmu=on") != std::string::npos);
  h.cpu_pmu = true;
  CHECK(explain_access(h)[3].state.find("core PMU but no memory-controller PMU") !=
        std::string::npos);
  h.uncore_pmu = true;
  CHECK(explain_access(h)[3].fix.empty());
}
