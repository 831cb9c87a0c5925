// AMD tables: Zen 3 and Zen 4 (family 19h). Their FLOP event has no
// precision split, and no event counts L1 or L2 write-backs: traffic at L2
// and LLC is reads only (labelled approximate).
#include "hwcounters/event_tables.h"

namespace rprof {
namespace {

constexpr uint32_t kRaw = 4, kGeneric = 0;

EventRole lines(Boundary b, const char* note) {
  EventRole r{RoleKind::kLines};
  r.boundary = b;
  r.note = note;
  return r;
}
EventRole approx_dram(const char* note) {
  EventRole r{RoleKind::kLinesApprox};
  r.boundary = Boundary::kDRAM;
  r.note = note;
  return r;
}

const char* kL2Note =
    "L1<->L2: data requests from L1D to L2 (loads, stores, L1 prefetches); Zen has no "
    "event for L1 write-backs";
const char* kL3Note =
    "L2<->LLC: L3 reads (L2 demand misses and L2 prefetches); Zen has no event for L2 "
    "write-backs";
const char* kDramNote =
    "DRAM reads approximated by L2 prefetches that missed L3 plus L1D fills from DRAM; "
    "writes not counted";

CpuTable zen(bool zen4) {
  CpuTable t;
  t.id = zen4 ? "zen4" : "zen3";
  t.name = zen4 ? "AMD Zen 4 (EPYC Genoa/Bergamo/Siena, Ryzen 7000)"
                : "AMD Zen 3 (EPYC Milan, Ryzen 5000)";
  t.pfm_pmu = zen4 ? "amd64_fam19h_zen4" : "amd64_fam19h_zen3";
  t.precision_agnostic = true;
  t.events.push_back({"cycles", "", kGeneric, 0, "kernel generic event",
                      "ACTUAL_CPU_CLOCK@FIXC1", {{RoleKind::kCycles}}});
  t.events.push_back({"instructions", "", kGeneric, 1, "kernel generic event",
                      "RETIRED_INSTRUCTIONS", {{RoleKind::kInstructions}}});
  // RETIRED_SSE_AVX_FLOPS counts FLOPs (width and FMA = 2 folded in). One
  // cycle can add more than 15, so the counter needs its MERGE partner; the
  // kernel pairs the counters itself for event 0x03 on family 17h and later.
  // Zen 4's ANY umask adds BF16 FLOPs (0x10).
  t.events.push_back({"RETIRED_SSE_AVX_FLOPS.ANY", "RETIRED_SSE_AVX_FLOPS:ANY", kRaw,
                      zen4 ? 0x1f03u : 0x0f03u, "libpfm4",
                      zen4 ? "" : "RETIRED_SSE_AVX_FLOPS_ALL+MERGE", {{RoleKind::kFlopsAny}}});
  t.events.push_back({"REQUESTS_TO_L2_GROUP1.DATA",
                      "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S", kRaw, 0xe060,
                      "libpfm4", "", {lines(Boundary::kL2, kL2Note)}});
  const std::string pf_umasks =
      zen4 ? "L2_STREAM:L2_NEXT_LINE:L2_UP_DOWN:L2_BURST:L2_STRIDE:L1_STREAM:L1_STRIDE:L1_REGION"
           : "L2_HW_PREFETCHER:L1_HW_PREFETCHER";
  t.events.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_HIT_L3:" + pf_umasks, kRaw,
                      0xff71, "libpfm4", zen4 ? "" : "L2_PF_HIT_IN_L3",
                      {lines(Boundary::kLLC, kL3Note)}});
  t.events.push_back({"L2_PREFETCH_MISS_L3.ALL", "L2_PREFETCH_MISS_L3:" + pf_umasks, kRaw,
                      0xff72, "libpfm4", zen4 ? "" : "L2_PF_MISS_IN_L3",
                      {lines(Boundary::kLLC, kL3Note), approx_dram(kDramNote)}});
  t.events.push_back({"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C", kRaw, 0x0864,
                      "libpfm4", "", {lines(Boundary::kLLC, kL3Note)}});
  t.events.push_back({"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM",
                      zen4 ? "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR"
                           : "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL:MEM_IO_RMT",
                      kRaw, 0x4844, "libpfm4", "", {approx_dram(kDramNote)}});
  // Six general counters; the FLOP event takes two (MERGE).
  t.groups.push_back(
      {"cycles", "instructions", "RETIRED_SSE_AVX_FLOPS.ANY", "REQUESTS_TO_L2_GROUP1.DATA"});
  t.groups.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_MISS_L3.ALL",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM"});
  t.uncore_group = 1;
  t.uncore = zen4 ? UncoreKind::kAmdUmc : UncoreKind::kAmdDf;
  t.notes.push_back(
      "FLOPs come from RETIRED_SSE_AVX_FLOPS, which does not split precision: FLOP "
      "counts and intensities are precision-agnostic (SP and DP added together)");
  t.notes.push_back("x87 FLOPs are not counted");
  return t;
}

}  // namespace

std::vector<CpuTable> amd_tables() { return {zen(false), zen(true)}; }

}  // namespace rprof
