// rprof doctor: which counting backends work on this machine, and for each
// one that does not, the precise reason and what to do.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backends/perf/perf_errors.h"
#include "backends/perf/perf_probe.h"
#include "common/error.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/hw_library_plans.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

struct Status {
  std::string backend;
  bool works = false;
  std::string why{};  // what works, or why not
  std::string fix{};  // what to do ("" when it works)
  std::vector<std::string> details{};
};

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    const size_t end = std::min(p.find(':', start), p.size());
    const fs::path candidate = fs::path(p.substr(start, end - start)) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

// The sim backend needs Valgrind and rprof's Valgrind tool (rprof-sim),
// found next to this rprof (<bin>/../libexec/rprof/valgrind) or in
// RPROF_SIM_LIBDIR.
Status probe_sim() {
  Status s{"sim"};
  const std::string valgrind = find_on_path("valgrind");
  if (valgrind.empty()) {
    s.why = "valgrind is not installed";
    s.fix = "apt-get install valgrind";
    return s;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv(RPROF_ENV_SIM_LIBDIR); env && *env) dirs.emplace_back(env);
  if (!ec) {
    dirs.push_back(self.parent_path() / "../libexec/rprof/valgrind");
    dirs.push_back(self.parent_path() / "../lib/rprof/valgrind");
  }
  for (const fs::path& d : dirs) {
    if (fs::exists(d / "rprof-sim-amd64-linux", ec)) {
      s.works = true;
      s.why = "counts by simulation under Valgrind (" + valgrind + ", tool in " +
              d.lexically_normal().string() + "): FLOPs by precision and width, bytes at "
              "every boundary from a cache model; slow (10-100x)";
      return s;
    }
  }
  std::string looked;
  for (const fs::path& d : dirs) looked += (looked.empty() ? "" : ", ") + d.lexically_normal().string();
  s.why = "valgrind is installed (" + valgrind + ") but this rprof has no rprof-sim tool (looked in " +
          (looked.empty() ? std::string("nothing") : looked) + ")";
  s.fix = "build rprof with its sim backend, or set " RPROF_ENV_SIM_LIBDIR;
  return s;
}

Status probe_perf(const HardwareProbe& p) {
  Status s{"perf"};
  s.works = p.ok && p.table_works;
  if (!p.ok || !p.table_works) {
    s.why = p.reason;
    s.fix = p.fix;
  } else {
    s.why = "hardware counters through perf_event with the " + p.table_name + " table";
  }
  if (p.ok && p.table_id == "generic") {
    s.details.push_back("unsupported CPU model " + p.cpu +
                        ": no event table, cycles and instructions only");
  }
  if (p.ok) {
    s.details.push_back(p.uncore ? "DRAM traffic from memory-controller counters"
                                 : "uncore not accessible, DRAM traffic approximated from core "
                                   "events: " + p.uncore_reason);
  }
  s.details.push_back(p.software_events
                          ? "kernel software events work: rprof --backend=perf --events "
                            "page-faults,task-clock ./app"
                          : "kernel software events do not open either");
  return s;
}

Status from_library(const std::string& name, const LibraryProbe& p) {
  Status s{name};
  s.works = p.ok;
  s.why = p.reason;
  s.fix = p.ok ? "" : p.fix;
  return s;
}

}  // namespace

int cmd_doctor(const Args& args) {
  CLI::App app("Say which counting backends work on this machine, and why the others do not.",
               "rprof doctor");
  bool json = false;
  app.add_flag("--json", json, "print the findings as JSON");
  if (!parse_cli(app, args)) return 0;

  const PerfHost host = detect_perf_host();
  const HardwareProbe hw = probe_perf_hardware();
  std::vector<Status> all;
  all.push_back({"time", true, "timing only (monotonic clock), always available", "", {}});
  all.push_back(probe_sim());
  all.push_back(probe_perf(hw));
  all.push_back(from_library("papi", probe_papi()));
  all.push_back(from_library("likwid", probe_likwid()));
  for (Status& s : all) {  // the libraries fail for the PMU's reason too: say it once more
    if ((s.backend == "papi" || s.backend == "likwid") && !s.works && !hw.ok &&
        s.why.rfind("not built", 0) != 0 && s.why.find(hw.reason) == std::string::npos) {
      s.details.push_back("and: " + hw.reason);
    }
  }
  std::string recommended = "time";
  for (const char* b : {"perf", "papi", "likwid", "sim"}) {
    for (const Status& s : all) {
      if (s.backend == b && s.works && recommended == "time") recommended = b;
    }
  }

  if (json) {
    nlohmann::json j;
    j["cpu"] = hw.cpu;
    j["event_table"] = hw.table_id;
    j["perf_event_paranoid"] = host.paranoid;
    j["virtual_machine"] = host.hypervisor;
    j["core_pmu"] = host.cpu_pmu;
    j["privileged"] = host.privileged;
    for (const Status& s : all) {
      j["backends"].push_back({{"backend", s.backend}, {"works", s.works}, {"why", s.why},
                               {"fix", s.fix}, {"details", s.details}});
    }
    j["recommended"] = recommended;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "rprof doctor: which counting backends work here\n\n"
            << "CPU            " << hw.cpu << ", event table: " << hw.table_name << "\n"
            << "machine        " << (host.hypervisor ? "virtual machine (hypervisor flag)" : "bare metal or unflagged VM")
            << ", core PMU in sysfs: " << (host.cpu_pmu ? "yes" : "no") << "\n"
            << "permissions    kernel.perf_event_paranoid = " << host.paranoid
            << " (per-thread counting needs <= 2, uncore <= 0), "
            << (host.privileged ? "privileged (root or CAP_PERFMON)" : "unprivileged") << "\n\n";
  for (const Status& s : all) {
    std::cout << s.backend << std::string(8 - s.backend.size(), ' ')
              << (s.works ? "works     " : "no        ") << s.why << "\n";
    if (!s.fix.empty()) std::cout << std::string(18, ' ') << "what to do: " << s.fix << "\n";
    for (const std::string& d : s.details) std::cout << std::string(18, ' ') << d << "\n";
  }
  std::cout << "\nBest here: --backend=" << recommended << "\n";
  return 0;
}

}  // namespace rprof
