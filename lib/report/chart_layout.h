// Where everything on the roofline chart goes, in pixels, computed once
// from the chart model before any SVG is written: the plot's frame, the
// axes' pixel ranges, and every text label (compute ceilings, bandwidths,
// regions, off-scale values), placed so that no two overlap and none leaves
// the plot. A label that finds no free place is left out (its text stays
// in the tooltips and the legend) rather than drawn over another.
#ifndef RPROF_REPORT_CHART_LAYOUT_H_
#define RPROF_REPORT_CHART_LAYOUT_H_

#include <string>
#include <utility>
#include <vector>

#include "report/chart_model.h"
#include "report/chart_scale.h"

namespace rprof {

// A label placed on the chart: its text, its box, its baseline anchor.
struct ChartLabel {
  std::string text;
  Placement at;
  // Drawn away from its dot: a thin line from (to_x, to_y) to the box.
  double to_x = 0, to_y = 0;
};

// One label for compute roofs whose lines lie within a few pixels (the
// same figure to the eye): "DP 512-bit FMA 58.59 · add/mul 58.19 GFLOP/s".
struct RoofLabel {
  std::vector<size_t> roofs;  // indices into ChartModel::roofs
  ChartLabel label;
};

struct BandwidthLabel {
  size_t bandwidth = 0;  // index into ChartModel::bandwidths
  std::string text;
  double x = 0, y = 0, angle = 0;  // baseline start, rotation in degrees
};

// Regions whose labelled dots sit at the same place (a function, its
// marker and its loop) share one label with their names.
struct RegionLabel {
  std::vector<size_t> regions;  // indices into ChartModel::regions, biggest first
  ChartLabel label;
};

// The value of a point (or a rate) drawn at the plot's edge.
struct OffScaleLabel {
  size_t region = 0;
  int point = -1;  // index into its points; -1: the rate (y axis)
  ChartLabel label;
};

struct ChartLayout {
  static constexpr double kWidth = 1000, kPlotX = 86, kPlotW = 600, kPlotH = 440;
  static constexpr double kFont = 12;  // base font size, px
  double plot_y = 84;                  // below the title and what is missing
  double legend_x = kPlotX + kPlotW + 34;
  LogAxis x, y;                        // the model's domains, with pixels
  std::string title, subtitle;         // fitted to the width
  std::vector<std::pair<double, std::string>> missing;  // y, line
  std::vector<RoofLabel> roofs;
  std::vector<BandwidthLabel> bandwidths;
  std::vector<RegionLabel> regions;
  std::vector<OffScaleLabel> off_scale;
  size_t unlabelled = 0;  // regions without a label (no room, or beyond the first 30)

  // Pixels of a point and of a region's rate; an off-scale one at the edge.
  double point_x(const ChartPoint& p) const;
  double region_y(const ChartRegion& r) const;
  // The pixel span of a sampled point's intensity interval, clamped to the
  // plot (an unbounded end at its right edge).
  std::pair<double, double> interval_px(const ChartPoint& p) const;
};

// Labels for the regions with the largest share of time only: beyond this
// a chart is a cloud of names; the others have their name in a tooltip.
inline constexpr size_t kMaxRegionLabels = 30;

ChartLayout layout_chart(const ChartModel& c);

}  // namespace rprof

#endif  // RPROF_REPORT_CHART_LAYOUT_H_
