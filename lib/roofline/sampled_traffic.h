// A sampled boundary's 95% interval, carried from the bytes to the rates.
// The sampled cache model (Traffic::sampled) estimates a boundary's bytes
// from sampled cache sets with a 95% confidence interval of +- ci95_bytes
// (half-width, of read + write); here that interval becomes one of
// intensity and of bandwidth. Units: bytes, FLOP/byte (FMA = 2 FLOPs),
// GB/s with GB = 1e9 bytes, bytes of all threads over the region's time.
//
//   bytes       [max(0, B - ci), B + ci]
//   intensity   [FLOPs / bytes_hi, FLOPs / bytes_lo]  (no upper end when bytes_lo = 0)
//   bandwidth   [bytes_lo, bytes_hi] / time / 1e9
//
// Independent sampling units add in quadrature: the sum of two estimates
// (two threads, ranks or runs) has half-width sqrt(ci_a^2 + ci_b^2), and so
// has their difference.
#ifndef RPROF_ROOFLINE_SAMPLED_TRAFFIC_H_
#define RPROF_ROOFLINE_SAMPLED_TRAFFIC_H_

#include <optional>
#include <vector>

#include "profile/metrics.h"

namespace rprof {

// A closed interval; hi nullopt = no upper end (an intensity whose lowest
// byte count is 0).
struct Interval {
  double lo = 0;
  std::optional<double> hi;
  bool contains(double v) const { return v >= lo && (!hi || v <= *hi); }
};

struct SampledBoundary {
  Boundary boundary = Boundary::kDRAM;
  double bytes = 0;                   // the estimate, read + write, all threads
  double ci95_bytes = 0;              // half-width of its 95% interval
  double units = 0;                   // sampling units behind it
  double bytes_lo = 0, bytes_hi = 0;  // bytes -+ ci95_bytes, bytes_lo clamped at 0
  // With FLOPs (> 0): the point intensity and its interval, FLOP/byte.
  std::optional<double> intensity;
  std::optional<Interval> intensity_ci;
  // With a time (> 0, not a bound): the achieved bandwidth and its
  // interval, GB/s.
  std::optional<double> gbs;
  std::optional<Interval> gbs_ci;
};

// The interval of one boundary's traffic; nullopt unless it is measured and
// sampled. flops <= 0 (none counted) or time_s <= 0 leave the rates out.
std::optional<SampledBoundary> sampled_boundary(Boundary b, const Traffic& t, double flops,
                                                double time_s);

// Every sampled boundary of a region's metrics, L1 first.
std::vector<SampledBoundary> sampled_boundaries(const Metrics& m, double flops, double time_s);

// The sum of two independent estimates of one boundary's traffic: bytes
// added, half-widths in quadrature, units added; sampled if either is,
// measured if either is, approximate if either is.
Traffic combined_traffic(const Traffic& a, const Traffic& b);

// Half-width of the 95% interval of b.bytes() - a.bytes(): sqrt(ci_a^2 +
// ci_b^2) (0 when neither is sampled).
double difference_ci95(const Traffic& a, const Traffic& b);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_SAMPLED_TRAFFIC_H_
