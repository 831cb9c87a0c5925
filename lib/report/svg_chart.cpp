#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <utility>

#include "report/markup.h"
#include "report/chart_layout.h"
#include "report/svg_parts.h"

namespace rprof {
namespace {

constexpr const char* kInk = kSvgInk;
constexpr const char* kMuted = kSvgMuted;
std::string n(double v) { return svg_num(v); }
std::string px(double v) { return svg_px(v); }
std::string esc(const std::string& s) { return xml_escape(s); }

// Pixels (chart_layout.h): the plot is square-ish so that a slope of 1 on
// log-log axes (a bandwidth line) looks like one.
constexpr double kWidth = ChartLayout::kWidth;
constexpr double kPlotX = ChartLayout::kPlotX, kPlotW = ChartLayout::kPlotW;
constexpr double kPlotH = ChartLayout::kPlotH;
constexpr double kFont = ChartLayout::kFont;
constexpr const char* kFontFamily =
    "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";
class SvgWriter {
 public:
  explicit SvgWriter(const ChartModel& c)
      : c_(c), l_(layout_chart(c)), x_(l_.x), y_(l_.y), plot_y_(l_.plot_y) {}
  std::string render(bool standalone);

 private:
  void axes();
  void ceilings();
  void regions();
  void label(const ChartLabel& l, const std::string& attrs);
  void text(double x, double y, const std::string& s, const std::string& attrs) {
    svg_text(o_, x, y, s, attrs);
  }

  const ChartModel& c_;
  const ChartLayout l_;
  const LogAxis x_, y_;
  const double plot_y_;
  std::string o_;
};

// A placed label; away from its dot, a thin line to it.
void SvgWriter::label(const ChartLabel& l, const std::string& attrs) {
  const Placement& pl = l.at;
  if (pl.leader) {
    const double lx = std::clamp(l.to_x, pl.box.x, pl.box.x + pl.box.w);
    const double ly = std::clamp(l.to_y, pl.box.y, pl.box.y + pl.box.h);
    o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#9aa1ab\" "
                      "stroke-width=\"0.8\"/>\n", px(l.to_x), px(l.to_y), px(lx), px(ly));
  }
  text(pl.x, pl.y, l.text,
       fmt::format("{} data-box=\"{} {} {} {}\" text-anchor=\"{}\" stroke=\"#ffffff\" "
                   "stroke-width=\"3\" paint-order=\"stroke\" stroke-linejoin=\"round\"",
                   attrs, px(pl.box.x), px(pl.box.y), px(pl.box.w), px(pl.box.h), pl.anchor));
}

void SvgWriter::axes() {
  o_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fbfcfd\" "
                    "stroke=\"#c9ced6\"/>\n", px(kPlotX), px(plot_y_), px(kPlotW), px(kPlotH));
  o_ += "<g data-role=\"grid\" stroke-width=\"1\">\n";
  for (double v : x_.minor_ticks()) {
    o_ += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eef0f3\"/>\n",
                      px(x_.to_px(v)), px(plot_y_), px(plot_y_ + kPlotH));
  }
  for (double v : y_.minor_ticks()) {
    o_ += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#eef0f3\"/>\n",
                      px(y_.to_px(v)), px(kPlotX), px(kPlotX + kPlotW));
  }
  for (double v : x_.decades()) {
    const double xp = x_.to_px(v);
    o_ += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#dde1e6\"/>\n",
                      px(xp), px(plot_y_), px(plot_y_ + kPlotH + 5));
    text(xp, plot_y_ + kPlotH + 19, decade_label(v),
         fmt::format("data-role=\"x-tick\" data-value=\"{}\" text-anchor=\"middle\" fill=\"{}\"",
                     n(v), kMuted));
  }
  for (double v : y_.decades()) {
    const double yp = y_.to_px(v);
    o_ += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#dde1e6\"/>\n",
                      px(yp), px(kPlotX - 5), px(kPlotX + kPlotW));
    text(kPlotX - 8, yp + 4, decade_label(v),
         fmt::format("data-role=\"y-tick\" data-value=\"{}\" text-anchor=\"end\" fill=\"{}\"",
                     n(v), kMuted));
  }
  o_ += "</g>\n";
  text(kPlotX + kPlotW / 2, plot_y_ + kPlotH + 44, "Arithmetic intensity [FLOP/byte]",
       fmt::format("data-role=\"x-axis-label\" text-anchor=\"middle\" font-size=\"13\" "
                   "fill=\"{}\"", kInk));
  o_ += fmt::format("<text data-role=\"y-axis-label\" transform=\"translate({},{}) rotate(-90)\" "
                    "text-anchor=\"middle\" font-size=\"13\" fill=\"{}\">Performance "
                    "[GFLOP/s]</text>\n", px(kPlotX - 54), px(plot_y_ + kPlotH / 2), kInk);
}

