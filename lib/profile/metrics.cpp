#include "profile/metrics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace rprof {
namespace {

const char* kPrecisionKeys[] = {"sp", "dp"};

// The inst backend's sampled cache simulation (backends/inst/inst_sample.h):
// each boundary's bytes estimated as the sampled ratio of its bytes to the
// measured L1 bytes, times the exact L1 bytes (a ratio estimator over
// sampling units), with the 95% interval of the ratio's standard error:
//   R = sum(y) / sum(x),  s^2 = sum((y - R x)^2) / (n - 1),
//   var(R) = n s^2 / sum(x)^2,  bytes = R X,  ci95 = t sqrt(var(R)) X,
// t Student's 97.5% quantile for n - 1 degrees of freedom (1.96 from 31),
// at least the sample's resolution, 3 lines (64 bytes) per sampled byte
// times the L1 bytes (the rule of three: a boundary no sampled line crossed
// has a 95% upper bound, not a zero-width interval).
// Set sampling (sample.l1.all, F times the sampled L1 bytes): every line has
// the same chance 1/F to be in the sample, so F times the sampled bytes
// (R X', X' = sample.l1.all) estimates the total without leaning on the
// sampled lines' share of the accesses, which a few hot lines that hit in L1
// can tilt (HPCCG's generate_matrix: its sampled lines took 0.90 of their
// share, and R X read 11% high at every boundary; R X' was exact). The
// estimate is R X'; the interval is the ratio's, scaled to it, widened by
// the two estimates' difference |R X' - R X|.
// Fewer than kMinSampledUnits units: no estimate (the boundary stays
// unmeasured, and says why).
double student_t975(double df) {
  static const double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                              2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                              2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                              2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return kT[0];
  if (df > 30) return 1.96;
  return kT[static_cast<int>(df) - 1];
}

// The rotating class (sample.aux.*, inst_sample.h): the L2 boundary over the
// other classes, each simulated in turn for an epoch in an L1 that starts
// cold. One class cannot show L1 misses that pile onto the sets of others (a
// 4 KiB stride: the fixed class's estimate of blocked matmul's L2 bytes was
// 20% low, its interval a fraction of that); the rotation samples them, but
// not as well as the fixed class measures its own: its fills into sets not
// yet full may be hits in the full model (l2.unsure), and a short epoch's
// class can be caught in a phase (on PolyBench bicg and gemver, programs
// without such a pile-up, its ratio read 7% to 60% off where the fixed
// class's was within 3%). So it checks the fixed class's estimate, never
// replaces it: once it has run through half of the other classes (at least
// kMinAuxClasses epochs; an epoch's part in the region is a unit, so the
// interval counts classes), has kMinSampledUnits units and at most
// kMaxAuxUnsure of its fills unsure, and its estimate lies beyond the two
// intervals from the fixed class's, the interval is widened to reach the far
// end of the rotating classes' (its own, over their units, plus half of what
// the unsure fills can be: 0 or 1 line read, and in the full model the
// eviction of a victim as often dirty as the certain fills').
inline constexpr double kMinAuxClasses = 8;
inline constexpr double kMaxAuxUnsure = 0.10;

template <typename Get>
void rotating_class_check(const Get& get, const std::string& prefix, Boundary b, double l1,
                          Traffic& t) {
  const std::string a = prefix + "sample.aux.";
  const double n = get(a + "units").value_or(0), classes = get(a + "classes").value_or(0);
  const double sx = get(a + "l1").value_or(0), sxx = get(a + "l1.sq").value_or(0);
  const double fixed_l1 = get(prefix + "sample.l1").value_or(0);
  const double all_l1 = get(prefix + "sample.l1.all").value_or(0);
  if (n < kMinSampledUnits || sx <= 0 || l1 <= 0 || fixed_l1 <= 0 || all_l1 <= fixed_l1) return;
  const double f = all_l1 / fixed_l1;  // F
  if (classes < std::max(kMinAuxClasses, (f - 1) / 2)) return;
  const std::string k = a + boundary_key(b);
  const double unsure = get(k + ".unsure").value_or(0);
  const double certain_r = get(k + ".read").value_or(0), certain_w = get(k + ".write").value_or(0);
  if (unsure > kMaxAuxUnsure * (certain_r + unsure)) return;
  const double rho = certain_r > 0 ? std::min(1.0, certain_w / certain_r) : 0.0;
  const double r = certain_r + 0.5 * unsure, w = certain_w + 0.5 * rho * unsure;
  const double syy = get(k + ".sq").value_or(0), sxy = get(k + ".xy").value_or(0);
  const double ratio = (r + w) / sx;
  const double xs = sx / 64.0;
  const double s2 = std::max(0.0, (syy - 2 * ratio * sxy + ratio * ratio * sxx) / (n - 1));
  const double ci =
      std::max(student_t975(n - 1) * std::sqrt(n * s2) / xs * l1, 3 * 64.0 / sx * l1) +
      0.5 * (1 + rho) * unsure / sx * l1;
  const double diff = std::fabs(ratio * l1 - t.bytes());
  if (diff <= ci + t.ci95_bytes) return;
  t.ci95_bytes = diff + ci;
  t.note = t.note + "; widened to the estimate of " +
           std::to_string(static_cast<long long>(classes)) +
           " other classes of lines, simulated in turn: the sampled lines' L1 sets may not "
           "be where this region's misses are";
}

// prefix: "" for the inst backend's counters, "model." for the model's
// beside hardware counters (the perf backend's runtime).
template <typename Get>
void estimate_sampled_traffic(const Get& get, std::array<Traffic, 4>& traffic,
                              const std::string& prefix = "") {
  const auto units = get(prefix + "sample.units");
  if (!units) return;
  const double n = *units;
  const double sx = get(prefix + "sample.l1").value_or(0);
  const double sxx = get(prefix + "sample.l1.sq").value_or(0);
  const double l1 = get(prefix + "bytes.l1.read").value_or(0) +
                    get(prefix + "bytes.l1.write").value_or(0);
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    const std::string k = prefix + "sample." + boundary_key(b);
    const double r = get(k + ".read").value_or(0), w = get(k + ".write").value_or(0);
    const double syy = get(k + ".sq").value_or(0), sxy = get(k + ".xy").value_or(0);
    Traffic& t = traffic[static_cast<int>(b)];
    t.sampled = true;
    t.sampled_units = n;
    if (n < kMinSampledUnits || sx <= 0) {
      t.measured = false;
      t.note = "not estimated: " + std::to_string(static_cast<long long>(n)) +
               " sampling unit" + (n == 1 ? "" : "s") + ", fewer than " +
               std::to_string(kMinSampledUnits) + " (a longer run or a higher --sample rate)";
      continue;
    }
    t.measured = true;
    // X' / X: the sample's own estimate of the L1 bytes against the exact.
    const std::optional<double> all = get(prefix + "sample.l1.all");
    const double scale = all && l1 > 0 ? *all / l1 : 1.0;
    t.read_bytes = r / sx * l1 * scale;
    t.write_bytes = w / sx * l1 * scale;
    const double ratio = (r + w) / sx;
    const double xs = sx / 64.0;  // the squares' unit
    const double s2 = std::max(0.0, (syy - 2 * ratio * sxy + ratio * ratio * sxx) / (n - 1));
    const double resolution = 3 * 64.0 / sx * l1;
    t.ci95_bytes = std::max(student_t975(n - 1) * std::sqrt(n * s2) / xs * l1, resolution) * scale +
                   std::fabs(scale - 1) * ratio * l1;
    t.note = "estimated from " + std::to_string(static_cast<long long>(n)) +
             " sampling units of the cache simulation (95% interval)";
    if (b == Boundary::kL2) rotating_class_check(get, prefix, b, l1, t);
  }
}

