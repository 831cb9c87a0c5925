#include "tools/rprof/hw_library_plans.h"

#include <filesystem>

#include "backends/perf/event_tables.h"
#include "backends/perf/perf_probe.h"
#include "backends/perf/perf_spec.h"
#include "common/error.h"
#include "machine/topology.h"
#include "runtime/handshake.h"
#if defined(RPROF_HAVE_PAPI)
#include "backends/papi/papi_api.h"
#endif
#if defined(RPROF_HAVE_LIKWID)
#include "backends/likwid/likwid_api.h"
#endif

namespace rprof {
namespace {

using Named = LibraryEvent;
using Groups = LibraryGroups;

std::string hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return s;
}

// When the library fails, the perf probe usually knows the real cause.
[[maybe_unused]] std::string pmu_cause() {
  const HardwareProbe p = probe_perf_hardware();
  return p.ok ? "" : ": " + p.reason;
}

HwRunPlan make_plan(const std::string& backend, const Groups& groups,
                    std::vector<std::string> notes) {
  HwRunPlan plan;
  plan.backend = backend;
  plan.notes = std::move(notes);
  const bool papi = backend == "papi";
  int id = 0;
  for (const auto& g : groups) {
    std::string list, label;
    for (const Named& n : g) {
      list += (list.empty() ? "" : ",") + n.key + "=" + n.name;
      if (n.key != "_") label += (label.empty() ? "" : ", ") + n.key;
    }
    plan.pass_env.push_back(
        {{RPROF_ENV_BACKEND, backend},
         {papi ? RPROF_ENV_PAPI_EVENTS : RPROF_ENV_LIKWID_EVENTS, list},
         {papi ? RPROF_ENV_PAPI_GROUP_BASE : RPROF_ENV_LIKWID_GROUP_BASE, std::to_string(id++)}});
    plan.pass_labels.push_back(label);
  }
  if (groups.size() > 1) {
    plan.notes.push_back("the program ran " + std::to_string(groups.size()) +
                         " times, once per event group, and the runs were merged per region "
                         "(times are the first run's)");
  }
  return plan;
}

std::vector<std::string> table_notes(const CpuTable& t, const std::string& backend) {
  std::vector<std::string> notes = {"hardware counters through " + backend + ": " + t.name +
                                    " event table (FMA = 2 FLOPs; bytes = 64 x lines)"};
  notes.insert(notes.end(), t.notes.begin(), t.notes.end());
  if (t.id != "generic") {
    notes.push_back("DRAM traffic is an approximation from core events (the " + backend +
                    " backend reads no memory-controller counters)");
  }
  return notes;
}

// LIKWID's directory of groups for a table's CPU, if the installed likwid has one.
[[maybe_unused]] std::string likwid_arch(const std::string& table_id) {
  if (table_id == "skx") return "skylakeX";
  if (table_id == "skl") return "skylake";
  if (table_id == "icx") return "ICX";
  if (table_id == "icl") return "ICL";
  if (table_id == "spr") return "SPR";
  return table_id;  // zen3, zen4
}

}  // namespace

LibraryGroups papi_event_groups(const CpuTable& t) {
  LibraryGroups groups;
  for (const auto& keys : t.groups) {
    std::vector<LibraryEvent> g;
    for (const std::string& k : keys) {
      const TableEvent& e = *t.find(k);
      std::string name = e.pfm;
      if (e.type == 0) name = e.raw == 0 ? "PAPI_TOT_CYC" : "PAPI_TOT_INS";
      if (name.empty()) name = "perf_raw::r" + hex(e.raw);  // libpfm4's raw PMU
      g.push_back({e.key, name});
    }
    groups.push_back(g);
  }
  return groups;
}

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

