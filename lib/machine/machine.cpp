#include "machine/machine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rprof {
namespace {

std::string mib(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.3g MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.3g KiB", static_cast<double>(bytes) / (1 << 10));
  }
  return buf;
}

}  // namespace

CacheSizeChoice chosen_cache_size(const CacheInfo& c) {
  CacheSizeChoice out;
  out.bytes = c.reported_bytes;
  // A private cache (L1, L2 of one CPU) is the core's own, which a virtual
  // machine reports as it is; only a shared cache can be the host's whole
  // one. A sweep that finds a private cache far smaller is disturbed.
  if (c.effective_bytes == 0 || (c.level <= 2 && c.shared_cpus <= 1)) return out;
  if (c.reported_bytes == 0) {
    out.bytes = c.effective_bytes;
    out.replaced = true;
    out.why = "L" + std::to_string(c.level) + " " + mib(c.effective_bytes) +
              " measured (no size reported)";
    return out;
  }
  const double ratio =
      static_cast<double>(c.reported_bytes) / static_cast<double>(c.effective_bytes);
  if (ratio <= kCacheContradictionFactor && ratio >= 1 / kCacheContradictionFactor) return out;
  out.bytes = c.effective_bytes;
  out.replaced = true;
  char f[32];
  std::snprintf(f, sizeof f, "%.3g", ratio >= 1 ? ratio : 1 / ratio);
  out.why = "L" + std::to_string(c.level) + " " + mib(c.effective_bytes) +
            " measured instead of the reported " + mib(c.reported_bytes) + " (" + f + "x " +
            (ratio >= 1 ? "smaller" : "larger") + ", beyond the factor " +
            std::to_string(static_cast<int>(kCacheContradictionFactor)) + ")";
  return out;
}

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

MixRoof CeilingSet::roof_bandwidth(Boundary b, double write_share) const {
  MixRoof r;
  r.write_share = std::clamp(write_share, 0.0, 1.0);
  r.best = roof_bandwidth(b);
  if (r.best == nullptr) return r;
  for (const BandwidthCeiling& c : bandwidth) {
    if (c.boundary == b && (!r.reads || c.read_gbs() > r.reads->read_gbs())) r.reads = &c;
  }
  r.gbs = r.best->boundary_gbs();
  if (r.write_share < 1) {
    const double read_limit = r.reads->read_gbs() / (1 - r.write_share);
    if (read_limit < r.gbs) {
      r.gbs = read_limit;
      r.read_limited = true;
    }
  }
  return r;
}

const BandwidthCeiling* CeilingSet::bandwidth_of(Boundary b, StreamMix m) const {
  const BandwidthCeiling* best = nullptr;
  for (const BandwidthCeiling& c : bandwidth) {
    if (c.boundary == b && c.mix == m && (!best || c.gbs > best->gbs)) best = &c;
  }
  return best;
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

const FpLatency* Machine::fp_latency_of(Precision p, FpOp op) const {
  for (const FpLatency& l : fp_latency) {
    if (l.precision == p && l.op == op && l.ns > 0) return &l;
  }
  return nullptr;
}

int Machine::max_threads() const {
  int m = 0;
  for (const CeilingSet& s : ceilings) m = std::max(m, s.threads);
  return m;
}

}  // namespace rprof
