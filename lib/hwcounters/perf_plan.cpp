#include "hwcounters/perf_plan.h"

#include "machine/thread_team.h"

#include <linux/perf_event.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include <cerrno>
#include <cstdlib>

#include "runtime/backend.h"
#include "hwcounters/perf_counters.h"
#include "hwcounters/perf_errors.h"
#include "hwcounters/pfm_encoder.h"
#include "hwcounters/uncore.h"
#include "common/error.h"
#include "common/fs.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

struct Generic {
  const char* name;
  uint32_t type;
  uint64_t config;
};

// perf's own spellings for the kernel's generic events.
const Generic kGeneric[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

// Opens the uncore group's first event to see whether this process may.
std::string uncore_problem(const PerfGroupSpec& g, const std::string& root) {
  const int fd = perf_event_open_fd(g.events.front(), -1, true, false);
  if (fd >= 0) {
    close(fd);
    return "";
  }
  return explain_perf_error(errno, PerfEventClass::kUncore, detect_perf_host(root)).what;
}

}  // namespace

std::map<std::string, std::string> PerfPlan::env(size_t pass) const {
  const PerfPass& p = passes.at(pass);
  return {{RPROF_ENV_BACKEND, "perf"},
          {RPROF_ENV_PERF_EVENTS, format_perf_spec(p.groups)},
          {RPROF_ENV_PERF_GROUP_BASE, std::to_string(p.first_group)}};
}

bool PerfPlan::counts_all_traffic() const {
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    if (!counts_traffic[static_cast<int>(b)]) return false;
  }
  return true;
}

PerfEventSpec encode_table_event(const CpuTable& table, const TableEvent& event) {
  PerfEventSpec e;
  e.key = event.key;
  e.type = event.type;
  e.config = event.raw;
  if (event.type == PERF_TYPE_RAW && !event.pfm.empty() && libpfm_available() &&
      libpfm_core_pmu() == table.pfm_pmu) {
    const PfmEncoding enc = pfm_encode(event.pfm);
    if (enc.ok) {
      e.type = enc.type;
      e.config = enc.config;
      e.config1 = enc.config1;
      e.config2 = enc.config2;
    }
  }
  return e;
}

std::optional<PerfEventSpec> encode_named_event(const std::string& name, std::string* why) {
  PerfEventSpec e;
  e.key = perf_key(name);
  for (const Generic& g : kGeneric) {
    if (name == g.name) {
      e.type = g.type;
      e.config = g.config;
      return e;
    }
  }
  if (name.size() > 1 && name[0] == 'r' &&
      name.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos &&
      name.size() <= 17) {
    e.type = PERF_TYPE_RAW;
    e.config = std::strtoull(name.c_str() + 1, nullptr, 16);
    return e;
  }
  const PfmEncoding enc = pfm_encode(name);
  if (enc.ok) {
    e.type = enc.type;
    e.config = enc.config;
    e.config1 = enc.config1;
    e.config2 = enc.config2;
    return e;
  }
  *why = "unknown event '" + name + "' (" + enc.error +
         "; use perf's generic names such as page-faults or cycles, a libpfm4 name, or "
         "rNNNN raw codes)";
  return std::nullopt;
}

std::vector<int> parse_cpu_set(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    part.erase(std::remove_if(part.begin(), part.end(), [](char c) { return c == '\n' || c == ' '; }),
               part.end());
    if (part.empty()) continue;
    int a = 0, b = 0;
    char dash = 0, extra = 0;
    std::istringstream in(part);
    if (part.find('-') == std::string::npos) {
      if (!(in >> a) || in >> extra) return {};
      b = a;
    } else if (!(in >> a >> dash >> b) || dash != '-' || in >> extra || b < a) {
      return {};
    }
    if (a < 0 || b > 65535) return {};
    for (int c = a; c <= b; ++c) out.push_back(c);
  }
  return out;
}

std::string hybrid_check(const std::string& root, const std::vector<int>& allowed) {
  const std::string base = (root.empty() ? std::string() : root) + "/sys/devices/";
  std::string atom_text, core_text;
  try {
    atom_text = read_file(base + "cpu_atom/cpus");
  } catch (const std::exception&) {
    return "";  // no efficiency cores online (or not a hybrid kernel)
  }
  try {
    core_text = read_file(base + "cpu_core/cpus");
  } catch (const std::exception&) {
  }
  const std::vector<int> atom = parse_cpu_set(atom_text);
  std::vector<int> on_atom;
  for (int c : allowed) {
    if (std::find(atom.begin(), atom.end(), c) != atom.end()) on_atom.push_back(c);
  }
  if (on_atom.empty()) return "";
  auto trim = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  };
  const std::string core = trim(core_text);
  return "hybrid CPU: the event table counts on the performance cores only (cpu_core PMU, "
         "CPUs " + (core.empty() ? std::string("?") : core) + "); this run may use " +
         std::to_string(on_atom.size()) + " efficiency core(s) (cpu_atom, CPUs " +
         trim(atom_text) + "), which have no FP_ARITH_INST_RETIRED event and where the "
         "counters would stop (counts extrapolated). Pin the run to the performance cores: "
         "taskset -c " + (core.empty() ? std::string("<cpu_core cpus>") : core) +
         " rprof run --backend=perf ...";
}

