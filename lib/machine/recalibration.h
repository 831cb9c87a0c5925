// A new calibration against the previous one of the same machine: each
// figure measured in both, and how far it moved. Two quick calibrations of
// one machine should agree within kRecalibrationSpread on bandwidths; every
// roof fraction moves with its bandwidth, so `rprof machine` prints the
// figures that moved further (tools/rprof/machine_text.cpp).
#ifndef RPROF_MACHINE_RECALIBRATION_H_
#define RPROF_MACHINE_RECALIBRATION_H_

#include <cmath>
#include <string>
#include <vector>

#include "machine/machine.h"

namespace rprof {

inline constexpr double kRecalibrationSpread = 0.05;

struct FigureChange {
  enum class Kind { kPeak, kBandwidth, kLatency };
  Kind kind = Kind::kBandwidth;
  std::string figure;  // "DRAM copy (1 thread)"
  std::string unit;    // "GB/s", "GFLOP/s", "ns"
  double before = 0, after = 0;
  double change() const { return before > 0 ? after / before - 1 : 0; }
  bool within_aim() const { return std::abs(change()) <= kRecalibrationSpread; }
};

struct Recalibration {
  bool comparable = false;
  std::string why_not;                // when not comparable: one clause
  std::vector<FigureChange> figures;  // every figure both files hold, in `after`'s order
  // Of one kind: how many figures, the one that moved most (nullptr if none).
  int count(FigureChange::Kind k) const;
  int within_aim(
      FigureChange::Kind k) const;  // of them, how many moved at most kRecalibrationSpread
  const FigureChange* largest(FigureChange::Kind k) const;
};

// Comparable when both files are of the same CPU (vendor, family, model,
// name) and logical CPU count; figures are matched by thread count and key.
Recalibration compare_calibrations(const Machine& before, const Machine& after);

}  // namespace rprof

#endif  // RPROF_MACHINE_RECALIBRATION_H_
