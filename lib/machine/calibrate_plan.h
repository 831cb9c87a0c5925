// How long and how often a calibration mode measures, and the working set
// used for each boundary (docs/machine-file.md, "Modes").
#ifndef RPROF_MACHINE_CALIBRATE_PLAN_H_
#define RPROF_MACHINE_CALIBRATE_PLAN_H_

#include <cstdint>

#include "machine/calibrate.h"
#include "machine/measure.h"

namespace rprof {

// An LLC latency above this share of the DRAM latency is not an LLC hit
// (calibrate.cpp measure_latency measures it again at a smaller working set).
inline constexpr double kLlcDramLatencyRatio = 0.5;
// A chase whose latency falls by more than this factor at half the working
// set did not sit in its level at the larger one.
inline constexpr double kLatencyStep = 1.5;

struct Plan {
  RepeatPlan peak, bw, sweep, lat, clock;
  int per_octave = 2;  // sweep points per doubling of the working set
  uint64_t dram_min = 0, dram_max = 0, chase_max = 0;  // bytes
  bool latency_all_sets = false;
  // Untimed streaming before a working set beyond the LLC is timed (RepeatPlan::warm_s).
  double dram_warm_s = 0;
  // A latency chase's warm-up, at most (calibrate.cpp measure_latency).
  double chase_warm_max_s = 0;
};

Plan plan_for(CalibrationMode m);

uint64_t geomean(uint64_t a, uint64_t b);

}  // namespace rprof

#endif  // RPROF_MACHINE_CALIBRATE_PLAN_H_
