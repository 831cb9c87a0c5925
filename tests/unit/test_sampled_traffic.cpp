// The sampled cache model's 95% interval carried from the bytes to the
// rates (roofline/sampled_traffic.h): intensity = FLOPs / bytes_high ..
// FLOPs / bytes_low, bandwidth = bytes_low .. bytes_high / time / 1e9 (GB =
// 1e9 bytes), and independent estimates summed with half-widths in
// quadrature.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "profile/metrics.h"
#include "roofline/sampled_traffic.h"

using namespace rprof;

namespace {

Traffic sampled(double read, double write, double ci, double units) {
  Traffic t;
  t.measured = true;
  t.read_bytes = read;
  t.write_bytes = write;
  t.sampled = true;
  t.ci95_bytes = ci;
  t.sampled_units = units;
  return t;
}

}  // namespace

TEST_CASE("sampled traffic: 1e9 FLOPs over 4e9 +- 0.4e9 bytes in 2 s") {
  const auto s = sampled_boundary(Boundary::kDRAM, sampled(3e9, 1e9, 0.4e9, 412), 1e9, 2.0);
  REQUIRE(s);
  CHECK(s->boundary == Boundary::kDRAM);
  CHECK(s->bytes == Approx(4e9));
  CHECK(s->ci95_bytes == Approx(0.4e9));
  CHECK(s->units == 412);
  CHECK(s->bytes_lo == Approx(3.6e9));
  CHECK(s->bytes_hi == Approx(4.4e9));
  // OI 0.25 FLOP/byte, [1/4.4, 1/3.6] = [0.2273, 0.2778].
  REQUIRE(s->intensity);
  CHECK(*s->intensity == Approx(0.25));
  REQUIRE(s->intensity_ci);
  CHECK(s->intensity_ci->lo == Approx(0.227272727).epsilon(1e-8));
  REQUIRE(s->intensity_ci->hi);
  CHECK(*s->intensity_ci->hi == Approx(0.277777778).epsilon(1e-8));
  CHECK(s->intensity_ci->contains(0.25));
  CHECK(!s->intensity_ci->contains(0.28));
  // 2 GB/s, [1.8, 2.2] GB/s.
  REQUIRE(s->gbs);
  CHECK(*s->gbs == Approx(2.0));
  REQUIRE(s->gbs_ci);
  CHECK(s->gbs_ci->lo == Approx(1.8));
  CHECK(*s->gbs_ci->hi == Approx(2.2));
}

TEST_CASE("sampled traffic: an interval reaching 0 bytes has no upper intensity") {
  // 1e9 +- 1.5e9 bytes: bytes [0, 2.5e9] (clamped), intensity [0.4, unbounded).
  const auto s = sampled_boundary(Boundary::kL2, sampled(1e9, 0, 1.5e9, 3), 1e9, 1.0);
  REQUIRE(s);
  CHECK(s->bytes_lo == 0);
  CHECK(s->bytes_hi == Approx(2.5e9));
  REQUIRE(s->intensity_ci);
  CHECK(s->intensity_ci->lo == Approx(0.4));
  CHECK(!s->intensity_ci->hi);
  CHECK(s->intensity_ci->contains(1e12));
  CHECK(s->gbs_ci->lo == 0);
  CHECK(*s->gbs_ci->hi == Approx(2.5));
}

TEST_CASE("sampled traffic: no FLOPs, no time, not sampled") {
  const auto s = sampled_boundary(Boundary::kDRAM, sampled(4e9, 0, 0.4e9, 10), 0, 0);
  REQUIRE(s);
  CHECK(!s->intensity);
  CHECK(!s->intensity_ci);
  CHECK(!s->gbs);
  CHECK(!s->gbs_ci);
  Traffic exact = sampled(4e9, 0, 0, 0);
  exact.sampled = false;
  CHECK(!sampled_boundary(Boundary::kDRAM, exact, 1e9, 1.0));
  Metrics m;
  m.traffic[static_cast<int>(Boundary::kL1)] = exact;
  m.traffic[static_cast<int>(Boundary::kDRAM)] = sampled(4e9, 0, 0.4e9, 10);
  m.traffic[static_cast<int>(Boundary::kL2)] = sampled(8e9, 0, 0.1e9, 10);
  const std::vector<SampledBoundary> v = sampled_boundaries(m, 1e9, 1.0);
  REQUIRE(v.size() == 2);
  CHECK(v[0].boundary == Boundary::kL2);
  CHECK(v[1].boundary == Boundary::kDRAM);
}