void SvgWriter::ceilings() {
  const double top = c_.roofs.empty() ? y_.hi : c_.roofs.front().roof.gflops;
  double fastest = 0;
  for (const ChartBandwidth& b : c_.bandwidths) fastest = std::max(fastest, b.gbs);
  o_ += "<g clip-path=\"url(#rprof-plot)\">\n";
  for (const ChartBandwidth& b : c_.bandwidths) {
    // B * I up to the top roof, where the bandwidth stops being the limit.
    const double i0 = x_.lo, i1 = std::min(x_.hi, top / b.gbs);
    const double x0 = x_.to_px(i0), y0 = y_.to_px(b.gbs * i0);
    const double x1 = x_.to_px(i1), y1 = y_.to_px(b.gbs * i1);
    o_ += fmt::format(
        "<g data-role=\"bandwidth-ceiling\" data-boundary=\"{}\" data-gbs=\"{}\" "
        "data-kernel=\"{}\"><title>{} bandwidth {} GB/s ({})</title>\n"
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.2\" "
        "stroke-linecap=\"round\"/></g>\n",
        boundary_key(b.boundary), n(b.gbs), stream_key(b.kernel), boundary_name(b.boundary),
        human_number(b.gbs), esc(b.how), px(x0), px(y0), px(x1), px(y1),
        boundary_colour(b.boundary));
  }
  for (size_t k = 0; k < c_.roofs.size(); ++k) {
    const ChartRoof& r = c_.roofs[k];
    const double start = fastest > 0 ? std::max(x_.lo, r.roof.gflops / fastest) : x_.lo;
    const double yp = y_.to_px(r.roof.gflops);
    o_ += fmt::format(
        "<g data-role=\"compute-ceiling\" data-label=\"{}\" data-gflops=\"{}\" "
        "data-applied=\"{}\"><title>{} peak {} GFLOP/s ({})</title>\n"
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/></g>\n",
        esc(r.roof.label()), n(r.roof.gflops), r.applied ? "true" : "false",
        esc(roof_text(r.roof)), human_number(r.roof.gflops), esc(r.how), px(x_.to_px(start)),
        px(yp), px(kPlotX + kPlotW), px(yp), k == 0 ? kInk : "#6b7280", k == 0 ? "2.4" : "1.6",
        k == 0 ? "" : " stroke-dasharray=\"6 4\"");
  }
  o_ += "</g>\n";
  // Labels where the layout put them.
  for (const RoofLabel& r : l_.roofs) {
    std::string roofs;
    for (size_t k : r.roofs) roofs += (roofs.empty() ? "" : " ") + c_.roofs[k].roof.label();
    label(r.label, fmt::format("data-role=\"ceiling-label\" data-roofs=\"{}\" font-weight=\"600\" "
                               "fill=\"{}\"", esc(roofs), kInk));
  }
  for (const BandwidthLabel& b : l_.bandwidths) {
    const Boundary bd = c_.bandwidths[b.bandwidth].boundary;
    o_ += fmt::format(
        "<text data-role=\"bandwidth-label\" data-boundary=\"{}\" transform=\"translate({},{}) "
        "rotate({:.2f})\" fill=\"{}\" font-weight=\"600\">{}</text>\n",
        boundary_key(bd), px(b.x), px(b.y), b.angle, boundary_colour(bd), esc(b.text));
  }
  for (const ChartRidge& r : c_.ridges) {
    const double xp = x_.to_px(r.intensity), yp = y_.to_px(r.gflops);
    if (!x_.contains(r.intensity) || !y_.contains(r.gflops)) continue;
    o_ += fmt::format(
        "<g data-role=\"ridge\" data-boundary=\"{}\" data-intensity=\"{}\" data-gflops=\"{}\" "
        "data-roof=\"{}\"><title>ridge at {}: I* = {} FLOP/byte ({} GFLOP/s / bandwidth)</title>"
        "<path d=\"M{} {}l5 5-5 5-5-5z\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\"/></g>\n",
        boundary_key(r.boundary), n(r.intensity), n(r.gflops), esc(r.roof_label),
        boundary_name(r.boundary), human_number(r.intensity), human_number(r.gflops), px(xp),
        px(yp - 5), boundary_colour(r.boundary));
  }
}