LibraryProbe probe_papi() {
  LibraryProbe p;
#if defined(RPROF_HAVE_PAPI)
  p.built = true;
  std::string why;
  const PapiApi* api = papi_api(&why);
  if (api == nullptr) {
    p.reason = why;
    p.fix = "Install PAPI (apt-get install libpapi-dev), or use --backend=perf.";
    return p;
  }
  const CpuTable& t = select_table(detect_topology("/").cpu);
  const int hw = api->num_cmp_hwctrs(0);
  int set = -1;
  int rc = api->create_eventset(&set);
  const std::string event = t.id == "generic" ? "PAPI_TOT_CYC" : "PAPI_TOT_INS";
  if (rc == 0) rc = api->add_named_event(set, event.c_str());
  if (rc != 0) {
    p.reason = "PAPI (" + std::to_string(hw) + " hardware counters reported) cannot count " +
               event + ": " + papi_error(*api, rc) + pmu_cause();
    p.fix = "Use --backend=sim to count by simulation, or --backend=time for timing only.";
  } else {
    p.ok = true;
    p.reason = "PAPI counts " + event + " (" + std::to_string(hw) + " hardware counters)";
  }
  api->cleanup_eventset(set);
  api->destroy_eventset(&set);
#else
  p.reason = "not built into this rprof (PAPI's papi.h was not found at build time)";
  p.fix = "Install libpapi-dev (scripts/install-deps.sh --with-optional) and rebuild rprof.";
#endif
  return p;
}

LibraryProbe probe_likwid() {
  LibraryProbe p;
#if defined(RPROF_HAVE_LIKWID)
  p.built = true;
  std::string why;
  if (likwid_api(&why) == nullptr) {
    p.reason = why;
    p.fix = "Install likwid (apt-get install likwid), or use --backend=perf.";
    return p;
  }
  const CpuTable& t = select_table(detect_topology("/").cpu);
  const std::string dir = "/usr/share/likwid/perfgroups/" + likwid_arch(t.id);
  if (t.id == "generic" || !std::filesystem::exists(dir)) {
    p.reason = "unsupported CPU model: the installed likwid has no support for " +
               (t.id == "generic" ? std::string("this CPU") : t.name) + " (no " + dir + ")";
    p.fix = "Use a likwid release that supports this CPU, or --backend=perf.";
    return p;
  }
  const HardwareProbe hw = probe_perf_hardware();
  if (!hw.ok) {
    p.reason = "likwid has nothing to count" + pmu_cause();
    p.fix = hw.fix;
    return p;
  }
  p.ok = true;
  p.reason = "likwid supports this CPU (" + dir + "); it needs MSR access (its access daemon, "
             "or root with the msr module) and pinned threads";
#else
  p.reason = "not built into this rprof (likwid.h was not found at build time)";
  p.fix = "Install likwid (scripts/install-deps.sh --with-optional) and rebuild rprof.";
#endif
  return p;
}

HwRunPlan plan_papi(const HwRunOptions& o) {
  const LibraryProbe probe = probe_papi();
  Groups groups;
  std::vector<std::string> notes;
  if (!o.events.empty()) {
    for (const auto& names : o.events) {
      std::vector<Named> g;
      for (const std::string& e : names) g.push_back({perf_key(e), e});
      groups.push_back(g);
    }
    notes.push_back("events chosen with --events (PAPI names); raw counts, no FLOP or traffic "
                    "formulas");
    if (!probe.built) throw Error("--backend=papi: " + probe.reason + ". " + probe.fix, 1);
  } else {
    if (!probe.ok) throw Error("--backend=papi: " + probe.reason + ". " + probe.fix, 1);
    const CpuTable& t = select_table(detect_topology("/").cpu);
    groups = papi_event_groups(t);
    notes = table_notes(t, "PAPI");
  }
  return make_plan("papi", groups, notes);
}

HwRunPlan plan_likwid(const HwRunOptions& o) {
  const LibraryProbe probe = probe_likwid();
  if (!probe.ok) throw Error("--backend=likwid: " + probe.reason + ". " + probe.fix, 1);
  Groups groups;
  std::vector<std::string> notes;
  if (!o.events.empty()) {
    for (const auto& names : o.events) {
      std::vector<Named> g;
      for (const std::string& e : names) {
        if (e.find(':') == std::string::npos) {
          throw Error("--events with --backend=likwid: '" + e + "' needs a counter (EVENT:PMC0)",
                      2);
        }
        g.push_back({perf_key(e.substr(0, e.find(':'))), e});
      }
      groups.push_back(g);
    }
    notes.push_back("events chosen with --events (likwid names)");
  } else {
    const CpuTable& t = select_table(detect_topology("/").cpu);
    std::vector<std::string> missing;
    groups = likwid_event_groups(t, &missing);
    notes = table_notes(t, "likwid");
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      notes.push_back("likwid has no equivalent of " + list + ": not counted");
    }
    notes.push_back("likwid counts per CPU: the counts include everything that ran on the "
                    "threads' CPUs and are right only for pinned threads");
  }
  return make_plan("likwid", groups, notes);
}

}  // namespace rprof
