// Report writers: one interface, one class per format (text, json, csv).
#ifndef RPROF_REPORT_REPORTER_H_
#define RPROF_REPORT_REPORTER_H_

#include <memory>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace rprof {

struct ReportOptions {
  bool show_threads = false;  // per-thread rows under each region (text)
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void write(const Profile& p, const ReportOptions& opt,
                     std::ostream& out) const = 0;
};

// "text", "json" or "csv"; throws Error for anything else.
std::unique_ptr<Reporter> make_reporter(const std::string& format);

}  // namespace rprof

#endif  // RPROF_REPORT_REPORTER_H_
