#include "report/sampled_report.h"

#include <fmt/format.h>

#include "report/table.h"

namespace rprof {

const char* const kSampledTrafficConventions =
    "sampled cache model: bytes estimated from sampled cache sets (F times the sampled "
    "lines' bytes), ± = half-width of the 95% confidence interval of read + write bytes, "
    "widened by the difference from the ratio estimate to the exact L1 bytes (all threads; "
    "independent units add in quadrature); at L2, widened to reach the estimate of other "
    "classes of lines, simulated in turn from a cold L1, where it lies beyond both "
    "intervals; GB = 1e9 bytes; intensity in FLOP/byte at "
    "the boundary (FMA = 2 FLOPs), "
    "its interval FLOPs / bytes_high .. FLOPs / bytes_low (no upper end when bytes_low is "
    "0); bandwidth GB/s = bytes / the region's time (slowest thread)";

namespace {

std::string num(double v) { return fmt::format("{:.4g}", v); }

std::string interval_text(const Interval& i) {
  return fmt::format("[{}, {}]", num(i.lo), i.hi ? num(*i.hi) : std::string("unbounded"));
}

}  // namespace

std::string sampled_bytes_text(const SampledBoundary& s) {
  return fmt::format("{} {} GB ± {} GB (95%, sampled: {:.0f} unit{})", boundary_name(s.boundary),
                     num(s.bytes / 1e9), num(s.ci95_bytes / 1e9), s.units, s.units == 1 ? "" : "s");
}

std::string sampled_intensity_text(const SampledBoundary& s) {
  if (!s.intensity_ci) return "";
  return fmt::format("{} FLOP/byte {}", s.intensity ? num(*s.intensity) : std::string("-"),
                     interval_text(*s.intensity_ci));
}

std::string sampled_gbs_text(const SampledBoundary& s) {
  if (!s.gbs || !s.gbs_ci) return "";
  return fmt::format("{} GB/s {}", num(*s.gbs), interval_text(*s.gbs_ci));
}

// Keys sorted, as the other analysis objects in profile.json.
void write_sampled_traffic_json(json_out::Writer& w, const std::vector<SampledBoundary>& v) {
  w.begin_array();
  for (const SampledBoundary& s : v) {
    w.begin_object();
    w.member("boundary", boundary_key(s.boundary));
    w.member("bytes", s.bytes);
    w.member("bytes_high", s.bytes_hi);
    w.member("bytes_low", s.bytes_lo);
    w.member("ci95_bytes", s.ci95_bytes);
    w.member("confidence", 0.95);
    w.member("conventions", kSampledTrafficConventions);
    w.member("gbs", s.gbs);
    w.member("gbs_high", s.gbs_ci ? s.gbs_ci->hi : std::nullopt);
    w.member("gbs_low", s.gbs_ci ? std::optional<double>(s.gbs_ci->lo) : std::nullopt);
    w.member("intensity", s.intensity);
    // null with intensity_low set: no upper end (bytes_low is 0).
    w.member("intensity_high", s.intensity_ci ? s.intensity_ci->hi : std::nullopt);
    w.member("intensity_low",
                    s.intensity_ci ? std::optional<double>(s.intensity_ci->lo) : std::nullopt);
    w.member("sampling_units", s.units);
    w.end_object();
  }
  w.end_array();
}

void write_sampled_traffic_text(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  bool any = a.any_sampled_traffic;
  for (const RegionAnalysis& ra : a.regions) any |= ra.metrics.at(Boundary::kDRAM).sampled;
  if (!any) return;
  std::vector<std::string> lines;
  bool unbounded = false;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    if (!shown[i]) continue;
    const Region& r = *ra.region;
    // Too few units: no estimate, and the reason (profile/metrics.cpp).
    const Traffic& dram = ra.metrics.at(Boundary::kDRAM);
    if (ra.sampled_traffic.empty() && dram.sampled && !dram.measured) {
      lines.push_back(std::string(2 + 2 * shown.depth(i, r), ' ') + printable(shown.name(i, r)) +
                      ": L2, LLC, DRAM " + dram.note);
      continue;
    }
    if (ra.sampled_traffic.empty()) continue;
    lines.push_back(std::string(2 + 2 * shown.depth(i, r), ' ') + printable(shown.name(i, r)) + ":");
    for (const SampledBoundary& s : ra.sampled_traffic) {
      std::string line = sampled_bytes_text(s);
      const std::string i_text = sampled_intensity_text(s), g_text = sampled_gbs_text(s);
      if (!i_text.empty()) line += "; I " + i_text;
      if (!g_text.empty()) line += "; " + g_text;
      unbounded |= s.intensity_ci && !s.intensity_ci->hi;
      std::string wrapped = wrap_paragraph(line, 4 + 2 * shown.depth(i, r), 2);
      wrapped.pop_back();  // the lines are written with their newlines below
      lines.push_back(std::move(wrapped));
    }
  }
  if (lines.empty()) return;
  out << "\n" << wrap_paragraph("Sampled traffic (" + std::string(kSampledTrafficConventions) + "):");
  for (const std::string& l : lines) out << l << "\n";
  if (unbounded) {
    out << "unbounded = the interval's low end of bytes is 0, so the intensity has no upper "
           "end.\n";
  }
}

std::string sampled_csv_header() {
  std::string h;
  for (Boundary b : kBoundaries) {
    h += fmt::format(
        ",traffic_{0}_ci95_bytes,traffic_{0}_bytes_low,traffic_{0}_bytes_high,"
        "traffic_{0}_sampling_units,intensity_{0}_low,intensity_{0}_high",
        boundary_key(b));
  }
  return h;
}

std::string sampled_csv_cells(const RegionAnalysis& ra) {
  std::string c;
  for (Boundary b : kBoundaries) {
    const SampledBoundary* s = nullptr;
    for (const SampledBoundary& x : ra.sampled_traffic) {
      if (x.boundary == b) s = &x;
    }
    if (s == nullptr) {
      c += ",,,,,,";
      continue;
    }
    c += fmt::format(",{:.17g},{:.17g},{:.17g},{:.17g},", s->ci95_bytes, s->bytes_lo, s->bytes_hi,
                     s->units);
    if (s->intensity_ci) c += fmt::format("{:.9g}", s->intensity_ci->lo);
    c += ",";
    // Empty with a low end: no upper end (bytes_low is 0).
    if (s->intensity_ci && s->intensity_ci->hi) c += fmt::format("{:.9g}", *s->intensity_ci->hi);
  }
  return c;
}

}  // namespace rprof
