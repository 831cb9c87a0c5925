// How long and how often a calibration mode measures, and the working set
// used for each boundary (docs/machine-file.md, "Modes").
#ifndef RPROF_MACHINE_CALIBRATE_PLAN_H_
#define RPROF_MACHINE_CALIBRATE_PLAN_H_

#include <cstdint>

#include "machine/calibrate.h"
#include "machine/measure.h"

namespace rprof {

struct Plan {
  RepeatPlan peak, bw, sweep, lat, clock;
  int per_octave = 2;  // sweep points per doubling of the working set
  uint64_t dram_min = 0, dram_max = 0, chase_max = 0;  // bytes
  bool latency_all_sets = false;
};

Plan plan_for(CalibrationMode m);

uint64_t geomean(uint64_t a, uint64_t b);

}  // namespace rprof

#endif  // RPROF_MACHINE_CALIBRATE_PLAN_H_
