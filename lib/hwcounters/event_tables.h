// Hardware event tables: which events give FLOPs and bytes per boundary on
// each supported CPU, how to encode them, and what each count means (its
// roles). Sources: ../shared/reference/counters.md, verified against libpfm4
// 4.13 (tests/unit/pfm_table_check.cpp encodes every table name with
// LIBPFM_FORCE_PMU and compares it with the raw code) and LIKWID's event
// lists for the events libpfm4 does not name.
//
// A count's meaning is per event key, the same in every table (a unit test
// checks it), so translating counters to metrics needs only the key.
#ifndef RPROF_HWCOUNTERS_EVENT_TABLES_H_
#define RPROF_HWCOUNTERS_EVENT_TABLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "machine/topology.h"
#include "profile/metrics.h"

namespace rprof {

enum class RoleKind {
  kCycles,           // core cycles
  kInstructions,     // instructions retired
  kFpInstructions,   // FP_ARITH-style: instructions of `precision`/`width`, FMA counted twice
  kFlopsAny,         // FLOPs of any precision (AMD Zen 3/4), FMA = 2
  kLines,            // 64-byte lines crossing `boundary` (read or write)
  kLinesApprox,      // the same, but a stand-in: used only when no kLines event exists
  kPendingMisses,    // sum over cycles of outstanding L1D misses
  kPendingCycles,    // cycles with at least one outstanding L1D miss
};

struct EventRole {
  RoleKind kind;
  Precision precision = Precision::kDP;
  Width width = Width::kScalar;
  Boundary boundary = Boundary::kDRAM;
  bool write = false;
  // Why a kLines count is partial, or what a kLinesApprox count stands for.
  const char* note = nullptr;
};

enum class UncoreKind {
  kNone,
  kIntelImc,  // uncore_imc_N: cas_count_read / cas_count_write (sysfs aliases)
  kAmdUmc,    // amd_umc_N (Zen 4): CAS commands, event 0x0a rdwrmask 1/2
  kAmdDf,     // amd_df (Zen 3): DRAM channel data beats, reads and writes together
};

struct TableEvent {
  std::string key;     // counter key (hw.g<G>.<key>), Intel dot notation
  std::string pfm;     // libpfm4 name, "" when libpfm4 does not know it
  uint32_t type = 4;   // PERF_TYPE_RAW, or PERF_TYPE_HARDWARE (0) for generic events
  uint64_t raw = 0;    // config (event | umask << 8 | cmask << 24 ...)
  std::string source;  // where the code was verified
  std::string likwid;  // LIKWID event name ("" = not available through likwid)
  std::vector<EventRole> roles;
  // Linux perf pmu-events name(s) of the same count, '+' between events whose
  // unit masks are OR-ed ("l2_request_g1.rd_blk_l+l2_request_g1.rd_blk_x");
  // "" for kernel generic events. tests/unit/test_pmu_events.cpp checks the
  // raw code against tests/fixtures/pmu-events/<perf_arch>/.
  std::string perf_json = "";
};

struct CpuTable {
  std::string id;       // "skx", "icx", "spr", "zen3", "zen4", "generic"
  std::string name;     // for people
  std::string pfm_pmu;  // libpfm4 PMU name (LIBPFM_FORCE_PMU), "" for generic
  // The libpfm4 PMU the encoding check falls back to when the installed
  // libpfm4 lacks pfm_pmu (Debian 12's 4.13 has no Zen 5, Granite Rapids or
  // Alder Lake PMU): the previous generation of the same core, whose names
  // the rows use with the unit masks spelled out. "" = no fallback.
  std::string pfm_check_pmu;
  std::string perf_arch;  // Linux perf pmu-events folder (arch/x86/<perf_arch>)
  // Hybrid client CPU (Alder/Raptor Lake): the events are the performance
  // cores' (cpu_core PMU); the efficiency cores (cpu_atom) have no
  // FP_ARITH_INST_RETIRED event, so a run that may land on them is refused
  // (hybrid_check in perf_plan.h).
  bool hybrid = false;
  std::vector<TableEvent> events;
  // Event keys per group: each fits the core's general counters (4 per
  // thread on Intel with SMT, 6 on AMD Zen) next to the fixed counters.
  std::vector<std::vector<std::string>> groups;
  int uncore_group = 0;  // the pass that also reads the memory controllers
  UncoreKind uncore = UncoreKind::kNone;
  bool precision_agnostic = false;  // FLOPs without a precision split
  std::vector<std::string> notes;   // what users of this table must know

  const TableEvent* find(const std::string& key) const;
};

// Keys of the memory-controller counts (one per socket and channel, summed):
// 64-byte lines read and written at DRAM, or Zen 3 data-fabric beats.
inline constexpr const char* kUncoreDramRead = "UNC_DRAM_READ_LINES";
inline constexpr const char* kUncoreDramWrite = "UNC_DRAM_WRITE_LINES";
inline constexpr const char* kUncoreDfBeats = "UNC_DF_DRAM_BEATS";
const std::vector<TableEvent>& uncore_events();

// Every table (generic last).
const std::vector<CpuTable>& cpu_tables();
const CpuTable& table_by_id(const std::string& id);  // throws Error
// The table for a CPU: by vendor, family and model; generic when unknown.
const CpuTable& select_table(const CpuId& cpu);
// The roles of an event key in any table; null when no table has it.
const std::vector<EventRole>* roles_of(const std::string& key);

// What a count feeds, in words: "DP FLOPs += 4 x count (256-bit, FMA
// counted twice by the event)", "bytes L1<->L2 read += 64 x count".
std::string describe_role(const EventRole& role);

// Table builders (event_tables_intel.cpp, event_tables_amd.cpp).
std::vector<CpuTable> intel_tables();
std::vector<CpuTable> amd_tables();

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_EVENT_TABLES_H_
