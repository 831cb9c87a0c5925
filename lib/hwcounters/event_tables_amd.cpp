// AMD tables: Zen 2 (family 17h), Zen 3 and Zen 4 (family 19h), Zen 5
// (family 1Ah). Their FLOP event has no
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

// Zen 2 (family 17h models 30h and later): the Zen 3 events under the names
// libpfm4's amd64_fam17h_zen2 PMU gives them. Sources per row: libpfm4 4.13
// (the name), Linux perf pmu-events arch/x86/amdzen2 (the perf name), AMD
// PPR for family 17h model 31h (PMCx003, PMCx043, PMCx060, PMCx064,
// PMCx071, PMCx072).
CpuTable zen2() {
  CpuTable t;
  t.id = "zen2";
  t.name = "AMD Zen 2 (EPYC Rome, Ryzen 3000/4000)";
  t.pfm_pmu = "amd64_fam17h_zen2";
  t.perf_arch = "amdzen2";
  t.precision_agnostic = true;
  // No LIKWID names: LIKWID's Zen 2 event list was not checked for these rows.
  t.events.push_back({"cycles", "", kGeneric, 0, "kernel generic event", "",
                      {{RoleKind::kCycles}}});
  t.events.push_back({"instructions", "", kGeneric, 1, "kernel generic event", "",
                      {{RoleKind::kInstructions}}});
  // Unit masks 0-3: add/sub, multiply, divide/sqrt, multiply-add (counted as
  // 2 FLOPs). perf's fp_ret_sse_avx_ops.all writes 0xff; the four named
  // sub-events OR to libpfm4's ANY (0x0f), which rprof uses.
  t.events.push_back({"RETIRED_SSE_AVX_FLOPS.ANY", "RETIRED_SSE_AVX_FLOPS:ANY", kRaw, 0x0f03,
                      "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx003",
                      "", {{RoleKind::kFlopsAny}},
                      "fp_ret_sse_avx_ops.add_sub_flops+fp_ret_sse_avx_ops.mult_flops+"
                      "fp_ret_sse_avx_ops.div_flops+fp_ret_sse_avx_ops.mac_flops"});
  t.events.push_back({"REQUESTS_TO_L2_GROUP1.DATA",
                      "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S", kRaw, 0xe060,
                      "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx060", "",
                      {lines(Boundary::kL2, kL2Note)},
                      "l2_request_g1.rd_blk_l+l2_request_g1.rd_blk_x+l2_request_g1.ls_rd_blk_c_s"});
  // PMCx071/072: libpfm4 encodes ANY as 0x1f, perf's JSON as 0xff
  // (tests/fixtures/pmu-events/known-differences.txt); rprof uses libpfm4's,
  // the code its encoder gives on a Zen 2 host anyway.
  t.events.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_HIT_L3:ANY", kRaw, 0x1f71,
                      "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx071", "",
                      {lines(Boundary::kLLC, kL3Note)}, "l2_pf_miss_l2_hit_l3"});
  t.events.push_back({"L2_PREFETCH_MISS_L3.ALL", "L2_PREFETCH_MISS_L3:ANY", kRaw, 0x1f72,
                      "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx072", "",
                      {lines(Boundary::kLLC, kL3Note), approx_dram(kDramNote)},
                      "l2_pf_miss_l2_l3"});
  t.events.push_back({"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C", kRaw, 0x0864,
                      "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx064", "",
                      {lines(Boundary::kLLC, kL3Note)}, "l2_cache_req_stat.ls_rd_blk_c"});
  // Zen 2 has no "any fills" event (PMCx044 is Zen 3's): demand fills from
  // DRAM (PMCx043), local and remote, stand in with the L2 prefetch misses.
  t.events.push_back({"DATA_CACHE_REFILLS_FROM_SYSTEM.DRAM",
                      "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM",
                      kRaw, 0x4843, "libpfm4 amd64_fam17h_zen2; PPR 17h/31h PMCx043", "",
                      {approx_dram(kDramNote)},
                      "ls_refills_from_sys.ls_mabresp_lcl_dram+ls_refills_from_sys.ls_mabresp_rmt_dram"});
  t.groups.push_back(
      {"cycles", "instructions", "RETIRED_SSE_AVX_FLOPS.ANY", "REQUESTS_TO_L2_GROUP1.DATA"});
  t.groups.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_MISS_L3.ALL",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "DATA_CACHE_REFILLS_FROM_SYSTEM.DRAM"});
  t.uncore_group = 1;
  t.uncore = UncoreKind::kNone;  // Zen 2's data-fabric DRAM events are not Zen 3's
  t.notes.push_back(
      "FLOPs come from RETIRED_SSE_AVX_FLOPS, which does not split precision: FLOP "
      "counts and intensities are precision-agnostic (SP and DP added together)");
  t.notes.push_back("x87 FLOPs are not counted");
  t.notes.push_back("no memory-controller counters for Zen 2: DRAM reads are the labelled "
                    "stand-in (demand fills from DRAM plus L2 prefetches that missed L3)");
  return t;
}

