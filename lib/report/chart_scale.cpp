#include "report/chart_scale.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace rprof {

double LogAxis::to_px(double v) const {
  const double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return px_lo + t * (px_hi - px_lo);
}

double LogAxis::from_px(double px) const {
  const double t = (px - px_lo) / (px_hi - px_lo);
  return std::pow(10.0, std::log10(lo) + t * (std::log10(hi) - std::log10(lo)));
}

// The decade exponents an axis spans, clamped to doubles' range: an axis
// that reaches infinity (an absurd ceiling) must not loop forever.
static std::pair<int, int> decade_range(double lo, double hi) {
  const double a = std::log10(lo), b = std::log10(hi);
  if (!std::isfinite(a) || !std::isfinite(b) || a > b) return {1, 0};  // empty
  return {static_cast<int>(std::floor(std::max(a, -320.0))),
          static_cast<int>(std::ceil(std::min(b, 310.0)))};
}

std::vector<double> LogAxis::decades() const {
  std::vector<double> out;
  const auto [k_lo, k_hi] = decade_range(lo, hi);
  for (int k = k_lo; k <= k_hi; ++k) {
    const double v = std::pow(10.0, k);
    if (contains(v)) out.push_back(v);
  }
  return out;
}

std::vector<double> LogAxis::minor_ticks() const {
  std::vector<double> out;
  const auto [k_lo, k_hi] = decade_range(lo, hi);
  for (int k = k_lo; k <= k_hi; ++k) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, k);
      if (contains(v)) out.push_back(v);
    }
  }
  return out;
}

LogAxis fit_log_axis(double min_v, double max_v, double pad, double min_decades) {
  LogAxis a;
  const bool ok = std::isfinite(min_v) && std::isfinite(max_v) && min_v > 0 && max_v > 0;
  if (!ok) {
    a.lo = 1;
    a.hi = std::pow(10.0, min_decades);
    return a;
  }
  if (min_v > max_v) std::swap(min_v, max_v);
  // Within doubles' range whatever the data: 1e308 GFLOP/s times the padding
  // would be infinite.
  double lo = std::max(std::log10(min_v) - std::log10(pad), -300.0);
  double hi = std::min(std::log10(max_v) + std::log10(pad), 300.0);
  if (hi - lo < min_decades) {
    const double grow = (min_decades - (hi - lo)) / 2;
    lo -= grow;
    hi += grow;
  }
  a.lo = std::pow(10.0, lo);
  a.hi = std::pow(10.0, hi);
  return a;
}

ValueSpan shown_span(const std::vector<double>& values, const std::vector<double>& fixed,
                     double gap_decades) {
  struct V {
    double lg;
    bool fixed;
  };
  std::vector<V> all;
  auto take = [&](double v, bool f) {
    if (std::isfinite(v) && v > 0) all.push_back({std::log10(v), f});
  };
  for (double v : values) take(v, false);
  for (double v : fixed) take(v, true);
  ValueSpan span;
  if (all.empty()) return span;
  std::sort(all.begin(), all.end(), [](const V& a, const V& b) { return a.lg < b.lg; });
  // Clusters [first, last] of indices into `all`.
  std::vector<std::pair<size_t, size_t>> clusters{{0, 0}};
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i].lg - all[i - 1].lg > gap_decades) clusters.emplace_back(i, i);
    clusters.back().second = i;
  }
  size_t first = clusters.size(), last = 0;
  for (size_t k = 0; k < clusters.size(); ++k) {
    for (size_t i = clusters[k].first; i <= clusters[k].second; ++i) {
      if (!all[i].fixed) continue;
      first = std::min(first, k);
      last = std::max(last, k);
    }
  }
  if (first == clusters.size()) {  // no fixed value: the most populous cluster
    first = last = 0;
    for (size_t k = 1; k < clusters.size(); ++k) {
      const size_t n = clusters[k].second - clusters[k].first;
      if (n > clusters[first].second - clusters[first].first) first = last = k;
    }
  }
  span.lo = std::pow(10.0, all[clusters[first].first].lg);
  span.hi = std::pow(10.0, all[clusters[last].second].lg);
  return span;
}

