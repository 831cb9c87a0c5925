#include "roofline/sampled_traffic.h"

#include <algorithm>
#include <cmath>

namespace rprof {

std::optional<SampledBoundary> sampled_boundary(Boundary b, const Traffic& t, double flops,
                                                double time_s) {
  if (!t.measured || !t.sampled) return std::nullopt;
  SampledBoundary s;
  s.boundary = b;
  s.bytes = t.bytes();
  s.ci95_bytes = std::max(0.0, t.ci95_bytes);
  s.units = t.sampled_units;
  s.bytes_lo = std::max(0.0, s.bytes - s.ci95_bytes);
  s.bytes_hi = s.bytes + s.ci95_bytes;
  if (flops > 0 && s.bytes_hi > 0) {
    if (s.bytes > 0) s.intensity = flops / s.bytes;
    Interval i;
    i.lo = flops / s.bytes_hi;
    if (s.bytes_lo > 0) i.hi = flops / s.bytes_lo;
    s.intensity_ci = i;
  }
  if (time_s > 0) {
    s.gbs = s.bytes / time_s / 1e9;
    s.gbs_ci = Interval{s.bytes_lo / time_s / 1e9, s.bytes_hi / time_s / 1e9};
  }
  return s;
}

std::vector<SampledBoundary> sampled_boundaries(const Metrics& m, double flops, double time_s) {
  std::vector<SampledBoundary> out;
  for (Boundary b : kBoundaries) {
    if (std::optional<SampledBoundary> s = sampled_boundary(b, m.at(b), flops, time_s)) {
      out.push_back(*s);
    }
  }
  return out;
}

Traffic combined_traffic(const Traffic& a, const Traffic& b) {
  Traffic t;
  t.measured = a.measured || b.measured;
  t.approximate = a.approximate || b.approximate;
  t.note = a.note.empty() ? b.note : a.note;
  t.read_bytes = a.read_bytes + b.read_bytes;
  t.write_bytes = a.write_bytes + b.write_bytes;
  t.sampled = a.sampled || b.sampled;
  t.ci95_bytes = std::hypot(a.sampled ? a.ci95_bytes : 0.0, b.sampled ? b.ci95_bytes : 0.0);
  t.sampled_units = a.sampled_units + b.sampled_units;
  return t;
}

double difference_ci95(const Traffic& a, const Traffic& b) {
  return std::hypot(a.sampled ? a.ci95_bytes : 0.0, b.sampled ? b.ci95_bytes : 0.0);
}

}  // namespace rprof
