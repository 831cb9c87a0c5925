#include "report/bandwidth_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report/chart_model.h"
#include "report/chart_scale.h"
#include "report/markup.h"
#include "report/svg_parts.h"

namespace rprof {
namespace {

constexpr double kWidth = 760, kPlotX = 80, kPlotY = 48, kPlotW = 640, kPlotH = 280;

struct Bar {
  std::string name;
  const BoundaryBandwidth* b = nullptr;
  bool limiting = false;
};

}  // namespace

std::string render_bandwidth_svg(const Analysis& a, bool standalone) {
  if (!a.any_memory) return "";
  std::set<Boundary> shown;
  double lo = INFINITY, hi = 0;
  std::vector<std::pair<std::string, const MemoryView*>> views;
  const ShownRegions& kept = a.shown;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const MemoryView* mv = ra.valid_memory();
    if (mv == nullptr || ra.region->is_program() || !kept[i]) continue;
    views.emplace_back(path_string(ra.region->path), mv);
    for (const BoundaryBandwidth& b : mv->boundaries) {
      shown.insert(b.boundary);
      for (double v : {b.gbs, b.roof_gbs}) {
        if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
    }
  }
  if (views.empty() || !(hi > 0)) return "";
  // Whole decades around the data: bars start at the axis' bottom.
  // At most kMaxDecades (a crafted time of 1e-305 s gives 1e300 GB/s beside
  // 1 GB/s): the bars below the axis start at its bottom.
  constexpr double kMaxDecades = 24;
  const double y1 = std::ceil(std::log10(hi)) + (std::log10(hi) == std::ceil(std::log10(hi)) ? 1 : 0);
  const double y0 = std::max(std::floor(std::log10(lo)) - (lo == hi ? 1 : 0), y1 - kMaxDecades);
  auto y = [&](double gbs) {
    const double t = std::clamp((std::log10(gbs) - y0) / (y1 - y0), 0.0, 1.0);
    return kPlotY + kPlotH - t * kPlotH;
  };
  std::string o;
  // Decade grid and labels (GB/s, GB = 1e9 bytes).
  for (double d = y0; d <= y1 + 1e-9; d += 1) {
    const double py = y(std::pow(10.0, d));
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#d8dee4\"/>\n",
                     svg_px(kPlotX), svg_px(kPlotX + kPlotW), svg_px(py));
    svg_text(o, kPlotX - 6, py + 4, fmt::format("{:g}", std::pow(10.0, d)),
             "text-anchor=\"end\" font-size=\"11\"");
  }
  svg_text(o, 18, kPlotY + kPlotH / 2, "achieved bandwidth [GB/s, GB = 1e9 bytes]",
           fmt::format("font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\"",
                       svg_px(kPlotY + kPlotH / 2)));
  const double gw = kPlotW / static_cast<double>(shown.size());
  const double bw = std::min(28.0, 0.8 * gw / static_cast<double>(views.size()));
  const size_t every = static_cast<size_t>(
      std::ceil((text_width(std::to_string(views.size()), 9) + 3) / bw));
  int gi = 0;
  for (Boundary bd : shown) {
    const double gx = kPlotX + gi++ * gw;
    svg_text(o, gx + gw / 2, kPlotY + kPlotH + 18,
             fmt::format("{} boundary", boundary_name(bd)),
             "text-anchor=\"middle\" font-size=\"12\"");
    const double start = gx + (gw - bw * static_cast<double>(views.size())) / 2;
    for (size_t i = 0; i < views.size(); ++i) {
      const BoundaryBandwidth* b = views[i].second->at(bd);
      if (b == nullptr || !(b->gbs > 0) || !std::isfinite(b->gbs)) continue;
      const double x = start + bw * static_cast<double>(i);
      const double top = y(b->gbs);
      // A time bound (a function no sample hit): the bar is a lower bound.
      const bool least = views[i].second->lower_bound;
      const std::string tip = fmt::format(
          "{} at {}: {}{:.4g} GB/s{}{}", views[i].first, boundary_name(bd), least ? ">= " : "",
          b->gbs,
          b->roof_gbs > 0 ? fmt::format(", {}{:.0f}% of the {:.4g} GB/s roof ({} thread{})",
                                        least ? ">= " : "", 100 * b->fraction, b->roof_gbs,
                                        views[i].second->ceiling_threads,
                                        views[i].second->ceiling_threads == 1 ? "" : "s")
                          : "",
          least ? " (a lower bound: no cpu-clock sample hit it)" : "");
      o += fmt::format(
          "<rect data-role=\"bandwidth-bar\" data-region=\"{}\" data-boundary=\"{}\" "
          "data-gbs=\"{}\" data-roof-gbs=\"{}\" data-fraction=\"{}\" data-lower-bound=\"{}\" "
          "x=\"{}\" y=\"{}\" "
          "width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{}\"><title>{}</title></rect>\n",
          xml_escape(views[i].first), boundary_key(bd), svg_num(b->gbs), svg_num(b->roof_gbs),
          svg_num(b->fraction), least ? "true" : "false", svg_px(x + 1), svg_px(top),
          svg_px(bw - 2),
          svg_px(kPlotY + kPlotH - top), boundary_colour(bd),
          views[i].second->limiting == bd ? "0.9" : "0.45", xml_escape(tip));
      if (b->roof_gbs > 0 && std::isfinite(b->roof_gbs)) {
        o += fmt::format(
            "<line data-role=\"bandwidth-roof\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" "
            "stroke=\"{3}\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\n",
            svg_px(x), svg_px(x + bw), svg_px(y(b->roof_gbs)), kSvgInk);
        // Over the bar where it fits its width; else the legend line says it.
        const std::string pct = fmt::format("{}{:.0f}%", least ? "\u2265" : "", 100 * b->fraction);
        if (1.2 * text_width(pct, 9) + 2 <= bw) {  // the estimate's margin
          svg_text(o, x + bw / 2, std::max(top - 3, kPlotY - 2), pct,
                   "data-role=\"bandwidth-fraction\" text-anchor=\"middle\" font-size=\"9\"");
        }
      }
      // The region's number under its bar, every `every`-th where they do not fit.
      if (i % every == 0) {
        svg_text(o, x + bw / 2, kPlotY + kPlotH + 32, std::to_string(i + 1),
                 "text-anchor=\"middle\" font-size=\"9\" fill=\"#5b6470\"");
      }
    }
  }
  double ly = kPlotY + kPlotH + 52;
  for (size_t i = 0; i < views.size(); ++i, ly += 15) {
    // The region's name cut to what the line leaves it.
    const std::string tail = fmt::format(
        " (limiting: {}, {}{:.0f}% of its roof{})", boundary_name(*views[i].second->limiting),
        views[i].second->lower_bound ? "at least " : "", 100 * views[i].second->fraction,
        views[i].second->lower_bound ? "; no sample hit it: a lower bound" : "");
    const std::string head = fmt::format("{}: ", i + 1);
    const double room = kWidth - kPlotX - 16 - text_width(head + tail, 11);
    svg_text(o, kPlotX, ly, head + fit_text(views[i].first, std::max(room, 60.0), 11) + tail,
             "font-size=\"11\"");
  }
  const double bottom = svg_footer(
      {"Bars: bytes crossing each boundary (all threads) / region time, GB = 1e9 bytes; "
       "dashed: the boundary's measured bandwidth roof for the region's thread count "
       "(write-allocate counted below L1); % = fraction of that roof; the limiting "
       "boundary is drawn darker."},
      24, ly + 4, kWidth - 48, o);
  std::string head = standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : "";
  head += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\" data-role=\"bandwidth-chart\">\n"
      "<title>Bandwidth per boundary against the measured roofs</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
      svg_px(kWidth), svg_px(bottom + 8));
  svg_text(head, kPlotX, 28, "Bandwidth per boundary (GB/s, GB = 1e9 bytes) against the measured roofs",
           "font-size=\"14\" font-weight=\"bold\"");
  return head + o + "</svg>\n";
}

}  // namespace rprof