void SvgWriter::regions() {
  // Biggest first, so small dots are drawn on top.
  std::vector<const ChartRegion*> order;
  for (const ChartRegion& r : c_.regions) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](const ChartRegion* a, const ChartRegion* b) { return a->share > b->share; });
  // Each placed label with the first of the regions it names.
  std::map<const ChartRegion*, const RegionLabel*> labels;
  for (const RegionLabel& l : l_.regions) labels[&c_.regions[l.regions.front()]] = &l;
  std::multimap<const ChartRegion*, const OffScaleLabel*> values;
  for (const OffScaleLabel& v : l_.off_scale) values.emplace(&c_.regions[v.region], &v);
  for (const ChartRegion* r : order) {
    const double rad = dot_radius(r->share), yp = l_.region_y(*r);
    o_ += fmt::format(
        "<g data-role=\"region\" data-number=\"{}\" data-region=\"{}\" data-path=\"{}\" "
        "data-gflops=\"{}\" data-time-s=\"{}\" data-share=\"{}\" data-radius=\"{}\" "
        "data-limited-by=\"{}\" data-lower-bound=\"{}\" data-uncertain=\"{}\"{}>\n",
        r->number, esc(r->name), esc(r->path), n(r->gflops), n(r->time_s), n(r->share), n(rad),
        esc(r->limited_by), r->lower_bound ? "true" : "false", r->uncertain ? "true" : "false",
        r->is_function ? fmt::format(" data-symbol=\"{}\" data-source=\"{}\" data-object=\"{}\"",
                                     esc(r->symbol), esc(r->source), esc(r->object))
                       : "");
    // A function region's tooltip says where the function is.
    const std::string where =
        r->is_function ? "\n" + (r->symbol.empty() ? std::string("code without a symbol")
                                                     : "function " + r->symbol) +
                             (r->source.empty() ? "" : " at " + r->source) + " in " + r->object +
                             " (self counts)"
                       : "";
    const std::string least = r->lower_bound ? ">= " : "";
    const std::string bound_note =
        r->lower_bound ? fmt::format("\na lower bound: no cpu-clock sample hit it, its time is "
                                     "< {} s", human_number(r->time_s))
        : r->uncertain ? fmt::format("\nuncertain: its time is {} cpu-clock sample{} (±{:.0f}%), "
                                     "too few to judge", r->samples, r->samples == 1 ? "" : "s",
                                     100 / std::sqrt(static_cast<double>(r->samples)))
                       : "";
    if (r->points.size() > 1) {
      o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#8c939d\" "
                        "stroke-width=\"1.6\"/>\n", px(l_.point_x(r->points.front())),
                        px(yp), px(l_.point_x(r->points.back())), px(yp));
    }
    for (const ChartPoint& p : r->points) {
      o_ += fmt::format(
          "<circle data-role=\"point\" data-boundary=\"{}\" data-intensity=\"{}\" "
          "data-bytes=\"{}\" data-limiting=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" "
          "fill-opacity=\"0.88\" stroke=\"{}\" stroke-width=\"{}\"><title>{} at {}: I = {} "
          "FLOP/byte{}, {}{} GFLOP/s, {} GB crossed{}{}{}</title></circle>\n",
          boundary_key(p.boundary), n(p.intensity), n(p.bytes), p.limiting ? "true" : "false",
          px(l_.point_x(p)), px(yp), px(rad),
          // A lower bound is hollow: the dot's colour on its outline.
          r->lower_bound ? "#ffffff" : boundary_colour(p.boundary),
          p.limiting ? kInk : r->lower_bound ? boundary_colour(p.boundary) : "#ffffff",
          p.limiting || r->lower_bound ? "2" : "1.2", esc(r->path),
          boundary_name(p.boundary), human_number(p.intensity), p.approximate ? " (approx.)" : "",
          esc(least), human_number(r->gflops), human_number(p.bytes / 1e9),
          p.limiting ? "; the limiting boundary" : "", esc(where), esc(bound_note));
    }
    // Off scale: a chevron out of the plot beside the dot at its edge.
    for (const ChartPoint& p : r->points) {
      if (p.off_scale == 0) continue;
      const double xp = l_.point_x(p) + p.off_scale * (rad + 2);
      o_ += fmt::format(
          "<path data-role=\"off-scale\" data-boundary=\"{}\" data-intensity=\"{}\" "
          "d=\"M{} {}l{} 5l{} 5\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"><title>{} at {}: "
          "I = {} FLOP/byte, far outside the axis</title></path>\n",
          boundary_key(p.boundary), n(p.intensity), px(xp), px(yp - 5), 6 * p.off_scale,
          -6 * p.off_scale, kInk, esc(r->path), boundary_name(p.boundary), human_number(p.intensity));
    }
    if (r->gflops_off_scale != 0) {
      const double xa = l_.point_x(r->points.back()), s = r->gflops_off_scale;
      const double y0 = yp - s * rad, y1 = yp - s * (rad + 14);
      o_ += fmt::format(
          "<path data-role=\"off-scale\" data-gflops=\"{7}\" d=\"M{0} {1}V{2}M{3} {4}L{0} {2}L{5} {4}\" "
          "fill=\"none\" stroke=\"{6}\" stroke-width=\"1.5\"/>\n",
          px(xa), px(y0), px(y1), px(xa - 4), px(y1 + s * 6), px(xa + 4), kInk, n(r->gflops));
    }
    // Sampled boundaries: the intensity's 95% interval as a horizontal bar
    // with caps, over the dots (an interval narrower than its dot still
    // shows), dark on a white halo so it reads on the dot's colour and on
    // the plot; an unbounded end runs to the plot's edge in an arrow.
    for (const ChartPoint& p : r->points) {
      if (!p.sampled) continue;
      const auto [xl, xh] = l_.interval_px(p);
      const std::string right =
          p.intensity_high_unbounded
              ? fmt::format("M{} {}l6 4-6 4", px(xh - 6), px(yp - 4))
              : fmt::format("M{} {}V{}", px(xh), px(yp - 5), px(yp + 5));
      const std::string d = fmt::format("M{} {}H{}M{} {}V{}{}", px(xl), px(yp), px(xh), px(xl),
                                        px(yp - 5), px(yp + 5), right);
      o_ += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"4\" "
                        "stroke-linecap=\"round\" stroke-opacity=\"0.9\"/>\n", d);
      o_ += fmt::format(
          "<path data-role=\"intensity-interval\" data-boundary=\"{}\" data-intensity-low=\"{}\" "
          "data-intensity-high=\"{}\" data-x-low=\"{}\" data-x-high=\"{}\" "
          "data-ci95-bytes=\"{}\" data-sampling-units=\"{}\" d=\"{}\" fill=\"none\" "
          "stroke=\"{}\" stroke-width=\"1.6\" stroke-linecap=\"round\">"
          "<title>{} at {}: 95% interval of the sampled traffic, I = {} to {} FLOP/byte "
          "({} GB \u00b1 {} GB, {:.0f} sampling units)</title></path>\n",
          boundary_key(p.boundary), n(p.intensity_low),
          p.intensity_high_unbounded ? std::string("unbounded") : n(p.intensity_high), px(xl),
          px(xh), n(p.ci95_bytes), n(p.sampling_units), d, kInk, esc(r->path),
          boundary_name(p.boundary), human_number(p.intensity_low),
          p.intensity_high_unbounded ? std::string("unbounded") : human_number(p.intensity_high),
          human_number(p.bytes / 1e9), human_number(p.ci95_bytes / 1e9), p.sampling_units);
    }
    if (r->repeat_runs > 0) {
      // --repeat: the rate's range over the timed runs, an error bar with
      // caps through the highest-intensity dot.
      const double xa = l_.point_x(r->points.back());
      const double lo = std::clamp(y_.to_px(r->gflops_low), plot_y_, plot_y_ + kPlotH);
      const double hi = std::clamp(y_.to_px(r->gflops_high), plot_y_, plot_y_ + kPlotH);
      o_ += fmt::format(
          "<path data-role=\"repeat-spread\" data-runs=\"{}\" data-gflops-low=\"{}\" "
          "data-gflops-high=\"{}\" data-spread=\"{}\" d=\"M{} {}V{}M{} {}H{}M{} {}H{}\" "
          "fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\"><title>{}: {} to {} GFLOP/s over "
          "{} timed runs (FMA = 2 FLOPs; time spread (max - min) / median {:.1f}%)</title></path>\n",
          r->repeat_runs, n(r->gflops_low), n(r->gflops_high), n(r->repeat_spread), px(xa),
          px(lo), px(hi), px(xa - 4), px(lo), px(xa + 4), px(xa - 4), px(hi), px(xa + 4), kInk,
          esc(r->path), human_number(r->gflops_low), human_number(r->gflops_high),
          r->repeat_runs, 100 * r->repeat_spread);
    }
    if (r->lower_bound) {
      // An arrow up from the highest-intensity dot: the rate is at least this.
      const double xa = l_.point_x(r->points.back()), top = yp - rad - 16;
      o_ += fmt::format(
          "<path data-role=\"lower-bound\" d=\"M{0} {1}V{2}M{3} {4}L{0} {2}L{5} {4}\" "
          "fill=\"none\" stroke=\"{6}\" stroke-width=\"1.5\"><title>{7}{8}</title></path>\n",
          px(xa), px(yp - rad), px(top), px(xa - 4), px(top + 6), px(xa + 4), kInk,
          esc(r->path), esc(bound_note));
    }
    // Off-scale values beside their arrows.
    const auto [v0, v1] = values.equal_range(r);
    for (auto v = v0; v != v1; ++v) {
      label(v->second->label, fmt::format("data-role=\"off-scale-label\" data-point=\"{}\" "
                                          "font-size=\"11\" fill=\"{}\"", v->second->point, kInk));
    }
    auto l = labels.find(r);
    if (l == labels.end()) {
      o_ += fmt::format("<title>{}{}</title>\n</g>\n", esc(r->path), esc(where));
      continue;
    }
    std::string paths;
    for (size_t k : l->second->regions) paths += (paths.empty() ? "" : "|") + c_.regions[k].path;
    label(l->second->label, fmt::format("data-role=\"label\" data-regions=\"{}\" fill=\"{}\"",
                                        esc(paths), kInk));
    o_ += "</g>\n";
  }
}

