// From hardware counter values (hw.g<G>.<key>, perf_spec.h) to metrics.
//
// 1. Scaling: a group that was multiplexed counted only part of the time.
//    Per region, its events are scaled by enabled/running summed over the
//    region's calls and threads (a ratio estimator, as perf stat does for a
//    whole run); the lowest running/enabled is reported.
// 2. Formulas, by the roles of each key (event_tables.h):
//      FLOPs[p][w] = FP instructions[p][w] x lanes(p, w)   (FMA counts twice)
//        e.g. DP = SCALAR_D + 2*128B_PD + 4*256B_PD + 8*512B_PD
//      flops.any   = RETIRED_SSE_AVX_FLOPS                 (Zen: precision-agnostic)
//      bytes at a boundary = 64 x lines, per direction
//      DRAM from uncore when present, else the labelled LLC-miss stand-ins
//      miss occupancy = L1D_PEND_MISS.PENDING / L1D_PEND_MISS.PENDING_CYCLES
#ifndef RPROF_HWCOUNTERS_HW_METRICS_H_
#define RPROF_HWCOUNTERS_HW_METRICS_H_

#include <map>
#include <string>

#include "profile/metrics.h"
#include "profile/profile.h"

namespace rprof {

inline constexpr double kLineBytes = 64;  // every table counts 64-byte lines

struct ScaledCounts {
  std::map<std::string, double> counts;  // key -> scaled count (summed over groups)
  double min_ratio = 1;                  // lowest running/enabled of a group
  bool any = false;                      // hw.g* counters were present
  bool never_ran = false;                // a group was enabled but never counting
};

ScaledCounts scale_hw_counters(const CounterMap& counters);

// Fills metrics from hw.* counters; false when there are none. Canonical
// counters already in `m` are kept (this only adds what they lack).
bool hardware_translation(const CounterMap& counters, Metrics& m);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_HW_METRICS_H_
