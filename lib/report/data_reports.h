// Machine-readable writers: JSON (profile.json, docs/profile-schema.md) and
// CSV (one row per region, for spreadsheets).
#ifndef RPROF_REPORT_DATA_REPORTS_H_
#define RPROF_REPORT_DATA_REPORTS_H_

#include "report/reporter.h"

namespace rprof {

class JsonReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

class CsvReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

// A CSV field, quoted when needed (RFC 4180).
std::string csv_field(const std::string& s);

}  // namespace rprof

#endif  // RPROF_REPORT_DATA_REPORTS_H_