std::string SvgWriter::render(bool standalone) {
  text(24, 32, l_.title, fmt::format("data-role=\"title\" font-size=\"18\" font-weight=\"700\" "
                                     "fill=\"{}\"", kInk));
  text(24, 52, l_.subtitle, fmt::format("data-role=\"subtitle\" fill=\"{}\"", kMuted));
  o_ += fmt::format("<defs><clipPath id=\"rprof-plot\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
                    "height=\"{}\"/></clipPath></defs>\n", px(kPlotX), px(plot_y_), px(kPlotW),
                    px(kPlotH));
  axes();
  ceilings();
  regions();
  // What is missing: in the plot when nothing could be drawn, else above it.
  const bool centre = c_.regions.empty();
  for (const auto& [my, line] : l_.missing) {
    text(centre ? kPlotX + kPlotW / 2 : 24, my, line,
         fmt::format("data-role=\"missing\" text-anchor=\"{}\" font-size=\"{}\" fill=\"#9a4a00\"",
                     centre ? "middle" : "start", centre ? 13 : 11));
  }
  if (l_.unlabelled > 0) {
    text(kPlotX, plot_y_ + kPlotH + 62,
         fmt::format("{} of {} region{} without a label (no room beside the dots): their names "
                     "are in the tooltips", l_.unlabelled, c_.regions.size(),
                     c_.regions.size() == 1 ? "" : "s"),
         fmt::format("data-role=\"unlabelled\" data-count=\"{}\" font-size=\"11\" fill=\"{}\"",
                     l_.unlabelled, kMuted));
  }
  const double legend_bottom = svg_legend(c_, l_.legend_x, plot_y_ + 4, kWidth - 8, o_);
  const double height =
      svg_footer(c_.conventions, 24, std::max(plot_y_ + kPlotH + 76, legend_bottom + 12), kWidth - 48, o_) + 8;
  std::string head = standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : "";
  head += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"{2}\" font-size=\"{3}\" data-role=\"roofline-chart\" "
      "data-x-min=\"{4}\" data-x-max=\"{5}\" data-y-min=\"{6}\" data-y-max=\"{7}\" "
      "data-ceiling-threads=\"{8}\">\n<title>{9}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
      px(kWidth), px(height), kFontFamily, kFont, n(c_.x.lo), n(c_.x.hi), n(c_.y.lo), n(c_.y.hi),
      c_.ceiling_threads, esc(c_.title));
  return head + o_ + "</svg>\n";
}

}  // namespace

std::string render_svg(const ChartModel& c, bool standalone) {
  return SvgWriter(c).render(standalone);
}

void SvgReporter::write(const Analysis& a, const ReportOptions&, std::ostream& out) const {
  out << render_svg(build_chart_model(a), /*standalone=*/true);
}

}  // namespace rprof