PerfPlan plan_perf_run(const PerfPlanOptions& o) {
  PerfPlan plan;
  std::vector<PerfGroupSpec> groups;
  if (!o.events.empty()) {
    plan.software_only = true;
    std::vector<std::string> keys;
    for (const std::vector<std::string>& names : o.events) {
      PerfGroupSpec g;
      for (const std::string& name : names) {
        std::string why;
        std::optional<PerfEventSpec> e = encode_named_event(name, &why);
        if (!e) throw Error("--events: " + why, 2);
        for (const std::string& k : keys) {
          if (k == e->key) throw Error("--events: '" + name + "' is listed twice", 2);
        }
        keys.push_back(e->key);
        plan.software_only &= e->type == PERF_TYPE_SOFTWARE;
        g.events.push_back(*e);
      }
      if (g.events.empty()) throw Error("--events: an empty group", 2);
      groups.push_back(std::move(g));
    }
    plan.notes.push_back("events chosen with --events; raw counts, no FLOP or traffic formulas");
  } else {
    const CpuId cpu = o.cpu ? *o.cpu : detect_topology(o.root.empty() ? "/" : o.root).cpu;
    const CpuTable& t = select_table(cpu);
    plan.table_id = t.id;
    if (t.hybrid) {
      const std::string refused =
          hybrid_check(o.root, o.allowed_cpus ? *o.allowed_cpus : allowed_cpus());
      if (!refused.empty()) throw Error(refused, 2);
    }
    for (const auto& keys : t.groups) {
      PerfGroupSpec g;
      for (const std::string& k : keys) {
        const TableEvent* ev = t.find(k);
        if (ev == nullptr) throw Error("event table " + t.id + " lacks " + k);
        g.events.push_back(encode_table_event(t, *ev));
        for (const EventRole& r : ev->roles) {
          if (r.kind == RoleKind::kLines) plan.counts_traffic[static_cast<int>(r.boundary)] = true;
        }
      }
      groups.push_back(std::move(g));
    }
    plan.notes.push_back("hardware counters: " + t.name + " event table (user space only; "
                         "FMA = 2 FLOPs; bytes = 64 x lines at each boundary)");
    for (const std::string& n : t.notes) plan.notes.push_back(n);
    std::string why = "this CPU has no known memory-controller counters";
    std::optional<PerfGroupSpec> unc;
    if (o.try_uncore && t.uncore != UncoreKind::kNone) unc = dram_uncore_group(t.uncore, o.root, &why);
    if (unc) {
      const std::string problem = uncore_problem(*unc, o.root);
      if (problem.empty()) {
        plan.uncore = true;
        plan.counts_traffic[static_cast<int>(Boundary::kDRAM)] = true;
        groups.insert(groups.begin() + t.uncore_group + 1, std::move(*unc));
        plan.notes.push_back(
            "DRAM traffic from the memory controllers (whole socket: other processes' "
            "traffic is included; a region's count is what flowed while the main thread "
            "was inside it, none where only other threads ran)");
      } else {
        why = problem;
      }
    }
    if (!plan.uncore && t.id != "generic") {
      plan.notes.push_back("DRAM traffic is an approximation from core events (" + why + ")");
    }
  }
  // Passes: one per group unless multiplexed (the uncore group rides along
  // with the table's uncore pass).
  const bool one_pass = o.multiplex || groups.size() == 1 ||
                        (plan.uncore && groups.size() == 2);
  int id = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    groups[i].id = id++;
    const bool joins_previous = plan.uncore && groups[i].system_wide() && i > 0;
    if (one_pass ? plan.passes.empty() : !joins_previous) {
      plan.passes.push_back({{}, groups[i].id});
    }
    plan.passes.back().groups.push_back(groups[i]);
  }
  for (const PerfPass& p : plan.passes) {
    if (perf_counter_count(p.groups) > kMaxCounters) {
      throw Error("too many events for one run (" + std::to_string(perf_counter_count(p.groups)) +
                      " counters; the runtime holds " + std::to_string(kMaxCounters) + ")",
                  2);
    }
  }
  if (plan.passes.size() > 1) {
    plan.notes.push_back("the program ran " + std::to_string(plan.passes.size()) +
                         " times, once per event group, and the runs were merged per "
                         "region (times are the first run's)");
  } else if (groups.size() > 1) {
    plan.notes.push_back("event groups were multiplexed in one run: counts are scaled by "
                         "time enabled / time running");
  }
  return plan;
}

}  // namespace rprof
