#include "roofline/memory_view.h"

#include <algorithm>

namespace rprof {
namespace {

// The latency level behind a boundary, as the machine file names it.
const char* latency_level(Boundary b) {
  switch (b) {
    case Boundary::kL1: return "L1";
    case Boundary::kL2: return "L2";
    case Boundary::kLLC: return "L3";
    case Boundary::kDRAM: return "DRAM";
  }
  return "DRAM";
}

}  // namespace

const BoundaryBandwidth* MemoryView::at(Boundary b) const {
  for (const BoundaryBandwidth& x : boundaries) {
    if (x.boundary == b) return &x;
  }
  return nullptr;
}

std::optional<double> latency_behind(const Machine& m, Boundary b, int threads) {
  for (int t : {threads, 1}) {
    const CeilingSet* set = m.nearest(t);
    if (set == nullptr) continue;
    for (const LatencyCeiling& l : set->latency) {
      if (l.level == latency_level(b) || (b == Boundary::kLLC && l.level == "LLC")) {
        if (l.ns > 0) return l.ns;
      }
    }
  }
  return std::nullopt;
}

int line_bytes_of(const Machine* m) {
  if (m != nullptr && !m->caches.empty() && m->caches.front().line_bytes > 0) {
    return m->caches.front().line_bytes;
  }
  return 64;
}

std::optional<double> misses_in_flight(double line_misses, double latency_ns,
                                       double time_s, int threads) {
  if (!(latency_ns > 0) || !(time_s > 0) || threads < 1) return std::nullopt;
  return line_misses * latency_ns * 1e-9 / time_s / threads;
}

MemoryView memory_view(const Metrics& m, double time_s, int threads, const Machine& machine) {
  MemoryView v;
  v.threads = std::max(1, threads);
  v.time_s = time_s;
  v.line_bytes = line_bytes_of(&machine);
  if (!m.any_traffic()) {
    v.why_not = "no traffic counts (a counting backend is needed)";
    return v;
  }
  if (!(time_s > 0)) {
    v.why_not = "no elapsed time";
    return v;
  }
  const CeilingSet* set = machine.nearest(v.threads);
  if (set == nullptr) {
    v.why_not = "the machine file has no ceilings";
    return v;
  }
  v.ceiling_threads = set->threads;
  for (Boundary b : kBoundaries) {
    const Traffic& t = m.at(b);
    if (!t.measured || !(t.bytes() > 0)) continue;
    BoundaryBandwidth x;
    x.boundary = b;
    x.bytes = t.bytes();
    x.approximate = t.approximate;
    x.gbs = x.bytes / time_s / 1e9;
    const MixRoof mix = set->roof_bandwidth(b, t.write_bytes / t.bytes());
    if (const BandwidthCeiling* bw = mix.kernel()) {
      x.roof_gbs = mix.gbs;
      x.kernel = bw->mix;
      x.pages = bw->pages;
      x.write_share = mix.write_share;
      x.read_limited = mix.read_limited;
      x.best_gbs = mix.best->boundary_gbs();
      x.best_kernel = mix.best->mix;
      x.best_pages = mix.best->pages;
      x.read_gbs = mix.reads->read_gbs();
      x.read_kernel = mix.reads->mix;
      if (x.roof_gbs > 0) x.fraction = x.gbs / x.roof_gbs;
    }
    for (const BandwidthCeiling& c : set->bandwidth) {
      if (c.boundary == b && c.gbs > x.stream_roof_gbs) {
        x.stream_roof_gbs = c.gbs;
        x.stream_kernel = c.mix;
      }
    }
    if (b != Boundary::kL1) {
      x.line_misses = t.read_bytes / v.line_bytes;
      x.latency_ns = latency_behind(machine, b, v.threads);
      if (x.latency_ns) {
        x.in_flight = misses_in_flight(x.line_misses, *x.latency_ns, time_s, v.threads);
        x.in_flight_implausible = x.in_flight && *x.in_flight > kMaxLinesInFlightPerCore;
      }
    }
    if (x.roof_gbs > 0 && (!v.limiting || x.fraction > v.fraction)) {
      v.limiting = b;
      v.fraction = x.fraction;
    }
    if (b != Boundary::kL1 && x.roof_gbs > 0 &&
        (!v.latency_boundary || x.fraction > v.at(*v.latency_boundary)->fraction)) {
      v.latency_boundary = b;
    }
    v.boundaries.push_back(x);
  }
  if (v.boundaries.empty()) {
    v.why_not = "no bytes crossed any boundary";
    return v;
  }
  if (!v.limiting) {
    v.why_not = "the machine file has no bandwidth ceiling for the measured boundaries";
    return v;
  }
  v.valid = true;
  return v;
}

}  // namespace rprof
