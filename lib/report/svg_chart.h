// The roofline chart as one self-contained SVG file (no scripts, no external
// fonts or images). Elements carry data- attributes with the numbers they
// draw (data-role = compute-ceiling, bandwidth-ceiling, ridge, region,
// point, label, legend, conventions, missing) so tests and tools can read
// the chart back; docs/reports.md lists them.
#ifndef RPROF_REPORT_SVG_CHART_H_
#define RPROF_REPORT_SVG_CHART_H_

#include <string>

#include "report/chart_model.h"
#include "report/reporter.h"

namespace rprof {

// standalone: with the XML declaration (a file); without it for inlining
// into HTML.
std::string render_svg(const ChartModel& c, bool standalone);

class SvgReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

}  // namespace rprof

#endif  // RPROF_REPORT_SVG_CHART_H_
