#include "profile/metrics.h"

#include <vector>

namespace rprof {
namespace {

const char* kPrecisionKeys[] = {"sp", "dp"};

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
  m.cycles = get("cycles");
  m.instructions = get("instructions");
  if (events) events(c, m);
  return m;
}

}  // namespace rprof
