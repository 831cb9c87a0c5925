#include "machine/sweep.h"

#include <algorithm>
#include <cmath>

namespace rprof {

std::vector<uint64_t> sweep_sizes(uint64_t lo, uint64_t hi, int per_octave, uint64_t granule) {
  std::vector<uint64_t> out;
  if (lo == 0 || hi < lo || per_octave < 1) return out;
  const double step = std::pow(2.0, 1.0 / per_octave);
  for (double s = static_cast<double>(lo); s <= static_cast<double>(hi) * 1.0001; s *= step) {
    uint64_t v = static_cast<uint64_t>(std::llround(s / static_cast<double>(granule))) * granule;
    v = std::max(v, granule);
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

std::vector<uint64_t> effective_capacities(const std::vector<uint64_t>& reported,
                                           const std::vector<SweepPoint>& points) {
  const size_t levels = reported.size();
  std::vector<uint64_t> eff(levels, 0);
  if (points.size() < 3 || levels == 0) return eff;
  // Plateau of each level: best bandwidth inside its window.
  std::vector<double> plateau(levels + 1, 0);
  for (size_t k = 0; k < levels; ++k) {
    const uint64_t lo = k == 0 ? 0 : 2 * reported[k - 1];
    const uint64_t hi = reported[k] / 2;
    for (const SweepPoint& p : points) {
      if (p.bytes >= lo && p.bytes <= hi) plateau[k] = std::max(plateau[k], p.gbs);
    }
  }
  // Memory: the mean of the two largest working sets, if they lie beyond
  // the last level's reported size; otherwise the sweep never left it.
  const size_t n = points.size();
  if (points[n - 1].bytes > reported.back()) {
    plateau[levels] = 0.5 * (points[n - 1].gbs + points[n - 2].gbs);
  } else {
    plateau[levels] = points[n - 1].gbs;
  }
  for (size_t k = 0; k < levels; ++k) {
    if (plateau[k] <= 0) continue;
    // The next plateau that was measured.
    double next = 0;
    for (size_t j = k + 1; j <= levels && next <= 0; ++j) next = plateau[j];
    // No clear drop (within 10 %): the sweep cannot place the edge.
    if (next <= 0 || plateau[k] < 1.1 * next) continue;
    const double threshold = std::sqrt(plateau[k] * next);
    const uint64_t start = k == 0 ? 0 : 2 * reported[k - 1];
    uint64_t last_above = 0;
    bool dropped = false;
    for (const SweepPoint& p : points) {
      if (p.bytes < start) continue;
      if (p.gbs < threshold) {
        dropped = true;
        break;
      }
      last_above = p.bytes;
    }
    if (dropped && last_above > 0) eff[k] = last_above;
  }
  return eff;
}

}  // namespace rprof
