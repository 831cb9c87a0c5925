// Effective cache capacities from a working-set sweep of load bandwidth.
// On shared or virtual machines a level can hold far less than sysfs says
// (a "300 MiB" L3 that runs at memory speed from 64 MB on); the sweep finds
// where bandwidth actually drops.
//
// Rule (docs/machine-file.md): the plateau of level k is the best bandwidth
// between twice the previous level's reported size and half its own; the
// plateau after the last level is memory (the largest working sets). The
// effective capacity of level k is the largest swept size, from its window
// on, before the bandwidth first falls below the geometric mean of its
// plateau and the next one.
#ifndef RPROF_MACHINE_SWEEP_H_
#define RPROF_MACHINE_SWEEP_H_

#include <cstdint>
#include <vector>

#include "machine/machine.h"

namespace rprof {

// Working-set sizes from lo to hi (bytes), `per_octave` per doubling,
// rounded to multiples of `granule` bytes.
std::vector<uint64_t> sweep_sizes(uint64_t lo, uint64_t hi, int per_octave, uint64_t granule);

// reported: sizes of the levels, ascending (per thread's share). points:
// ascending by size. Returns one effective size per level; 0 where the sweep
// cannot tell (no point inside the level, or no drop after it).
std::vector<uint64_t> effective_capacities(const std::vector<uint64_t>& reported,
                                           const std::vector<SweepPoint>& points);

}  // namespace rprof

#endif  // RPROF_MACHINE_SWEEP_H_