// Zen 5 (family 1Ah). Sources per row: Linux perf pmu-events arch/x86/amdzen5
// (floating-point, l2-cache, load-store), AMD PPR for family 1Ah model 02h
// (Turin), libpfm4's Zen 4 names (Debian 12's libpfm4 4.13 has no Zen 5
// PMU; the rows spell out unit masks whose bits Zen 4 and Zen 5 share).
//
// FLOPs: PMCx003 unit masks 0-3 (add/sub, multiply, divide/sqrt,
// multiply-add counted as 2), 0x0f, as perf's fp_ret_sse_avx_ops.all. Bit 4
// is not defined on Zen 5 (Zen 4's BF16 bit; Zen 5's BF16 is 0x20), so
// libpfm4's Zen 4 ANY (0x1f) must not be used. Bits 5-7 of Zen 5's unit mask
// select a data type (perf lists scalar/packed single/double at 0x40-0xa0);
// how they combine with the operation bits is not documented in these
// sources, so the table stays precision-agnostic. The event adds up to 64
// per cycle: it needs its MERGE partner (the kernel pairs the counters for
// event 0x03 on family 17h and later); a counter read without it saturates
// at 15 a cycle -- undercounts of the kind LIKWID #767 reports on Zen 5.
CpuTable zen5() {
  CpuTable t;
  t.id = "zen5";
  t.name = "AMD Zen 5 (EPYC Turin, Ryzen 9000, Ryzen AI 300)";
  t.pfm_pmu = "amd64_fam1ah_zen5";
  t.pfm_check_pmu = "amd64_fam19h_zen4";
  t.perf_arch = "amdzen5";
  t.precision_agnostic = true;
  t.events.push_back({"cycles", "", kGeneric, 0, "kernel generic event", "",
                      {{RoleKind::kCycles}}});
  t.events.push_back({"instructions", "", kGeneric, 1, "kernel generic event", "",
                      {{RoleKind::kInstructions}}});
  t.events.push_back({"RETIRED_SSE_AVX_FLOPS.ANY",
                      "RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:MULT_FLOPS:DIV_FLOPS:MAC_FLOPS", kRaw,
                      0x0f03, "perf amdzen5 fp_ret_sse_avx_ops.all; PPR 1Ah/02h PMCx003", "",
                      {{RoleKind::kFlopsAny}}, "fp_ret_sse_avx_ops.all"});
  t.events.push_back({"REQUESTS_TO_L2_GROUP1.DATA",
                      "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S", kRaw, 0xe060,
                      "perf amdzen5 l2_request_g1.all_dc; PPR 1Ah/02h PMCx060", "",
                      {lines(Boundary::kL2, kL2Note)}, "l2_request_g1.all_dc"});
  const std::string pf = "L2_STREAM:L2_NEXT_LINE:L2_UP_DOWN:L2_BURST:L2_STRIDE:L1_STREAM:"
                         "L1_STRIDE:L1_REGION";
  t.events.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_HIT_L3:" + pf, kRaw, 0xff71,
                      "perf amdzen5 l2_pf_miss_l2_hit_l3.l1_dc_l2_hwpf; PPR 1Ah/02h PMCx071",
                      "", {lines(Boundary::kLLC, kL3Note)}, "l2_pf_miss_l2_hit_l3.l1_dc_l2_hwpf"});
  t.events.push_back({"L2_PREFETCH_MISS_L3.ALL", "L2_PREFETCH_MISS_L3:" + pf, kRaw, 0xff72,
                      "perf amdzen5 l2_pf_miss_l2_l3.l1_dc_l2_hwpf; PPR 1Ah/02h PMCx072", "",
                      {lines(Boundary::kLLC, kL3Note), approx_dram(kDramNote)},
                      "l2_pf_miss_l2_l3.l1_dc_l2_hwpf"});
  t.events.push_back({"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C", kRaw, 0x0864,
                      "perf amdzen5 l2_cache_req_stat.ls_rd_blk_c; PPR 1Ah/02h PMCx064", "",
                      {lines(Boundary::kLLC, kL3Note)}, "l2_cache_req_stat.ls_rd_blk_c"});
  t.events.push_back({"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM",
                      "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR", kRaw, 0x4844,
                      "perf amdzen5 ls_any_fills_from_sys.dram_io_all; PPR 1Ah/02h PMCx044", "",
                      {approx_dram(kDramNote)}, "ls_any_fills_from_sys.dram_io_all"});
  t.groups.push_back(
      {"cycles", "instructions", "RETIRED_SSE_AVX_FLOPS.ANY", "REQUESTS_TO_L2_GROUP1.DATA"});
  t.groups.push_back({"L2_PREFETCH_HIT_L3.ALL", "L2_PREFETCH_MISS_L3.ALL",
                      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                      "ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM"});
  t.uncore_group = 1;
  t.uncore = UncoreKind::kAmdUmc;  // PerfMonV2 UMC counters, as on Zen 4
  t.notes.push_back(
      "FLOPs come from RETIRED_SSE_AVX_FLOPS (unit mask 0x0f: add/sub, mul, div/sqrt, "
      "FMA = 2), which does not split precision here: FLOP counts and intensities are "
      "precision-agnostic (SP and DP added together); BF16 FLOPs are not counted");
  t.notes.push_back("x87 FLOPs are not counted");
  return t;
}

}  // namespace

