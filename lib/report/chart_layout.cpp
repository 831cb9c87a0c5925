#include "report/chart_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/markup.h"
#include "report/svg_parts.h"

namespace rprof {
namespace {

using L = ChartLayout;
constexpr double kLineH = 15;  // a label's box height at kFont

// A convex quadrilateral: a rotated label's outline. Overlap by separating
// axes (two convex shapes are apart when their projections on some edge
// normal are apart).
struct Quad {
  double x[4], y[4];
  Quad() = default;
  explicit Quad(const Box& b)
      : x{b.x, b.x + b.w, b.x + b.w, b.x}, y{b.y, b.y, b.y + b.h, b.y + b.h} {}
  bool apart_on_axes_of(const Quad& o) const {
    for (int i = 0; i < 4; ++i) {
      const double nx = -(y[(i + 1) % 4] - y[i]), ny = x[(i + 1) % 4] - x[i];
      double a0 = INFINITY, a1 = -INFINITY, b0 = INFINITY, b1 = -INFINITY;
      for (int k = 0; k < 4; ++k) {
        const double pa = x[k] * nx + y[k] * ny, pb = o.x[k] * nx + o.y[k] * ny;
        a0 = std::min(a0, pa), a1 = std::max(a1, pa), b0 = std::min(b0, pb), b1 = std::max(b1, pb);
      }
      if (a1 <= b0 || b1 <= a0) return true;
    }
    return false;
  }
  bool overlaps(const Quad& o) const { return !apart_on_axes_of(o) && !o.apart_on_axes_of(*this); }
};

// The outline of text from baseline point (x, y), `len` px long, rotated by
// `rad` (radians, SVG's clockwise): ascent 0.95 em above the baseline,
// descent 0.25 em below.
Quad text_quad(double x, double y, double len, double font, double rad) {
  const double ux = std::cos(rad), uy = std::sin(rad);  // along the text
  const double nx = std::sin(rad), ny = -std::cos(rad);  // up from the baseline
  const double up = 0.95 * font, down = 0.25 * font;
  Quad q;
  const double px[4] = {0, len, len, 0}, pn[4] = {-down, -down, up, up};
  for (int k = 0; k < 4; ++k) {
    q.x[k] = x + px[k] * ux + pn[k] * nx;
    q.y[k] = y + px[k] * uy + pn[k] * ny;
  }
  return q;
}

// "DP 512-bit FMA 58.59 · add/mul 58.19 GFLOP/s": what the roofs share is
// said once (precision, width; one figure when they read the same).
std::string roof_group_text(const ChartModel& c, const std::vector<size_t>& idx) {
  const ComputeRoof& first = c.roofs[idx.front()].roof;
  bool one_figure = true;
  for (size_t i : idx) one_figure = one_figure && human_number(c.roofs[i].roof.gflops) == human_number(first.gflops);
  std::string s;
  for (size_t k = 0; k < idx.size(); ++k) {
    const ComputeRoof& r = c.roofs[idx[k]].roof;
    std::string t = roof_text(r);  // "DP 256-bit FMA"
    if (k > 0 && r.precision == first.precision) {
      t = t.substr(t.find(' ') + 1);  // "256-bit FMA"
      if (r.width == first.width) t = t.substr(t.find(' ') + 1);  // "FMA"
    }
    s += (k == 0 ? "" : " \u00b7 ") + t + (one_figure ? "" : " " + human_number(r.gflops));
  }
  return s + (one_figure ? " " + human_number(first.gflops) : "") + " GFLOP/s";
}

class Layouter {
 public:
  explicit Layouter(const ChartModel& c) : c_(c), placer_({0, 0, 0, 0}) {}
  ChartLayout run();

 private:
  void frame();
  void roofs();
  void bandwidths();
  void block_marks();
  void off_scale();
  void region_labels();
  Box plot_area() const { return {L::kPlotX + 2, l_.plot_y + 2, L::kPlotW - 4, L::kPlotH - 4}; }
  // Boxes no ceiling label may cross: the ceiling labels placed so far.
  bool free_of_labels(const Box& b) const { return free_of(labels_, b); }
  static bool free_of(const std::vector<Box>& boxes, const Box& b) {
    return std::none_of(boxes.begin(), boxes.end(), [&](const Box& o) { return o.overlaps(b); });
  }

