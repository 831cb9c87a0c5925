// Report writers: one interface, one class per format (text, json, csv, svg,
// html).
#ifndef RPROF_REPORT_REPORTER_H_
#define RPROF_REPORT_REPORTER_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "report/verdict_view.h"

namespace rprof {

struct Machine;

struct ReportOptions {
  bool show_threads = false;  // per-thread rows under each region (text)
  // Roofline (report/roofline_report.h): the machine's ceilings, or none.
  const Machine* machine = nullptr;
  std::string machine_file;                // where the ceilings came from
  std::vector<std::string> machine_notes;  // e.g. "calibrated now"
  // Boundary the text report shows: "" (each region's limiting one), "l1",
  // "l2", "llc", "dram" or "all". JSON always holds every boundary.
  std::string boundary;
  // Verdicts per region, when a classifier is plugged in (report/verdict_view.h).
  VerdictSource verdicts;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void write(const Profile& p, const ReportOptions& opt,
                     std::ostream& out) const = 0;
};

// "text", "json", "csv", "svg" (the roofline chart) or "html" (the
// self-contained report with the lab); throws Error for anything else.
std::unique_ptr<Reporter> make_reporter(const std::string& format);

}  // namespace rprof

#endif  // RPROF_REPORT_REPORTER_H_
