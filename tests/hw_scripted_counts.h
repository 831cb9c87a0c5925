// Scripted hardware counts shared by the tests that drive the hardware
// backends without a PMU: test_hw_machines (through the plan, the formulas and
// the classifier) and test_perf_fake_pmu (through the real perf_event reads,
// tests/integration/fake_pmu). Every event of every table must be scripted
// here: an unknown one fails the test that meets it.
#ifndef RPROF_TESTS_HW_SCRIPTED_COUNTS_H_
#define RPROF_TESTS_HW_SCRIPTED_COUNTS_H_

#include <algorithm>
#include <map>
#include <string>

#include "common/kinds.h"
#include "machine/machine_file.h"

namespace rprof::test {

struct Kernel {
  const char* name;
  double flops;        // DP, 256-bit FMA
  double read_lines;   // per boundary
  double write_lines;  // per boundary
};

// The count of `key` for kernel k running `cycles` cycles; false for an
// event this test does not know (a new table event must be scripted here).
inline bool scripted(const std::string& key, const Kernel& k, double cycles, double* n) {
  const double r = k.read_lines, w = k.write_lines;
  const std::map<std::string, double> counts = {
      {"cycles", cycles},
      {"instructions", 2 * cycles},
      // Intel: FP_ARITH counts an FMA instruction twice; 4 DP lanes.
      {"FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE", k.flops / 4},
      {"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 0},
      {"FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE", 0},
      {"FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE", 0},
      {"FP_ARITH_INST_RETIRED.SCALAR_SINGLE", 0},
      {"FP_ARITH_INST_RETIRED.128B_PACKED_SINGLE", 0},
      {"FP_ARITH_INST_RETIRED.256B_PACKED_SINGLE", 0},
      {"FP_ARITH_INST_RETIRED.512B_PACKED_SINGLE", 0},
      {"L1D.REPLACEMENT", r},
      {"L1D.M_EVICT", w},
      {"L2_TRANS.L1D_WB", w},
      {"L2_LINES_IN.ALL", r},
      {"L2_LINES_OUT.NON_SILENT", w},
      {"L2_TRANS.L2_WB", w},
      {"LONGEST_LAT_CACHE.MISS", r},
      {"L1D_PEND_MISS.PENDING", 2 * cycles},  // 4 misses in flight on average
      {"L1D_PEND_MISS.PENDING_CYCLES", cycles / 2},
      // AMD: FLOPs directly (FMA = 2). L2<->LLC reads split between demand
      // misses (1/4) and L2 prefetches that missed L3 (3/4); DRAM reads are
      // those prefetches plus the demand fills from DRAM (1/4).
      {"RETIRED_SSE_AVX_FLOPS.ANY", k.flops},
      {"REQUESTS_TO_L2_GROUP1.DATA", r},
      {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C", r / 4},
      {"L2_PREFETCH_HIT_L3.ALL", 0},
      {"L2_PREFETCH_MISS_L3.ALL", 3 * r / 4},
      {"ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM", r / 4},
      {"DATA_CACHE_REFILLS_FROM_SYSTEM.DRAM", r / 4},
  };
  auto it = counts.find(key);
  if (it == counts.end()) return false;
  *n = it->second;
  return true;
}

// The roof the dense kernel is held to: on Intel the DP 256-bit add/mul roof
// (FP_ARITH counts an FMA as two instructions, so the mix is not known and
// the lower roof applies); on AMD, whose FLOP count has no precision or
// width, the machine's highest roof. 0 when the machine has none.
inline double dense_roof(const Machine& m, bool amd) {
  double roof = 0;
  for (const auto& p : m.ceilings.front().peaks) {
    if (amd) {
      roof = std::max(roof, p.gflops);
    } else if (p.precision == Precision::kDP && p.width == Width::k256 &&
               p.mix == FlopMix::kAddMul) {
      roof = p.gflops;
    }
  }
  return roof;
}

// The roof at DRAM for a mix with this share of bytes written (MixRoof:
// the one a region is held against), GB/s; 0 if none.
inline double dram_roof_for_mix(const Machine& m, double write_share) {
  return m.ceilings.front().roof_bandwidth(Boundary::kDRAM, write_share).gbs;
}

// The machine's best bandwidth at one boundary ("dram", ...), GB/s; 0 if none.
inline double best_bandwidth(const Machine& m, const std::string& boundary) {
  double g = 0;
  for (const auto& b : m.ceilings.front().bandwidth) {
    if (boundary_key(b.boundary) == boundary) g = std::max(g, b.boundary_gbs());
  }
  return g;
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_HW_SCRIPTED_COUNTS_H_
