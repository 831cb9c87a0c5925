// Report writers: one interface, one class per format (text, json, csv, svg,
// html, caliper). A writer renders an Analysis (analysis/analysis.h: the profile with
// each region's metrics, roofline and verdict, computed once) and computes
// none of it; ReportOptions only choose what to show.
#ifndef RPROF_REPORT_REPORTER_H_
#define RPROF_REPORT_REPORTER_H_

#include <memory>
#include <ostream>
#include <string>

#include "analysis/analysis.h"

namespace rprof {

struct ReportOptions {
  bool show_threads = false;  // per-thread rows under each region (text)
  // Boundary the text report shows: "" (each region's limiting one), "l1",
  // "l2", "llc", "dram" or "all". JSON always holds every boundary.
  std::string boundary;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const = 0;
};

// "text", "json", "csv", "svg" (the roofline chart), "html" (the
// self-contained report with the lab) or "caliper" (Caliper's json-split
// layout, report/caliper_report.h); throws Error for anything else.
std::unique_ptr<Reporter> make_reporter(const std::string& format);

}  // namespace rprof

#endif  // RPROF_REPORT_REPORTER_H_
