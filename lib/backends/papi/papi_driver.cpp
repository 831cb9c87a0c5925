#include "backends/papi/papi_driver.h"
#include "machine/thread_team.h"

#include "hwcounters/perf_plan.h"
#include "hwcounters/perf_probe.h"
#include "hwcounters/perf_spec.h"
#include "common/error.h"
#include "machine/topology.h"
#if defined(RPROF_HAVE_PAPI)
#include "backends/papi/papi_api.h"
#include "runtime/handshake.h"
#endif

namespace rprof {
namespace {

constexpr LibraryEnv kPapiEnv{RPROF_ENV_PAPI_EVENTS, RPROF_ENV_PAPI_GROUP_BASE};

#if defined(RPROF_HAVE_PAPI)
constexpr bool kPapiBuilt = true;
#else
constexpr bool kPapiBuilt = false;
#endif

DriverProbe probe_papi() {
  DriverProbe p;
#if defined(RPROF_HAVE_PAPI)
  std::string why;
  const PapiApi* api = papi_api(&why);
  if (api == nullptr) {
    p.why = why;
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
    p.why = "PAPI (" + std::to_string(hw) + " hardware counters reported) cannot count " +
            event + ": " + papi_error(*api, rc) + pmu_cause();
    p.fix = "Use --backend=sim to count by simulation, or --backend=time for timing only.";
  } else {
    p.works = true;
    p.why = "PAPI counts " + event + " (" + std::to_string(hw) + " hardware counters)";
  }
  api->cleanup_eventset(set);
  api->destroy_eventset(&set);
#else
  p.why = "not built into this rprof (PAPI's papi.h was not found at build time)";
  p.fix = "Install libpapi-dev (scripts/install-deps.sh --with-optional) and rebuild rprof.";
#endif
  return p;
}

class PapiDriver final : public HwDriver {
 public:
  const char* name() const override { return "papi"; }
  const char* summary() const override { return "hardware counters through PAPI"; }
  int rank() const override { return 40; }
  DriverProbe probe() const override {
    DriverProbe p = probe_papi();
    add_pmu_detail(p);
    return p;
  }

 protected:
  HwRunPlan plan_hw(const HwRunOptions& o) override {
    const DriverProbe probe = probe_papi();
    const std::string failure = "--backend=papi: " + probe.why + ". " + probe.fix;
    LibraryGroups groups;
    std::vector<std::string> notes;
    if (!o.events.empty()) {
      for (const auto& names : o.events) {
        std::vector<LibraryEvent> g;
        for (const std::string& e : names) g.push_back({perf_key(e), e});
        groups.push_back(g);
      }
      notes.push_back("events chosen with --events (PAPI names); raw counts, no FLOP or "
                      "traffic formulas");
      if (!kPapiBuilt) throw Error(failure, 1);
    } else {
      if (!probe.works) throw Error(failure, 1);
      const CpuTable& t = select_table(detect_topology("/").cpu);
      if (t.hybrid) {  // the table counts on performance cores only
        const std::string refused = hybrid_check("", allowed_cpus());
        if (!refused.empty()) throw Error("--backend=papi: " + refused, 2);
      }
      groups = papi_event_groups(t);
      notes = table_notes(t, "PAPI");
    }
    return library_plan("papi", kPapiEnv, groups, notes);
  }
};

}  // namespace

LibraryGroups papi_event_groups(const CpuTable& t) {
  LibraryGroups groups;
  for (const auto& keys : t.groups) {
    std::vector<LibraryEvent> g;
    for (const std::string& k : keys) {
      const TableEvent& e = *t.find(k);
      // A table whose libpfm4 names are another generation's (pfm_check_pmu:
      // Zen 5, Granite Rapids, Alder Lake) gives PAPI raw codes: the CPU's own
      // PMU in PAPI's libpfm4 may spell the events differently.
      std::string name = t.pfm_check_pmu.empty() ? e.pfm : "";
      if (e.type == 0) name = e.raw == 0 ? "PAPI_TOT_CYC" : "PAPI_TOT_INS";
      if (name.empty()) name = "perf_raw::r" + hex_digits(e.raw);  // libpfm4's raw PMU
      g.push_back({e.key, name});
    }
    groups.push_back(g);
  }
  return groups;
}

std::unique_ptr<BackendDriver> make_papi_driver() { return std::make_unique<PapiDriver>(); }

}  // namespace rprof