  const ChartModel& c_;
  ChartLayout l_;
  LabelPlacer placer_;
  std::vector<Box> marks_;  // dots, bars, ridges: the ceiling labels avoid them too
  std::vector<Quad> quads_;  // the rotated bandwidth labels
  std::vector<Box> ridges_;  // the ridge diamonds
  std::vector<Box> labels_;  // ceiling labels, for the ceilings after them
  std::vector<size_t> order_;  // regions, biggest share first
};

void Layouter::frame() {
  l_.title = fit_text(c_.title, L::kWidth - 48, 18 * 1.1);  // bold
  l_.subtitle = fit_text(c_.subtitle, L::kWidth - 48, L::kFont);
  if (c_.regions.empty()) {
    // Nothing drawn: what is missing goes in the middle of the plot.
    std::vector<std::string> lines;
    for (const std::string& m : c_.missing) {
      for (const std::string& t : wrap_text(m, L::kPlotW - 40, 13)) lines.push_back(t);
    }
    double y = l_.plot_y + L::kPlotH / 2 - 9.5 * static_cast<double>(lines.size());
    for (const std::string& t : lines) {
      l_.missing.emplace_back(y, t);
      y += 19;
    }
  } else {
    double y = 70;
    for (const std::string& m : c_.missing) {
      for (const std::string& t : wrap_text(m, L::kWidth - 48, 11)) {
        l_.missing.emplace_back(y, t);
        y += 14;
      }
    }
    l_.plot_y = std::max(l_.plot_y, y);
  }
  l_.x = c_.x;
  l_.y = c_.y;
  l_.x.px_lo = L::kPlotX;
  l_.x.px_hi = L::kPlotX + L::kPlotW;
  l_.y.px_lo = l_.plot_y + L::kPlotH;
  l_.y.px_hi = l_.plot_y;
  placer_ = LabelPlacer(plot_area());
}

// Roof labels at the right end: above their line, else below it, else
// stacked further out, else moved left along the line, clear of the dots
// and bars; roofs a few pixels apart share one label.
void Layouter::roofs() {
  std::vector<std::vector<size_t>> groups;
  for (size_t k = 0; k < c_.roofs.size(); ++k) {  // highest first
    const double yp = l_.y.to_px(c_.roofs[k].roof.gflops);
    if (!groups.empty() && yp - l_.y.to_px(c_.roofs[groups.back().back()].roof.gflops) < 3) {
      groups.back().push_back(k);
    } else {
      groups.push_back({k});
    }
  }
  double fastest = 0;
  for (const ChartBandwidth& b : c_.bandwidths) fastest = std::max(fastest, b.gbs);
  for (const std::vector<size_t>& g : groups) {
    const std::string text = fit_text(roof_group_text(c_, g), L::kPlotW - 20, L::kFont * 1.05);
    const double w = text_width(text, L::kFont * 1.05);  // semibold
    const double gflops = c_.roofs[g.front()].roof.gflops;
    const double top = l_.y.to_px(gflops);
    const double bottom = l_.y.to_px(c_.roofs[g.back()].roof.gflops);
    // Where the line starts: the roof meets the fastest bandwidth.
    const double start = fastest > 0 ? std::max(L::kPlotX, l_.x.to_px(gflops / fastest)) : L::kPlotX;
    // Right-aligned at the plot's end, then moved left along the line; at
    // each place above the line, below it, then one line further out.
    bool placed = false;
    for (int shift = 0; shift < 8 && !placed; ++shift) {
      const double xr = L::kPlotX + L::kPlotW - 6 - 70 * shift;
      if (xr - w < start) break;
      for (int k = 0; k < 4 && !placed; ++k) {
        const double by = k % 2 == 0 ? top - 2 - kLineH - kLineH * (k / 2) : bottom + 2 + kLineH * (k / 2);
        const Box b{xr - w, by, w, kLineH};
        if (!b.inside(plot_area()) || !free_of_labels(b) || !free_of(marks_, b)) continue;
        RoofLabel rl{g, {text, {}, xr, top}};
        rl.label.at.box = b;
        rl.label.at.x = xr;
        rl.label.at.y = by + 11;
        rl.label.at.anchor = "end";
        rl.label.at.clean = true;
        rl.label.at.leader = k >= 2;
        labels_.push_back(b);
        placer_.block(b);
        l_.roofs.push_back(std::move(rl));
        placed = true;
      }
    }
  }
}

// Along their lines, near where each enters the plot, moved along the line
// until clear of the labels placed before.
void Layouter::bandwidths() {
  const double ppd_x = L::kPlotW / std::log10(l_.x.hi / l_.x.lo);
  const double ppd_y = L::kPlotH / std::log10(l_.y.hi / l_.y.lo);
  const double angle = -std::atan2(ppd_y, ppd_x) * 180 / M_PI;
  const double rad = angle * M_PI / 180;
  for (size_t n = 0; n < c_.bandwidths.size(); ++n) {
    const ChartBandwidth& b = c_.bandwidths[n];
    const std::string text = fmt::format("{} {} GB/s", boundary_name(b.boundary), human_number(b.gbs));
    const double len = text_width(text, L::kFont * 1.05);
    for (int k = 0; k < 16; ++k) {
      double i = l_.x.from_px(L::kPlotX + 14 + 30 * k);
      if (b.gbs * i < l_.y.lo) i = l_.y.lo / b.gbs * std::pow(1.15, k + 1);  // enters at the bottom
      const double xp = l_.x.to_px(i), yp = l_.y.to_px(b.gbs * i);
      if (xp + len * std::cos(rad) > L::kPlotX + L::kPlotW - 10 ||
          yp + len * std::sin(rad) < l_.plot_y + 14 || yp > l_.plot_y + L::kPlotH - 4) {
        break;  // the line leaves the plot before the label ends
      }
      // The rotated text's own outline, tested exactly against the labels
      // and marks so far; the placer gets small squares along it.
      const Quad q = text_quad(xp, yp - 6, len, L::kFont * 1.05, rad);
      auto clear = [&](const Box& a) { return !q.overlaps(Quad(a)); };
      if (!std::all_of(labels_.begin(), labels_.end(), clear) ||
          !std::all_of(marks_.begin(), marks_.end(), clear) ||
          !std::all_of(ridges_.begin(), ridges_.end(), clear) ||
          !std::none_of(quads_.begin(), quads_.end(), [&](const Quad& o) { return q.overlaps(o); })) {
        continue;
      }
      quads_.push_back(q);
      for (double t = 0; t <= len; t += 5) {
        const double cx = xp + t * std::cos(rad) + 4.2 * std::sin(rad);
        const double cy = yp - 6 + t * std::sin(rad) - 4.2 * std::cos(rad);
        placer_.block({cx - 7.5, cy - 7.5, 15, 15});
      }
      l_.bandwidths.push_back({n, text, xp, yp - 6, angle});
      break;
    }
  }
}

// Ridges, dots, their lines, bars and arrows: no label goes over them.
void Layouter::block_marks() {
  auto mark = [&](const Box& b) {
    marks_.push_back(b);
    placer_.block(b);
  };
  for (const ChartRidge& r : c_.ridges) {
    if (!l_.x.contains(r.intensity) || !l_.y.contains(r.gflops)) continue;
    const double xp = l_.x.to_px(r.intensity), yp = l_.y.to_px(r.gflops);
    // On a roof line: in the way of bandwidth and region labels, not of roofs'.
    ridges_.push_back({xp - 6, yp - 6, 12, 12});
    placer_.block(ridges_.back());
  }
  for (size_t i = 0; i < c_.regions.size(); ++i) order_.push_back(i);
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
    return c_.regions[a].share > c_.regions[b].share;
  });
  for (size_t i : order_) {
    const ChartRegion& r = c_.regions[i];
    const double rad = dot_radius(r.share), yp = l_.region_y(r);
    for (const ChartPoint& p : r.points) {
      const double xp = l_.point_x(p);
      mark({xp - rad, yp - rad, 2 * rad, 2 * rad});
      if (p.sampled) {  // its interval bar
        const auto [xl, xh] = l_.interval_px(p);
        mark({xl, yp - 5, xh - xl, 10});
      }
      if (p.off_scale != 0) mark({xp - rad - 10, yp - rad, 2 * rad + 20, 2 * rad});
    }
    const double xa = l_.point_x(r.points.front()), xb = l_.point_x(r.points.back());
    if (xb - xa > 2 * rad) mark({xa + rad, yp - 2, xb - xa - 2 * rad, 4});
    if (r.lower_bound || r.gflops_off_scale > 0) mark({xb - 5, yp - rad - 16, 10, 16});
    if (r.gflops_off_scale < 0) mark({xb - 5, yp + rad, 10, 16});
  }
}