std::string decade_label(double v) {
  const int k = static_cast<int>(std::lround(std::log10(v)));
  if (k >= -3 && k <= 5) {
    return k >= 0 ? fmt::format("{:.0f}", std::pow(10.0, k))
                  : fmt::format("{:.{}f}", std::pow(10.0, k), -k);
  }
  return fmt::format("1e{}", k);
}

std::string human_number(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a < 1e-4 || a >= 1e7) return fmt::format("{:.3e}", v);
  // 4 significant digits in fixed notation, then trailing zeros trimmed.
  const int digits = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fmt::format("{:.{}f}", v, digits);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

double text_width(const std::string& text, double font_px) {
  double em = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (c == ' ' || c == '.' || c == ',' || c == ':' || c == 'i' || c == 'l' || c == '|' ||
        c == '/' || c == '(' || c == ')' || c == '[' || c == ']') {
      em += 0.34;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W') {
      em += 0.9;
    } else if (c >= 'A' && c <= 'Z') {
      em += 0.7;
    } else {
      em += 0.6;
    }
  }
  return em * font_px;
}

bool Box::overlaps(const Box& o) const { return overlap_area(o) > 0; }

double Box::overlap_area(const Box& o) const {
  const double w_ = std::min(x + w, o.x + o.w) - std::max(x, o.x);
  const double h_ = std::min(y + h, o.y + o.h) - std::max(y, o.y);
  return w_ > 0 && h_ > 0 ? w_ * h_ : 0;
}

bool Box::inside(const Box& a) const {
  return x >= a.x && y >= a.y && x + w <= a.x + a.w && y + h <= a.y + a.h;
}

std::optional<Placement> LabelPlacer::try_place(double x, double y, double r, double w,
                                                double h) {
  // Candidate offsets around the dot (right, left, above, below, diagonals),
  // at growing distances; the first ring keeps the label touching the dot.
  struct Cand {
    double dx, dy;  // direction
  };
  static const Cand dirs[] = {{1, 0},  {-1, 0}, {0, -1}, {0, 1},
                              {1, -1}, {1, 1},  {-1, -1}, {-1, 1}};
  const double gap = 3;
  for (int ring = 0; ring < 6; ++ring) {
    const double d = r + gap + ring * (h + 2);
    for (const Cand& c : dirs) {
      Placement p;
      // Box position: the label sits on the side of the dot given by dir.
      double bx = c.dx > 0 ? x + d : c.dx < 0 ? x - d - w : x - w / 2;
      double by = c.dy > 0 ? y + d : c.dy < 0 ? y - d - h : y - h / 2;
      if (c.dx != 0 && c.dy != 0) {  // diagonals: corner touches the ring
        bx = c.dx > 0 ? x + d * 0.7 : x - d * 0.7 - w;
        by = c.dy > 0 ? y + d * 0.7 : y - d * 0.7 - h;
      }
      p.box = {bx, by, w, h};
      p.anchor = "start";
      p.x = bx;
      p.y = by + h * 0.8;  // baseline of one line of text
      p.leader = ring > 0;
      if (!p.box.inside(area_)) continue;
      bool clear = true;
      for (const Box& t : taken_) clear = clear && !t.overlaps(p.box);
      if (!clear) continue;
      p.clean = true;
      taken_.push_back(p.box);
      return p;
    }
  }
  return std::nullopt;
}

Placement LabelPlacer::place(double x, double y, double r, double w, double h) {
  if (std::optional<Placement> p = try_place(x, y, r, w, h)) return *p;
  // Nothing clean: the box of least overlap, inside the area where it fits.
  Placement best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (double dx : {r + 3, -r - 3 - w}) {
    for (double dy : {-h / 2, -r - 3 - h, r + 3}) {
      Placement p;
      p.box = {x + dx, y + dy, w, h};
      p.x = p.box.x;
      p.y = p.box.y + h * 0.8;
      double cost = 0;
      for (const Box& t : taken_) cost += t.overlap_area(p.box);
      if (!p.box.inside(area_)) cost += 1e6 + w * h;
      if (cost < best_cost) {
        best_cost = cost;
        best = p;
      }
    }
  }
  best.clean = false;
  taken_.push_back(best.box);
  return best;
}

}  // namespace rprof
