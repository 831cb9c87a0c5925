#include "machine/machine.h"

#include <algorithm>
#include <cstdlib>

namespace rprof {

const PeakCeiling* CeilingSet::peak(Precision p, Width w) const {
  const PeakCeiling* best = nullptr;
  for (const PeakCeiling& c : peaks) {
    if (c.precision == p && c.width == w && (!best || c.gflops > best->gflops)) best = &c;
  }
  return best;
}

const PeakCeiling* CeilingSet::peak(Precision p, Width w, FlopMix m) const {
  for (const PeakCeiling& c : peaks) {
    if (c.precision == p && c.width == w && c.mix == m) return &c;
  }
  return nullptr;
}

const PeakCeiling* CeilingSet::top_peak(Precision p) const {
  for (int w = 3; w >= 0; --w) {
    if (const PeakCeiling* c = peak(p, static_cast<Width>(w))) return c;
  }
  return nullptr;
}

const BandwidthCeiling* CeilingSet::roof_bandwidth(Boundary b) const {
  const BandwidthCeiling* best = nullptr;
  for (const BandwidthCeiling& c : bandwidth) {
    if (c.boundary == b && (!best || c.boundary_gbs() > best->boundary_gbs())) best = &c;
  }
  return best;
}

const BandwidthCeiling* CeilingSet::bandwidth_of(Boundary b, StreamMix m) const {
  for (const BandwidthCeiling& c : bandwidth) {
    if (c.boundary == b && c.mix == m) return &c;
  }
  return nullptr;
}

const CeilingSet* Machine::nearest(int threads) const {
  const CeilingSet* best = nullptr;
  for (const CeilingSet& s : ceilings) {
    if (!best || std::abs(s.threads - threads) < std::abs(best->threads - threads) ||
        (std::abs(s.threads - threads) == std::abs(best->threads - threads) &&
         s.threads < best->threads)) {
      best = &s;
    }
  }
  return best;
}

int Machine::max_threads() const {
  int m = 0;
  for (const CeilingSet& s : ceilings) m = std::max(m, s.threads);
  return m;
}

}  // namespace rprof
