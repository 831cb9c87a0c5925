// The HTML report: one self-contained file (inline CSS, JS and SVG; a
// Content-Security-Policy that forbids every network fetch) with the
// roofline chart, the sortable region table, verdicts when present, the
// run's conventions and the Roofline lab. The page reads its numbers from a
// JSON block (id "rprof-data", html_report_data()); docs/reports.md lists
// the element ids tests and users can rely on.
#ifndef RPROF_REPORT_HTML_REPORT_H_
#define RPROF_REPORT_HTML_REPORT_H_

#include <nlohmann/json.hpp>

#include "report/chart_model.h"
#include "report/reporter.h"

namespace rprof {

// The data block the page renders from: run, conventions, machine ceilings,
// and per region its times, FLOPs, bytes and intensity per boundary,
// roofline and verdict. Units are in the key names (_s, _gflops, _gbs).
nlohmann::json html_report_data(const Analysis& a, const ChartModel& chart);

class HtmlReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

}  // namespace rprof

#endif  // RPROF_REPORT_HTML_REPORT_H_