std::vector<CpuTable> amd_tables() {
  // Linux perf's names for the Zen 3 rows (arch/x86/amdzen3): the FLOP row
  // names the four operation masks (perf's .all writes 0xff).
  CpuTable zen3 = zen(false);
  zen3.perf_arch = "amdzen3";
  const std::pair<const char*, const char*> perf3[] = {
      {"RETIRED_SSE_AVX_FLOPS.ANY",
       "fp_ret_sse_avx_ops.add_sub_flops+fp_ret_sse_avx_ops.mult_flops+"
       "fp_ret_sse_avx_ops.div_flops+fp_ret_sse_avx_ops.mac_flops"},
      {"REQUESTS_TO_L2_GROUP1.DATA",
       "l2_request_g1.rd_blk_l+l2_request_g1.rd_blk_x+l2_request_g1.ls_rd_blk_c_s"},
      {"L2_PREFETCH_HIT_L3.ALL", "l2_pf_miss_l2_hit_l3"},
      {"L2_PREFETCH_MISS_L3.ALL", "l2_pf_miss_l2_l3"},
      {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C", "l2_cache_req_stat.ls_rd_blk_c"},
      {"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM",
       "ls_any_fills_from_sys.mem_io_local+ls_any_fills_from_sys.mem_io_remote"}};
  for (TableEvent& e : zen3.events) {
    for (const auto& [key, name] : perf3) {
      if (e.key == key) e.perf_json = name;
    }
  }
  CpuTable zen4 = zen(true);
  // Linux perf's names for the Zen 4 rows (arch/x86/amdzen4): l2_request_g1's
  // all_dc is 0xe8 there (it adds change_to_x), so the row names the three
  // data requests it counts.
  zen4.perf_arch = "amdzen4";
  const std::pair<const char*, const char*> perf[] = {
      {"RETIRED_SSE_AVX_FLOPS.ANY", "fp_ret_sse_avx_ops.all"},
      {"REQUESTS_TO_L2_GROUP1.DATA",
       "l2_request_g1.rd_blk_l+l2_request_g1.rd_blk_x+l2_request_g1.ls_rd_blk_c_s"},
      {"L2_PREFETCH_HIT_L3.ALL", "l2_pf_miss_l2_hit_l3.all"},
      {"L2_PREFETCH_MISS_L3.ALL", "l2_pf_miss_l2_l3.all"},
      {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C", "l2_cache_req_stat.ls_rd_blk_c"},
      {"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM", "ls_any_fills_from_sys.dram_io_all"}};
  for (TableEvent& e : zen4.events) {
    for (const auto& [key, name] : perf) {
      if (e.key == key) e.perf_json = name;
    }
  }
  return {zen2(), zen3, zen4, zen5()};
}

}  // namespace rprof