// rprof's cache model run beside hardware counters ("model.*" counters: the
// perf backend's runtime, for an instrumented program whose PMU counts no
// traffic at some boundary): it fills the boundaries the hardware left
// unmeasured or measured only through a stand-in (LLC misses for DRAM);
// a boundary the hardware counts keeps the hardware's number. Every
// boundary below L1 then says where its number came from.
template <typename Get>
void model_beside_hardware(const Get& get, Metrics& m) {
  std::array<Traffic, 4> model;
  bool any = false;
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    const std::string key = std::string("model.bytes.") + boundary_key(b);
    auto r = get(key + ".read");
    auto w = get(key + ".write");
    if (!r && !w) continue;
    any = true;
    Traffic& t = model[static_cast<int>(b)];
    t.measured = true;
    t.read_bytes = r.value_or(0);
    t.write_bytes = w.value_or(0);
    t.source = "rprof's cache model, every access simulated (--sample full)";
  }
  if (get("model.sample.units")) {
    any = true;
    estimate_sampled_traffic(get, model, "model.");
    for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
      Traffic& t = model[static_cast<int>(b)];
      const long long n = static_cast<long long>(t.sampled_units);
      t.source = "rprof's cache model, sampled (" + std::to_string(n) + " unit" +
                 (n == 1 ? "" : "s") + ")";
    }
  }
  if (!any) return;
  for (Boundary b : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    Traffic& t = m.traffic[static_cast<int>(b)];
    const Traffic& x = model[static_cast<int>(b)];
    if (t.measured && !t.stand_in) continue;  // the hardware's count wins
    if (!x.measured && (t.measured || !x.sampled)) continue;  // no better figure
    const std::string replaced =
        t.measured ? " (in place of " +
                         (t.source.empty() ? std::string("hardware events") : t.source.str()) +
                         ": an approximation)"
                   : "";
    t = x;
    t.model = true;
    if (!replaced.empty()) t.source = t.source + replaced;
  }
}

}  // namespace

