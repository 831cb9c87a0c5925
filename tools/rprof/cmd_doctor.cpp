// rprof doctor: which counting backends work on this machine, and for each
// one that does not, the precise reason and what to do. Every backend of the
// registry (run/registry.h) is probed by its own driver.
#include <iostream>
#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>

#include "hwcounters/event_tables.h"
#include "machine/thread_team.h"
#include "hwcounters/perf_errors.h"
#include "hwcounters/perf_plan.h"
#include "hwcounters/perf_probe.h"
#include "machine/topology.h"
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

// The event table for the CPU that modelling reads (a recorded machine under
// RPROF_SYSROOT, else this one): what --backend=perf would count there.
struct TableView {
  std::string root;      // system_root()
  std::string cpu;       // "AMD EPYC 9755 ... (family 26, model 2)"
  const CpuTable* table = nullptr;
  std::string hybrid;    // why a run from this shell would be refused ("" = not)
};

TableView table_view() {
  TableView v;
  v.root = system_root();
  const CpuId cpu = detect_topology(v.root).cpu;
  v.cpu = (cpu.model_name.empty() ? cpu.vendor : cpu.model_name) + " (family " +
          std::to_string(cpu.family) + ", model " + std::to_string(cpu.model) + ")";
  v.table = &select_table(cpu);
  if (v.table->hybrid) {
    v.hybrid = hybrid_check(v.root == "/" ? "" : v.root, allowed_cpus());
  }
  return v;
}

std::string encoding(const TableEvent& e) {
  std::ostringstream o;
  o << (e.type == 0 ? "generic 0x" : "raw 0x") << std::hex << e.raw;
  return o.str();
}

std::vector<std::string> feeds(const TableEvent& e) {
  std::vector<std::string> out;
  for (const EventRole& r : e.roles) out.push_back(describe_role(r));
  return out;
}

void print_table_text(const TableView& v) {
  const CpuTable& t = *v.table;
  std::cout << "\nEvent table for " << v.cpu
            << (v.root == "/" ? "" : " (recorded machine " + v.root + ")") << ":\n  " << t.id
            << ": " << t.name << "\n";
  if (!t.pfm_pmu.empty()) {
    std::cout << "  libpfm4 PMU " << t.pfm_pmu
              << (t.pfm_check_pmu.empty() ? "" : " (names checked with " + t.pfm_check_pmu + ")")
              << (t.perf_arch.empty() ? "" : ", Linux perf pmu-events arch/x86/" + t.perf_arch)
              << "\n";
  }
  for (size_t g = 0; g < t.groups.size(); ++g) {
    std::cout << "  run " << g + 1 << " of " << t.groups.size() << ":\n";
    for (const std::string& k : t.groups[g]) {
      const TableEvent& e = *t.find(k);
      std::cout << "    " << std::left << std::setw(40) << e.key << " " << std::setw(16)
                << encoding(e);
      const std::vector<std::string> f = feeds(e);
      for (size_t i = 0; i < f.size(); ++i) {
        std::cout << (i ? "\n" + std::string(62, ' ') : "") << f[i];
      }
      std::cout << "\n" << std::string(6, ' ') << "source: " << e.source;
      if (!e.pfm.empty()) std::cout << "; libpfm4 " << e.pfm;
      if (!e.perf_json.empty()) std::cout << "; perf " << e.perf_json;
      std::cout << "\n";
    }
  }
  std::cout << "  conventions: FMA = 2 FLOPs; bytes = 64 x lines at each boundary (L2 = "
               "L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM); per thread, user space only\n";
  for (const std::string& n : t.notes) std::cout << "  note: " << n << "\n";
  if (!v.hybrid.empty()) std::cout << "  refused from this shell: " << v.hybrid << "\n";
}

nlohmann::json table_json(const TableView& v) {
  const CpuTable& t = *v.table;
  nlohmann::json j;
  j["cpu"] = v.cpu;
  j["root"] = v.root;
  j["id"] = t.id;
  j["name"] = t.name;
  j["libpfm4_pmu"] = t.pfm_pmu;
  j["perf_arch"] = t.perf_arch;
  j["hybrid"] = t.hybrid;
  j["hybrid_refusal"] = v.hybrid;
  j["notes"] = t.notes;
  j["runs"] = nlohmann::json::array();
  for (const auto& keys : t.groups) {
    nlohmann::json run = nlohmann::json::array();
    for (const std::string& k : keys) {
      const TableEvent& e = *t.find(k);
      run.push_back({{"event", e.key},
                     {"perf_type", e.type},
                     {"config", e.raw},
                     {"encoding", encoding(e)},
                     {"libpfm4", e.pfm},
                     {"perf_json", e.perf_json},
                     {"source", e.source},
                     {"feeds", feeds(e)}});
    }
    j["runs"].push_back(run);
  }
  return j;
}

void print_json(const std::vector<Status>& all, const PerfHost& host, const HardwareProbe& hw) {
  nlohmann::json j;
  j["cpu"] = hw.cpu;
  j["event_table"] = hw.table_id;
  j["perf_event_paranoid"] = host.paranoid;
  j["virtual_machine"] = host.hypervisor;
  j["core_pmu"] = host.cpu_pmu;
  j["privileged"] = host.privileged;
  j["seccomp"] = host.seccomp;
  j["container"] = host.container;
  j["uncore_pmu"] = host.uncore_pmu;
  for (const AccessFact& f : explain_access(host)) {
    j["access"].push_back({{"topic", f.topic}, {"state", f.state}, {"fix", f.fix}});
  }
  for (const Status& s : all) {
    j["backends"].push_back({{"backend", s.backend},
                             {"works", s.probe.works},
                             {"why", s.probe.why},
                             {"fix", s.probe.works ? "" : s.probe.fix},
                             {"details", s.probe.details}});
  }
  j["recommended"] = recommended(all);
  j["table"] = table_json(table_view());
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
  std::cout << "access to counters, explained:\n";
  for (const AccessFact& f : explain_access(host)) {
    std::cout << "  " << std::left << std::setw(21) << f.topic << f.state << "\n";
    if (!f.fix.empty()) std::cout << std::string(23, ' ') << "fix: " << f.fix << "\n";
  }
  std::cout << "\n";
  for (const Status& s : all) {
    const std::string pad(s.backend.size() < 8 ? 8 - s.backend.size() : 1, ' ');
    std::cout << s.backend << pad << (s.probe.works ? "works     " : "no        ")
              << s.probe.why << "\n";
    if (!s.probe.works && !s.probe.fix.empty()) {
      std::cout << std::string(18, ' ') << "what to do: " << s.probe.fix << "\n";
    }
    for (const std::string& d : s.probe.details) std::cout << std::string(18, ' ') << d << "\n";
  }
  print_table_text(table_view());
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
