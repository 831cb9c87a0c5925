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

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// feed, quotes doubled; control characters (ESC, BEL, CR, TAB, DEL, the C1
// range) shown as \xHH or \u00HH; a field starting with = + - @ (or a tab or
// CR) prefixed with ' so no spreadsheet runs it as a formula.
std::string csv_field(const std::string& s);

}  // namespace rprof

#endif  // RPROF_REPORT_DATA_REPORTS_H_
