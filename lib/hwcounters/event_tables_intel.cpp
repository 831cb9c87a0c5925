// Intel tables: Skylake-SP (and Cascade/Cooper Lake), Ice Lake-SP, Sapphire
// and Emerald Rapids, and the client cores whose events match (Skylake client
// with its Kaby/Coffee/Comet Lake refreshes, Ice/Tiger/Rocket Lake).
// Granite Rapids (Redwood Cove cores) keeps Sapphire Rapids' core events.
// Hybrid client CPUs (Alder/Raptor Lake) expose two PMUs: the table is the
// performance cores' (cpu_core, Golden Cove/Raptor Cove, the events of
// Sapphire Rapids without AVX-512); the efficiency cores (cpu_atom,
// Gracemont) have no FP_ARITH_INST_RETIRED event, so runs that may land on
// them are refused (perf_plan.h, hybrid_check).
//
// Raw codes are event | umask << 8 | cmask << 24 (PERF_TYPE_RAW config).
#include "hwcounters/event_tables.h"

namespace rprof {
namespace {

constexpr uint32_t kRaw = 4, kGeneric = 0;  // PERF_TYPE_RAW, PERF_TYPE_HARDWARE

EventRole lines(Boundary b, bool write, const char* note = nullptr) {
  EventRole r{RoleKind::kLines};
  r.boundary = b;
  r.write = write;
  r.note = note;
  return r;
}
EventRole approx(Boundary b, bool write, const char* note) {
  EventRole r = lines(b, write, note);
  r.kind = RoleKind::kLinesApprox;
  return r;
}

TableEvent generic(const std::string& key, uint64_t config, const std::string& likwid,
                   RoleKind kind) {
  return {key, "", kGeneric, config, "kernel generic event", likwid, {{kind}}};
}

// FP_ARITH_INST_RETIRED (0xC7): one event per precision and width. An FMA
// instruction counts twice, so FLOPs = count x lanes gives FMA = 2 FLOPs.
// Masked AVX-512 lanes count as full width (overcount on masked code).
void add_fp(CpuTable& t, bool avx512) {
  struct W {
    const char* name;
    Width width;
  };
  const W widths[] = {{"SCALAR", Width::kScalar}, {"128B_PACKED", Width::k128},
                      {"256B_PACKED", Width::k256}, {"512B_PACKED", Width::k512}};
  std::vector<std::string> dp, sp;
  for (const W& w : widths) {
    if (w.width == Width::k512 && !avx512) continue;
    for (Precision p : {Precision::kDP, Precision::kSP}) {
      const bool d = p == Precision::kDP;
      const uint64_t umask = static_cast<uint64_t>(1)
                             << (2 * static_cast<int>(w.width) + (d ? 0 : 1));
      const std::string suffix = std::string(w.name) + (d ? "_DOUBLE" : "_SINGLE");
      EventRole r{RoleKind::kFpInstructions};
      r.precision = p;
      r.width = w.width;
      t.events.push_back({"FP_ARITH_INST_RETIRED." + suffix,
                          "FP_ARITH_INST_RETIRED:" + suffix, kRaw, 0xc7 | umask << 8,
                          "libpfm4", "FP_ARITH_INST_RETIRED_" + suffix, {r}});
      (d ? dp : sp).push_back(t.events.back().key);
    }
  }
  t.groups.push_back({"cycles", "instructions"});
  t.groups[0].insert(t.groups[0].end(), dp.begin(), dp.end());
  t.groups.push_back(sp);
}

const char* kDramReadApprox =
    "DRAM reads approximated by last-level-cache misses (LONGEST_LAT_CACHE.MISS: "
    "demand and prefetch lines)";
const char* kDramWriteApprox =
    "DRAM writes approximated by L2 write-backs, an upper bound (the LLC absorbs some)";

CpuTable base(const std::string& id, const std::string& name, const std::string& pmu,
              bool avx512) {
  CpuTable t;
  t.id = id;
  t.name = name;
  t.pfm_pmu = pmu;
  t.events.push_back(generic("cycles", 0, "CPU_CLK_UNHALTED_CORE@FIXC1", RoleKind::kCycles));
  t.events.push_back(generic("instructions", 1, "INSTR_RETIRED_ANY@FIXC0", RoleKind::kInstructions));
  add_fp(t, avx512);
  EventRole pending{RoleKind::kPendingMisses}, pending_cycles{RoleKind::kPendingCycles};
  t.events.push_back({"L1D.REPLACEMENT", "L1D:REPLACEMENT", kRaw, 0x0151, "libpfm4",
                      "L1D_REPLACEMENT", {lines(Boundary::kL2, false)}});
  t.events.push_back({"LONGEST_LAT_CACHE.MISS", "LONGEST_LAT_CACHE:MISS", kRaw, 0x412e,
                      "libpfm4", "LONGEST_LAT_CACHE_MISS",
                      {approx(Boundary::kDRAM, false, kDramReadApprox)}});
  t.events.push_back({"L1D_PEND_MISS.PENDING", "L1D_PEND_MISS:PENDING", kRaw, 0x0148,
                      "libpfm4", "L1D_PEND_MISS_PENDING", {pending}});
  t.events.push_back({"L1D_PEND_MISS.PENDING_CYCLES", "L1D_PEND_MISS:PENDING_CYCLES", kRaw,
                      0x01000148, "libpfm4", "L1D_PEND_MISS_PENDING_CYCLES",
                      {pending_cycles}});
  return t;
}

// Skylake/Ice Lake: L2<->LLC write-backs are L2_TRANS.L2_WB (0xF0/0x40).
void add_l2_wb(CpuTable& t) {
  t.events.push_back({"L2_LINES_IN.ALL", "L2_LINES_IN:ALL", kRaw, 0x1ff1, "libpfm4",
                      "L2_LINES_IN_ALL", {lines(Boundary::kLLC, false)}});
  t.events.push_back({"L2_TRANS.L2_WB", "L2_TRANS:L2_WB", kRaw, 0x40f0, "libpfm4",
                      "L2_TRANS_L2_WB",
                      {lines(Boundary::kLLC, true),
                       approx(Boundary::kDRAM, true, kDramWriteApprox)}});
}

CpuTable skylake(const std::string& id, const std::string& name, const std::string& pmu,
                 bool avx512) {
  CpuTable t = base(id, name, pmu, avx512);
  // L1D.M_EVICT (0x51/0x04): modified lines evicted from L1D, as LIKWID's
  // Skylake L2 group counts them; Intel does not document it, libpfm4 lacks it.
  t.events.push_back({"L1D.M_EVICT", "", kRaw, 0x0451, "likwid perfmon_skylake(X)_events",
                      "L1D_M_EVICT", {lines(Boundary::kL2, true)}});
  add_l2_wb(t);
  t.groups.push_back({"L1D.REPLACEMENT", "L1D.M_EVICT", "L2_LINES_IN.ALL", "L2_TRANS.L2_WB"});
  t.groups.push_back(
      {"L1D_PEND_MISS.PENDING", "L1D_PEND_MISS.PENDING_CYCLES", "LONGEST_LAT_CACHE.MISS"});
  t.uncore_group = 2;
  return t;
}

CpuTable icelake(const std::string& id, const std::string& name, const std::string& pmu) {
  CpuTable t = base(id, name, pmu, true);
  // L2_TRANS.L1D_WB (0xF0/0x10): L1D write-backs into L2, from LIKWID's Ice
  // Lake lists ("count something but no guarantees"); not in libpfm4.
  t.events.push_back({"L2_TRANS.L1D_WB", "", kRaw, 0x10f0, "likwid perfmon_icelakeX_events",
                      "L2_TRANS_L1D_WB", {lines(Boundary::kL2, true)}});
  add_l2_wb(t);
  t.groups.push_back({"L1D.REPLACEMENT", "L2_TRANS.L1D_WB", "L2_LINES_IN.ALL", "L2_TRANS.L2_WB"});
  t.groups.push_back(
      {"L1D_PEND_MISS.PENDING", "L1D_PEND_MISS.PENDING_CYCLES", "LONGEST_LAT_CACHE.MISS"});
  t.uncore_group = 2;
  return t;
}

// Golden Cove renumbered the L2 events (L2_LINES_IN 0x25, L2_LINES_OUT 0x26)
// and has no public event for L1D write-backs: L2 traffic is fills only.
CpuTable sapphire_rapids() {
  CpuTable t = base("spr", "Intel Sapphire Rapids / Emerald Rapids", "spr", true);
  t.events.push_back({"L2_LINES_IN.ALL", "L2_LINES_IN:ALL", kRaw, 0x1f25, "libpfm4",
                      "L2_LINES_IN_ALL", {lines(Boundary::kLLC, false)}});
  t.events.push_back({"L2_LINES_OUT.NON_SILENT", "L2_LINES_OUT:NON_SILENT", kRaw, 0x0226,
                      "libpfm4", "L2_LINES_OUT_NON_SILENT",
                      {lines(Boundary::kLLC, true),
                       approx(Boundary::kDRAM, true, kDramWriteApprox)}});
  t.groups.push_back(
      {"L1D.REPLACEMENT", "L2_LINES_IN.ALL", "L2_LINES_OUT.NON_SILENT", "LONGEST_LAT_CACHE.MISS"});
  t.groups.push_back({"L1D_PEND_MISS.PENDING", "L1D_PEND_MISS.PENDING_CYCLES"});
  t.uncore_group = 2;
  t.notes.push_back("L1<->L2 traffic is L1D fills only: Sapphire Rapids has no public "
                    "event for L1D write-backs");
  return t;
}

// Sources per row of the tables below: the libpfm4 name (checked with
// libpfm4's spr PMU where Debian's 4.13 lacks gnr/adl_glc), the Intel
// perfmon event list the Linux perf pmu-events JSON is generated from
// (graniterapids_core.json V1.20, alderlake_goldencove_core.json V1.40), and
// the Intel 64 and IA-32 SDM vol. 3B ch. 20 (FP_ARITH counts an FMA twice).
void cite(CpuTable& t, const std::string& perfmon_file) {
  for (TableEvent& e : t.events) {
    if (e.type != kRaw) continue;
    e.perf_json = e.key;  // Intel's perf names are the keys
    e.source = (e.pfm.empty() ? e.source : "libpfm4 " + e.pfm + " (spr PMU)") + "; perf " +
               t.perf_arch + "/" + e.key + " (Intel perfmon " + perfmon_file + ")";
  }
}

CpuTable granite_rapids() {
  CpuTable t = sapphire_rapids();
  t.id = "gnr";
  t.name = "Intel Granite Rapids (Xeon 6 with P-cores)";
  t.pfm_pmu = "gnr";
  t.pfm_check_pmu = "spr";
  t.perf_arch = "graniterapids";
  t.uncore = UncoreKind::kNone;
  t.notes = {"L1<->L2 traffic is L1D fills only: Redwood Cove has no public event for "
             "L1D write-backs",
             "Granite Rapids' memory controllers (UNC_M_CAS_COUNT_SCH0/1) are not read yet: "
             "DRAM traffic is the labelled LLC-miss stand-in"};
  cite(t, "graniterapids_core.json V1.20");
  return t;
}

CpuTable alder_lake() {
  CpuTable t = base("adl", "Intel Alder Lake / Raptor Lake performance cores (hybrid)",
                    "adl_glc", false);
  t.pfm_check_pmu = "spr";
  t.perf_arch = "alderlake";
  t.hybrid = true;
  t.events.push_back({"L2_LINES_IN.ALL", "L2_LINES_IN:ALL", kRaw, 0x1f25, "libpfm4",
                      "L2_LINES_IN_ALL", {lines(Boundary::kLLC, false)}});
  t.events.push_back({"L2_LINES_OUT.NON_SILENT", "L2_LINES_OUT:NON_SILENT", kRaw, 0x0226,
                      "libpfm4", "L2_LINES_OUT_NON_SILENT",
                      {lines(Boundary::kLLC, true),
                       approx(Boundary::kDRAM, true, kDramWriteApprox)}});
  t.groups.push_back(
      {"L1D.REPLACEMENT", "L2_LINES_IN.ALL", "L2_LINES_OUT.NON_SILENT", "LONGEST_LAT_CACHE.MISS"});
  t.groups.push_back({"L1D_PEND_MISS.PENDING", "L1D_PEND_MISS.PENDING_CYCLES"});
  t.uncore_group = 2;
  t.notes.push_back("hybrid CPU: counters are the performance cores' (cpu_core PMU); the "
                    "program must run pinned to them (the efficiency cores have no FLOP "
                    "event)");
  t.notes.push_back("L1<->L2 traffic is L1D fills only: Golden Cove has no public event for "
                    "L1D write-backs");
  cite(t, "alderlake_goldencove_core.json V1.40");
  return t;
}

}  // namespace

std::vector<CpuTable> intel_tables() {
  std::vector<CpuTable> t;
  t.push_back(skylake("skx", "Intel Skylake-SP / Cascade Lake / Cooper Lake", "skx", true));
  t.back().uncore = UncoreKind::kIntelImc;
  t.push_back(skylake("skl", "Intel Skylake client / Kaby, Coffee, Comet Lake", "skl", false));
  t.push_back(icelake("icx", "Intel Ice Lake-SP", "icx"));
  t.back().uncore = UncoreKind::kIntelImc;
  t.push_back(icelake("icl", "Intel Ice Lake / Tiger Lake / Rocket Lake client", "icl"));
  t.push_back(sapphire_rapids());
  t.back().uncore = UncoreKind::kIntelImc;
  // Linux perf pmu-events folders of the older tables: their libpfm4-named
  // rows carry perf's name (the key); the LIKWID-only rows have none.
  const std::pair<const char*, const char*> arch[] = {
      {"skx", "skylakex"}, {"skl", "skylake"}, {"icx", "icelakex"}, {"icl", "icelake"},
      {"spr", "sapphirerapids"}};
  for (CpuTable& x : t) {
    for (const auto& [id, folder] : arch) {
      if (x.id != id) continue;
      x.perf_arch = folder;
      for (TableEvent& e : x.events) {
        if (e.type == kRaw && !e.pfm.empty()) e.perf_json = e.key;
      }
    }
  }
  t.push_back(granite_rapids());
  t.push_back(alder_lake());
  for (CpuTable& x : t) {
    if (x.id == "adl") continue;  // no AVX-512
    x.notes.push_back("FP_ARITH counts masked AVX-512 lanes as full width: FLOPs are "
                      "overcounted on masked code");
  }
  return t;
}

}  // namespace rprof
