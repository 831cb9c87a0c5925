// The bandwidth chart: beside the FLOP roofline, every region with a memory
// view (FLOPs or not) as one bar per boundary, its achieved GB/s on a log
// axis, with the boundary's measured bandwidth roof drawn across the bar and
// the fraction written on it. It draws the analysis' MemoryView numbers and
// computes none. Elements carry data- attributes (data-role =
// bandwidth-chart, bandwidth-bar with data-region, data-boundary, data-gbs,
// data-roof-gbs, data-fraction) so tests can read the chart back.
#ifndef RPROF_REPORT_BANDWIDTH_CHART_H_
#define RPROF_REPORT_BANDWIDTH_CHART_H_

#include <string>

#include "analysis/analysis.h"

namespace rprof {

// An SVG of the analysis' memory views; empty when no region has one.
// standalone: with the XML declaration (a file); without it for HTML.
std::string render_bandwidth_svg(const Analysis& a, bool standalone);

}  // namespace rprof

#endif  // RPROF_REPORT_BANDWIDTH_CHART_H_