double Metrics::flops_total() const {
  if (precision_agnostic) return flops_any;
  return flops_of(Precision::kSP) + flops_of(Precision::kDP);
}

double Metrics::flops_of(Precision p) const {
  double s = 0;
  for (int w = 0; w < 4; ++w) s += flops[static_cast<int>(p)][w];
  return s;
}

bool Metrics::any_traffic() const {
  for (const Traffic& t : traffic) {
    if (t.measured) return true;
  }
  return false;
}

std::optional<double> Metrics::vector_share() const {
  if (!has_fp_instructions) return std::nullopt;
  double scalar = 0, packed = 0;
  for (int p = 0; p < 2; ++p) {
    scalar += fp_instructions[p][0];
    for (int w = 1; w < 4; ++w) packed += fp_instructions[p][w];
  }
  if (scalar + packed == 0) return std::nullopt;
  return packed / (scalar + packed);
}

std::optional<Width> Metrics::widest_width() const {
  if (!has_flops || precision_agnostic) return std::nullopt;
  for (int w = 3; w >= 0; --w) {
    if (flops[0][w] + flops[1][w] > 0) return static_cast<Width>(w);
  }
  return std::nullopt;
}

std::optional<Precision> Metrics::dominant_precision() const {
  if (!has_flops || precision_agnostic) return std::nullopt;
  const double sp = flops_of(Precision::kSP), dp = flops_of(Precision::kDP);
  if (sp + dp == 0) return std::nullopt;
  return dp >= sp ? Precision::kDP : Precision::kSP;
}

Metrics metrics_from_counters(const CounterMap& c, const MetricTranslation& events) {
  Metrics m;
  auto get = [&](const std::string& k) -> std::optional<double> {
    auto it = c.find(k);
    if (it == c.end()) return std::nullopt;
    return static_cast<double>(it->second);
  };
  for (int p = 0; p < 2; ++p) {
    for (int w = 0; w < 4; ++w) {
      const std::string suffix =
          std::string(kPrecisionKeys[p]) + "." + width_name(static_cast<Width>(w));
      if (auto v = get("flops." + suffix)) {
        m.has_flops = true;
        m.flops[p][w] = *v;
      }
      if (auto v = get("fpins." + suffix)) {
        m.has_fp_instructions = true;
        m.fp_instructions[p][w] = *v;
      }
    }
  }
  if (auto v = get("flops.any"); v && !m.has_flops) {
    m.has_flops = true;
    m.precision_agnostic = true;
    m.flops_any = *v;
  }
  for (Boundary b : kBoundaries) {
    const std::string key = std::string("bytes.") + boundary_key(b);
    auto r = get(key + ".read");
    auto w = get(key + ".write");
    if (r || w) {
      Traffic& t = m.traffic[static_cast<int>(b)];
      t.measured = true;
      t.read_bytes = r.value_or(0);
      t.write_bytes = w.value_or(0);
    }
  }
  estimate_sampled_traffic(get, m.traffic);
  m.cycles = get("cycles");
  m.instructions = get("instructions");
  if (events) events(c, m);
  model_beside_hardware(get, m);
  return m;
}

}  // namespace rprof
