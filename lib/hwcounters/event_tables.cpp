#include "hwcounters/event_tables.h"

#include <map>

#include "common/error.h"
#include "common/kinds.h"

namespace rprof {
namespace {

// Cycles and instructions through the kernel's generic events, which work on
// every PMU the kernel drives. Intel's architectural LLC-miss event stands in
// for DRAM reads there (PERF_COUNT_HW_CACHE_MISSES); on other vendors the
// generic cache-miss event means something else, so it is left out.
CpuTable generic_table() {
  CpuTable t;
  t.id = "generic";
  t.name = "generic (kernel's generic events)";
  t.events.push_back({"cycles", "", 0, 0, "kernel generic event", "", {{RoleKind::kCycles}}});
  t.events.push_back(
      {"instructions", "", 0, 1, "kernel generic event", "", {{RoleKind::kInstructions}}});
  t.groups.push_back({"cycles", "instructions"});
  t.notes.push_back("no event table for this CPU model: cycles and instructions only, "
                    "no FLOPs or traffic (use --backend=sim for those)");
  return t;
}

bool in(int model, std::initializer_list<int> models) {
  for (int m : models) {
    if (m == model) return true;
  }
  return false;
}

std::string table_id_for(const CpuId& cpu) {
  if (cpu.vendor == "GenuineIntel" && cpu.family == 6) {
    if (cpu.model == 0x55) return "skx";
    if (in(cpu.model, {0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6})) return "skl";
    if (in(cpu.model, {0x6a, 0x6c})) return "icx";
    if (in(cpu.model, {0x7d, 0x7e, 0x8c, 0x8d, 0xa7})) return "icl";
    if (in(cpu.model, {0x8f, 0xcf})) return "spr";
    if (in(cpu.model, {0xad, 0xae})) return "gnr";  // Granite Rapids X and D
    // Alder Lake (S, P/H) and Raptor Lake (S, P, S refresh): hybrid.
    if (in(cpu.model, {0x97, 0x9a, 0xb7, 0xba, 0xbf})) return "adl";
  }
  if (cpu.vendor == "AuthenticAMD" && cpu.family == 0x17) {
    // Family 17h: Zen and Zen+ are models 00-2F, Zen 2 models 30-FF (Rome
    // 31h, Renoir 60h, Matisse 71h, ...), as libpfm4 decides.
    if (cpu.model >= 0x30) return "zen2";
  }
  // Family 1Ah models 00-7F: Zen 5 (Turin 02h/11h, Strix 20h/24h, Granite
  // Ridge 44h, Krackan 60h/70h).
  if (cpu.vendor == "AuthenticAMD" && cpu.family == 0x1a && cpu.model < 0x80) return "zen5";
  if (cpu.vendor == "AuthenticAMD" && cpu.family == 0x19) {
    // Family 19h: Zen 3 is models 00-0F and 20-5F, Zen 4 the rest (10-1F
    // Genoa, 60-7F client, A0-AF Bergamo/Siena), as libpfm4 decides.
    if (cpu.model < 0x10 || (cpu.model >= 0x20 && cpu.model < 0x60)) return "zen3";
    return "zen4";
  }
  return "generic";
}

}  // namespace

const std::vector<TableEvent>& uncore_events() {
  static const std::vector<TableEvent> events = [] {
    EventRole rd{RoleKind::kLines}, wr{RoleKind::kLines}, beats{RoleKind::kLines};
    rd.boundary = wr.boundary = beats.boundary = Boundary::kDRAM;
    wr.write = true;
    beats.note = "DRAM traffic from data-fabric channel beats (64 B, reads and writes "
                 "together, counted as reads; valid in NPS1 mode)";
    std::vector<TableEvent> e;
    e.push_back({kUncoreDramRead, "", 0, 0, "sysfs uncore PMU", "", {rd}});
    e.push_back({kUncoreDramWrite, "", 0, 0, "sysfs uncore PMU", "", {wr}});
    e.push_back({kUncoreDfBeats, "", 0, 0, "sysfs uncore PMU", "", {beats}});
    return e;
  }();
  return events;
}

const TableEvent* CpuTable::find(const std::string& key) const {
  for (const TableEvent& e : events) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

const std::vector<CpuTable>& cpu_tables() {
  static const std::vector<CpuTable> tables = [] {
    std::vector<CpuTable> t = intel_tables();
    for (CpuTable& a : amd_tables()) t.push_back(std::move(a));
    t.push_back(generic_table());
    return t;
  }();
  return tables;
}

const CpuTable& table_by_id(const std::string& id) {
  for (const CpuTable& t : cpu_tables()) {
    if (t.id == id) return t;
  }
  throw Error("no event table '" + id + "'");
}

const CpuTable& select_table(const CpuId& cpu) { return table_by_id(table_id_for(cpu)); }

std::string describe_role(const EventRole& r) {
  const std::string b = std::string("bytes ") + boundary_name(r.boundary) + " " +
                        (r.write ? "written" : "read");
  switch (r.kind) {
    case RoleKind::kCycles: return "cycles (core clock)";
    case RoleKind::kInstructions: return "instructions retired";
    case RoleKind::kFpInstructions: {
      const int n = lanes(r.precision, r.width);
      return std::string(precision_name(r.precision)) + " FLOPs += " + std::to_string(n) +
             " x count (" + width_name(r.width) +
             (r.width == Width::kScalar ? "" : "-bit") + "; FMA counted twice: FMA = 2 FLOPs)";
    }
    case RoleKind::kFlopsAny: return "FLOPs (SP+DP together) += count (FMA = 2 FLOPs)";
    case RoleKind::kLines: return b + " += 64 x count";
    case RoleKind::kLinesApprox: return b + " ~ 64 x count (stand-in, used only without an exact event)";
    case RoleKind::kPendingMisses: return "outstanding L1D misses, summed over cycles";
    case RoleKind::kPendingCycles: return "cycles with an outstanding L1D miss";
  }
  return "";
}

const std::vector<EventRole>* roles_of(const std::string& key) {
  static const std::map<std::string, const std::vector<EventRole>*> by_key = [] {
    std::map<std::string, const std::vector<EventRole>*> m;
    for (const CpuTable& t : cpu_tables()) {
      for (const TableEvent& e : t.events) m.emplace(e.key, &e.roles);
    }
    for (const TableEvent& e : uncore_events()) m.emplace(e.key, &e.roles);
    return m;
  }();
  auto it = by_key.find(key);
  return it == by_key.end() ? nullptr : it->second;
}

}  // namespace rprof
