// rprof doctor: which counting backends work on this machine, and for each
// one that does not, the precise reason and what to do. Every backend of the
// registry (run/registry.h) is probed by its own driver.
#include <iostream>
#include <nlohmann/json.hpp>

#include "hwcounters/perf_errors.h"
#include "hwcounters/perf_probe.h"
#include "run/registry.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

struct Status {
  std::string backend;
  int rank = 0;
  DriverProbe probe;
};

std::vector<Status> probe_all() {
  std::vector<Status> all;
  for (const auto& d : listed_drivers()) all.push_back({d->name(), d->rank(), d->probe()});
  return all;
}

// The working backend doctor recommends: the highest rank.
std::string recommended(const std::vector<Status>& all) {
  const Status* best = nullptr;
  for (const Status& s : all) {
    if (s.probe.works && (best == nullptr || s.rank > best->rank)) best = &s;
  }
  return best ? best->backend : "time";
}

void print_json(const std::vector<Status>& all, const PerfHost& host, const HardwareProbe& hw) {
  nlohmann::json j;
  j["cpu"] = hw.cpu;
  j["event_table"] = hw.table_id;
  j["perf_event_paranoid"] = host.paranoid;
  j["virtual_machine"] = host.hypervisor;
  j["core_pmu"] = host.cpu_pmu;
  j["privileged"] = host.privileged;
  for (const Status& s : all) {
    j["backends"].push_back({{"backend", s.backend},
                             {"works", s.probe.works},
                             {"why", s.probe.why},
                             {"fix", s.probe.works ? "" : s.probe.fix},
                             {"details", s.probe.details}});
  }
  j["recommended"] = recommended(all);
  std::cout << j.dump(2) << "\n";
}

void print_text(const std::vector<Status>& all, const PerfHost& host, const HardwareProbe& hw) {
  std::cout << "rprof doctor: which counting backends work here\n\n"
            << "CPU            " << hw.cpu << ", event table: " << hw.table_name << "\n"
            << "machine        "
            << (host.hypervisor ? "virtual machine (hypervisor flag)" : "bare metal or unflagged VM")
            << ", core PMU in sysfs: " << (host.cpu_pmu ? "yes" : "no") << "\n"
            << "permissions    kernel.perf_event_paranoid = " << host.paranoid
            << " (per-thread counting needs <= 2, uncore <= 0), "
            << (host.privileged ? "privileged (root or CAP_PERFMON)" : "unprivileged") << "\n\n";
  for (const Status& s : all) {
    const std::string pad(s.backend.size() < 8 ? 8 - s.backend.size() : 1, ' ');
    std::cout << s.backend << pad << (s.probe.works ? "works     " : "no        ")
              << s.probe.why << "\n";
    if (!s.probe.works && !s.probe.fix.empty()) {
      std::cout << std::string(18, ' ') << "what to do: " << s.probe.fix << "\n";
    }
    for (const std::string& d : s.probe.details) std::cout << std::string(18, ' ') << d << "\n";
  }
  std::cout << "\nBest here: --backend=" << recommended(all) << "\n";
}

}  // namespace

int cmd_doctor(const Args& args) {
  CLI::App app("Say which counting backends work on this machine, and why the others do not.",
               "rprof doctor");
  bool json = false;
  app.add_flag("--json", json, "print the findings as JSON");
  if (!parse_cli(app, args)) return 0;
  const std::vector<Status> all = probe_all();
  const PerfHost host = detect_perf_host();
  const HardwareProbe hw = probe_perf_hardware();
  if (json) {
    print_json(all, host, hw);
  } else {
    print_text(all, host, hw);
  }
  return 0;
}

}  // namespace rprof