TEST_CASE("sampled traffic: two threads' estimates add in quadrature") {
  // 3e9 +- 0.3e9 (100 units) + 1e9 +- 0.4e9 (50 units) = 4e9 +- 0.5e9.
  const Traffic t = combined_traffic(sampled(2e9, 1e9, 0.3e9, 100), sampled(1e9, 0, 0.4e9, 50));
  CHECK(t.measured);
  CHECK(t.sampled);
  CHECK(t.bytes() == Approx(4e9));
  CHECK(t.read_bytes == Approx(3e9));
  CHECK(t.ci95_bytes == Approx(0.5e9));
  CHECK(t.sampled_units == 150);
  // With an exact part: sampled, and only the sampled part's half-width.
  Traffic exact = sampled(1e9, 0, 0, 0);
  exact.sampled = false;
  const Traffic u = combined_traffic(exact, sampled(1e9, 0, 0.2e9, 7));
  CHECK(u.sampled);
  CHECK(u.bytes() == Approx(2e9));
  CHECK(u.ci95_bytes == Approx(0.2e9));
  const Traffic none = combined_traffic(exact, exact);
  CHECK(!none.sampled);
  CHECK(none.ci95_bytes == 0);
  // The difference of two runs: sqrt(0.3^2 + 0.4^2) = 0.5 (x 1e9).
  CHECK(difference_ci95(sampled(3e9, 0, 0.3e9, 1), sampled(2e9, 0, 0.4e9, 1)) ==
        Approx(0.5e9));
  CHECK(difference_ci95(exact, exact) == 0);
}

// The estimator (profile/metrics.cpp) on sums of known units: 12 units of
// x bytes at L1 and y bytes at DRAM; bytes = sum(y) / sum(x) times the exact
// L1 bytes, interval t(11) = 2.201 standard errors of the ratio, computed here from
// the units themselves.
TEST_CASE("sampled traffic: ratio estimate and 95% interval from the units' sums",
          "[sampled]") {
  const std::vector<double> x = {64000, 64000, 32000, 64000, 48000, 64000,
                                 64000, 16000, 64000, 64000, 64000, 40000};
  // Multiples of 64 bytes: the squares' sums are whole (counters are integers).
  const std::vector<double> yr = {16000, 19968, 8000, 16960, 12800, 16000,
                                  14976, 4800, 20992, 16000, 16000, 9600};
  const std::vector<double> yw = {3200, 0, 1600, 6400, 0, 3200, 6400, 0, 3200, 0, 6400, 1600};
  CounterMap c;
  double sx = 0, sxx = 0, sr = 0, sw = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xs = x[i] / 64, ys = (yr[i] + yw[i]) / 64;
    sx += x[i], sxx += xs * xs, sr += yr[i], sw += yw[i], syy += ys * ys, sxy += xs * ys;
  }
  c["sample.units"] = 12;
  c["sample.l1"] = static_cast<uint64_t>(sx);
  c["sample.l1.sq"] = static_cast<uint64_t>(sxx);
  c["sample.dram.read"] = static_cast<uint64_t>(sr);
  c["sample.dram.write"] = static_cast<uint64_t>(sw);
  c["sample.dram.sq"] = static_cast<uint64_t>(syy);
  c["sample.dram.xy"] = static_cast<uint64_t>(sxy);
  c["bytes.l1.read"] = 6e9;
  c["bytes.l1.write"] = 2e9;
  const Metrics m = metrics_from_counters(c);
  const Traffic& t = m.at(Boundary::kDRAM);
  REQUIRE(t.measured);
  CHECK(t.sampled);
  CHECK(t.sampled_units == 12);
  const double ratio = (sr + sw) / sx;
  CHECK(t.read_bytes == Approx(sr / sx * 8e9));
  CHECK(t.write_bytes == Approx(sw / sx * 8e9));
  // The ratio's variance from the units directly.
  double ss = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = (yr[i] + yw[i]) - ratio * x[i];
    ss += d * d;
  }
  const double xbar = sx / 12;
  const double se = std::sqrt(ss / 11 / 12) / xbar;
  CHECK(t.ci95_bytes == Approx(2.201 * se * 8e9).epsilon(1e-6));  // t, 11 degrees of freedom
  CHECK(t.ci95_bytes > 0);
  // Set sampling: the sample's own estimate of the L1 bytes (F times the
  // sampled bytes), 0.9 of the exact: the bytes are R x 0.9 X, the interval
  // the ratio's at that scale plus the two estimates' difference, R x 0.1 X.
  c["sample.l1.all"] = static_cast<uint64_t>(0.9 * 8e9);
  const Traffic h = metrics_from_counters(c).at(Boundary::kDRAM);
  CHECK(h.read_bytes == Approx(sr / sx * 8e9 * 0.9));
  CHECK(h.write_bytes == Approx(sw / sx * 8e9 * 0.9));
  CHECK(h.ci95_bytes == Approx(0.9 * 2.201 * se * 8e9 + 0.1 * ratio * 8e9).epsilon(1e-6));
  c.erase("sample.l1.all");
  // Four units: no estimate, and why.
  c["sample.units"] = 4;
  const Traffic u = metrics_from_counters(c).at(Boundary::kDRAM);
  CHECK_FALSE(u.measured);
  CHECK(u.note.find("4 sampling units, fewer than 5") != std::string::npos);
}