// The values of off-scale points and rates, beside their arrows.
void Layouter::off_scale() {
  for (size_t i : order_) {
    const ChartRegion& r = c_.regions[i];
    const double rad = dot_radius(r.share), yp = l_.region_y(r);
    auto put = [&](int point, double xp, const std::string& text) {
      const double w = text_width(text, L::kFont * 0.92);
      if (auto at = placer_.try_place(xp, yp, rad + 4, w, kLineH - 2)) {
        l_.off_scale.push_back({i, point, {text, *at, xp, yp}});
      }
    };
    if (r.gflops_off_scale != 0) put(-1, l_.point_x(r.points.back()), human_number(r.gflops) + " GFLOP/s");
    for (size_t k = 0; k < r.points.size(); ++k) {
      const ChartPoint& p = r.points[k];
      if (p.off_scale == 0) continue;
      put(static_cast<int>(k), l_.point_x(p),
          fmt::format("I {} {}", boundary_name(p.boundary), human_number(p.intensity)));
    }
  }
}

// Regions: biggest first; dots at one place share a label; a label with no
// free place is left out.
void Layouter::region_labels() {
  struct Group {
    std::vector<size_t> regions;
    double x, y, rad;
  };
  std::vector<Group> groups;
  for (size_t i : order_) {
    const ChartRegion& r = c_.regions[i];
    const double xp = l_.point_x(r.points.back()), yp = l_.region_y(r);
    auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return std::fabs(g.x - xp) <= 2 && std::fabs(g.y - yp) <= 2;
    });
    if (same != groups.end()) {
      same->regions.push_back(i);
    } else {
      groups.push_back({{i}, xp, yp, dot_radius(r.share)});
    }
  }
  size_t labelled = 0;
  for (const Group& g : groups) {
    if (labelled >= kMaxRegionLabels) {
      l_.unlabelled += g.regions.size();
      continue;
    }
    // The names, each cut to 40 characters; beyond three, a count.
    std::string text;
    for (size_t k = 0; k < g.regions.size(); ++k) {
      if (k == 2 && g.regions.size() > 3) {
        text += fmt::format(" +{}", g.regions.size() - 2);
        break;
      }
      text += (k == 0 ? "" : " / ") + ellipsize(c_.regions[g.regions[k]].label, 40);
    }
    const double w = text_width(text, L::kFont), h = L::kFont + 3;
    std::optional<Placement> at = placer_.try_place(g.x, g.y, g.rad, w, h);
    if (!at) {
      l_.unlabelled += g.regions.size();
      continue;
    }
    ++labelled;
    l_.regions.push_back({g.regions, {text, *at, g.x, g.y}});
  }
}

ChartLayout Layouter::run() {
  frame();
  block_marks();
  roofs();
  bandwidths();
  off_scale();
  region_labels();
  return std::move(l_);
}

}  // namespace

double ChartLayout::point_x(const ChartPoint& p) const {
  return p.off_scale < 0 ? x.px_lo : p.off_scale > 0 ? x.px_hi : x.to_px(p.intensity);
}

double ChartLayout::region_y(const ChartRegion& r) const {
  return r.gflops_off_scale < 0 ? y.px_lo : r.gflops_off_scale > 0 ? y.px_hi : y.to_px(r.gflops);
}

std::pair<double, double> ChartLayout::interval_px(const ChartPoint& p) const {
  const double l = p.intensity_low > 0 ? std::max(x.px_lo, x.to_px(p.intensity_low)) : x.px_lo;
  const double h = p.intensity_high_unbounded ? x.px_hi : std::min(x.px_hi, x.to_px(p.intensity_high));
  return {std::min(l, x.px_hi), std::max(h, x.px_lo)};
}

ChartLayout layout_chart(const ChartModel& c) { return Layouter(c).run(); }

}  // namespace rprof
