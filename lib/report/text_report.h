// The per-region text table people read first.
#ifndef RPROF_REPORT_TEXT_REPORT_H_
#define RPROF_REPORT_TEXT_REPORT_H_

#include "report/reporter.h"

namespace rprof {

class TextReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

}  // namespace rprof

#endif  // RPROF_REPORT_TEXT_REPORT_H_