// The rotating classes (sample.aux.*, profile/metrics.cpp): 40 epochs of
// other classes at L2, whose ratio lies far beyond the fixed class's (its
// lines never miss L1: 0 bytes at L2). The fixed class's estimate stands;
// its interval is widened to the far end of theirs: the difference plus
// their interval, t (1.96 from 31 degrees of freedom) standard errors of
// their ratio plus half the span of their unsure fills.
TEST_CASE("sampled traffic: rotating classes widen the L2 interval where the fixed class is blind",
          "[sampled]") {
  CounterMap c;
  // The fixed class: 1 line in 64 (sample.l1.all = 64 x sample.l1), 50
  // units, no byte across L2.
  c["sample.units"] = 50;
  c["sample.l1"] = 6400000;
  c["sample.l1.sq"] = 50 * 2000 * 2000;  // 50 units of 128,000 bytes
  c["sample.l1.all"] = 64 * 6400000;
  c["bytes.l1.read"] = 64 * 6400000;
  c["bytes.l1.write"] = 0;
  // The rotating classes: 40 units of 64,000 bytes at L1; 4 of them (a
  // class whose L1 set the kernel thrashes) move 32,000 bytes across L2,
  // the others none; 4 lines of those fills unsure.
  const double n = 40, x = 64000, hot = 32000, unsure = 4 * 64;
  c["sample.aux.units"] = static_cast<uint64_t>(n);
  c["sample.aux.classes"] = 40;
  c["sample.aux.l1"] = static_cast<uint64_t>(n * x);
  c["sample.aux.l1.sq"] = static_cast<uint64_t>(n * (x / 64) * (x / 64));
  c["sample.aux.l2.read"] = static_cast<uint64_t>(4 * hot - unsure);
  c["sample.aux.l2.write"] = 0;
  c["sample.aux.l2.unsure"] = static_cast<uint64_t>(unsure);
  c["sample.aux.l2.sq"] = static_cast<uint64_t>(4 * (hot / 64) * (hot / 64));
  c["sample.aux.l2.xy"] = static_cast<uint64_t>(4 * (x / 64) * (hot / 64));
  const double l1 = 64 * 6400000.0;
  const Traffic t = metrics_from_counters(c).at(Boundary::kL2);
  REQUIRE(t.measured);
  CHECK(t.bytes() == 0);  // the fixed class's estimate stands
  // Their ratio: the certain fills plus half the unsure ones, over their L1 bytes.
  const double r = (4 * hot - unsure + 0.5 * unsure) / (n * x);
  double ss = 0;  // the units' residuals against r, in 64-byte units
  for (int i = 0; i < 40; ++i) {
    const double y = i < 4 ? hot / 64 : 0;
    ss += (y - r * x / 64) * (y - r * x / 64);
  }
  const double se = std::sqrt(n * ss / (n - 1)) / (n * x / 64);
  const double ci = 1.96 * se * l1 + 0.5 * unsure / (n * x) * l1;
  CHECK(t.ci95_bytes == Approx(r * l1 + ci).epsilon(1e-3));
  CHECK(t.note.str().find("widened to the estimate of 40 other classes") != std::string::npos);
  // Too few classes (under half the other 63), or over 10% of their fills
  // unsure: the fixed class's interval alone (the rule of three's, here).
  c["sample.aux.classes"] = 31;
  const double alone = metrics_from_counters(c).at(Boundary::kL2).ci95_bytes;
  CHECK(alone < 0.01 * t.ci95_bytes);
  c["sample.aux.classes"] = 40;
  c["sample.aux.l2.unsure"] = static_cast<uint64_t>(0.2 * 4 * hot);
  CHECK(metrics_from_counters(c).at(Boundary::kL2).ci95_bytes == Approx(alone));
}
