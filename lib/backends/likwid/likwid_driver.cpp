#include "backends/likwid/likwid_driver.h"
#include "machine/thread_team.h"

#include <filesystem>

#include "hwcounters/perf_plan.h"
#include "hwcounters/perf_probe.h"
#include "hwcounters/perf_spec.h"
#include "common/error.h"
#include "machine/topology.h"
#if defined(RPROF_HAVE_LIKWID)
#include "backends/likwid/likwid_api.h"
#include "runtime/handshake.h"
#endif

namespace rprof {
namespace {

constexpr LibraryEnv kLikwidEnv{RPROF_ENV_LIKWID_EVENTS, RPROF_ENV_LIKWID_GROUP_BASE};

// LIKWID's directory of groups for a table's CPU, if the installed likwid has one.
[[maybe_unused]] std::string likwid_arch(const std::string& table_id) {
  if (table_id == "skx") return "skylakeX";
  if (table_id == "skl") return "skylake";
  if (table_id == "icx") return "ICX";
  if (table_id == "icl") return "ICL";
  if (table_id == "spr") return "SPR";
  return table_id;  // zen3, zen4
}

DriverProbe probe_likwid() {
  DriverProbe p;
#if defined(RPROF_HAVE_LIKWID)
  std::string why;
  if (likwid_api(&why) == nullptr) {
    p.why = why;
    p.fix = "Install likwid (apt-get install likwid), or use --backend=perf.";
    return p;
  }
  const CpuTable& t = select_table(detect_topology("/").cpu);
  const std::string dir = "/usr/share/likwid/perfgroups/" + likwid_arch(t.id);
  if (t.id == "generic" || !std::filesystem::exists(dir)) {
    p.why = "unsupported CPU model: the installed likwid has no support for " +
            (t.id == "generic" ? std::string("this CPU") : t.name) + " (no " + dir + ")";
    p.fix = "Use a likwid release that supports this CPU, or --backend=perf.";
    return p;
  }
  const HardwareProbe hw = probe_perf_hardware();
  if (!hw.ok) {
    p.why = "likwid has nothing to count" + pmu_cause();
    p.fix = hw.fix;
    return p;
  }
  p.works = true;
  p.why = "likwid supports this CPU (" + dir + "); it needs MSR access (its access daemon, "
          "or root with the msr module) and pinned threads";
#else
  p.why = "not built into this rprof (likwid.h was not found at build time)";
  p.fix = "Install likwid (scripts/install-deps.sh --with-optional) and rebuild rprof.";
#endif
  return p;
}

LibraryGroups groups_from_events(const std::vector<std::vector<std::string>>& events) {
  LibraryGroups groups;
  for (const auto& names : events) {
    std::vector<LibraryEvent> g;
    for (const std::string& e : names) {
      if (e.find(':') == std::string::npos) {
        throw Error("--events with --backend=likwid: '" + e + "' needs a counter (EVENT:PMC0)",
                    2);
      }
      g.push_back({perf_key(e.substr(0, e.find(':'))), e});
    }
    groups.push_back(g);
  }
  return groups;
}

class LikwidDriver final : public HwDriver {
 public:
  const char* name() const override { return "likwid"; }
  const char* summary() const override {
    return "hardware counters through likwid (MSR access, pinned threads)";
  }
  int rank() const override { return 30; }
  DriverProbe probe() const override {
    DriverProbe p = probe_likwid();
    add_pmu_detail(p);
    return p;
  }

 protected:
  HwRunPlan plan_hw(const HwRunOptions& o) override {
    const DriverProbe probe = probe_likwid();
    if (!probe.works) throw Error("--backend=likwid: " + probe.why + ". " + probe.fix, 1);
    if (!o.events.empty()) {
      return library_plan("likwid", kLikwidEnv, groups_from_events(o.events),
                          {"events chosen with --events (likwid names)"});
    }
    const CpuTable& t = select_table(detect_topology("/").cpu);
    if (t.hybrid) {  // the table counts on performance cores only
      const std::string refused = hybrid_check("", allowed_cpus());
      if (!refused.empty()) throw Error("--backend=likwid: " + refused, 2);
    }
    std::vector<std::string> missing;
    const LibraryGroups groups = likwid_event_groups(t, &missing);
    std::vector<std::string> notes = table_notes(t, "likwid");
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      notes.push_back("likwid has no equivalent of " + list + ": not counted");
    }
    notes.push_back("likwid counts per CPU: the counts include everything that ran on the "
                    "threads' CPUs and are right only for pinned threads");
    return library_plan("likwid", kLikwidEnv, groups, notes);
  }
};

}  // namespace

LibraryGroups likwid_event_groups(const CpuTable& t, std::vector<std::string>* missing) {
  LibraryGroups groups;
  for (const auto& keys : t.groups) {
    std::vector<LibraryEvent> g;
    int pmc = 0;
    for (const std::string& k : keys) {
      const std::string& n = t.find(k)->likwid;
      if (n.empty()) {
        missing->push_back(k);
        continue;
      }
      if (const size_t at = n.find('@'); at != std::string::npos) {
        g.push_back({k, n.substr(0, at) + ":" + n.substr(at + 1)});  // fixed counter
      } else if (const size_t plus = n.find("+MERGE"); plus != std::string::npos) {
        pmc += pmc % 2;  // the pair starts on an even counter
        g.push_back({k, n.substr(0, plus) + ":PMC" + std::to_string(pmc++)});
        g.push_back({"_", "MERGE:PMC" + std::to_string(pmc++)});
      } else {
        g.push_back({k, n + ":PMC" + std::to_string(pmc++)});
      }
    }
    if (!g.empty()) groups.push_back(g);
  }
  return groups;
}

std::unique_ptr<BackendDriver> make_likwid_driver() { return std::make_unique<LikwidDriver>(); }

}  // namespace rprof
