// Geometry of the roofline chart, independent of SVG: log axes with decade
// ticks, number labels for them, text size estimates and a greedy label
// placer that keeps labels off each other and off the dots.
#ifndef RPROF_REPORT_CHART_SCALE_H_
#define RPROF_REPORT_CHART_SCALE_H_

#include <optional>
#include <string>
#include <vector>

namespace rprof {

// A log10 axis: data values lo..hi (> 0) onto pixels px_lo..px_hi (px_hi
// may be smaller than px_lo, as for a y axis that grows upwards).
struct LogAxis {
  double lo = 1, hi = 10;
  double px_lo = 0, px_hi = 1;

  double to_px(double v) const;
  double from_px(double px) const;
  bool contains(double v) const { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); }
  std::vector<double> decades() const;      // every 10^k in [lo, hi]
  std::vector<double> minor_ticks() const;  // 2..9 x 10^k in [lo, hi]
};

// Domain for values in [min_v, max_v] (> 0): a factor `pad` of margin on
// both sides, widened symmetrically (in log space) to at least `min_decades`
// decades. Non-positive or non-finite input gives 1..10^min_decades.
LogAxis fit_log_axis(double min_v, double max_v, double pad, double min_decades);

// The span of values an axis shows (log10 of its ends) when some values lie
// far from the rest: the values sorted on a log scale split into clusters
// wherever two neighbours are more than `gap_decades` apart; the shown span
// runs from the first to the last cluster holding a fixed value (a ceiling,
// a ridge), or, without fixed values, is the cluster of the most values.
// Values outside it (a boundary with a handful of bytes: an intensity of 8e6
// beside 1 to 100) are off scale and drawn at the edge. Non-positive and
// non-finite values are ignored; none left gives lo > hi.
struct ValueSpan {
  double lo = 1, hi = 0;  // data values, lo > hi when empty
  bool contains(double v) const { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); }
  // -1 below the span, +1 above, 0 inside.
  int side(double v) const { return v < lo * (1 - 1e-9) ? -1 : v > hi * (1 + 1e-9) ? 1 : 0; }
};
ValueSpan shown_span(const std::vector<double>& values, const std::vector<double>& fixed,
                     double gap_decades);

// A decade tick label: "0.001" .. "100000" in plain digits, "1e6" beyond.
std::string decade_label(double v);

// Numbers for people: 4 significant digits, no trailing zeros, no exponent
// between 1e-4 and 1e7 ("320", "12.5", "0.08333", "1000").
std::string human_number(double v);

// Width of text in pixels for a sans-serif font of `font_px` (an estimate:
// SVG has no layout engine; wide enough for DejaVu Sans, the widest common).
double text_width(const std::string& text, double font_px);

struct Box {
  double x = 0, y = 0, w = 0, h = 0;  // top-left corner, size (pixels)
  bool overlaps(const Box& o) const;
  double overlap_area(const Box& o) const;
  bool inside(const Box& area) const;
};

struct Placement {
  Box box;            // the label's box
  double x = 0, y = 0;  // text anchor point: baseline
  const char* anchor = "start";  // SVG text-anchor
  bool clean = false;   // inside the area and overlapping nothing placed
  bool leader = false;  // far from its anchor: draw a line to it
};

// Places labels one at a time next to anchors (dots): tries positions
// around the dot, nearest first, then further out; each placed label and
// every blocked box (dots, legend) is avoided by later ones. When nothing
// is clean it takes the candidate with the least overlap.
class LabelPlacer {
 public:
  explicit LabelPlacer(Box area) : area_(area) {}
  void block(const Box& b) { taken_.push_back(b); }
  // A label w x h pixels for a dot of radius r at (x, y).
  Placement place(double x, double y, double r, double w, double h);
  // The same, but only a clean place is taken: none, nothing is taken.
  std::optional<Placement> try_place(double x, double y, double r, double w, double h);
  const std::vector<Box>& taken() const { return taken_; }

 private:
  Box area_;
  std::vector<Box> taken_;
};

}  // namespace rprof

#endif  // RPROF_REPORT_CHART_SCALE_H_
