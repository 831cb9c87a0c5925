// Caliper's json-split layout (what `cali-query -q "... format json-split"`
// writes and Hatchet's CaliperReader / Thicket read): "nodes" (one per
// region path prefix, {"label", "column": "path", "parent"}), "columns",
// "column_metadata" ({"is_value", "attribute.unit", ...}), "data" (one row
// per region: its node id, then its metrics) and "globals". docs/reports.md.
#ifndef RPROF_REPORT_CALIPER_REPORT_H_
#define RPROF_REPORT_CALIPER_REPORT_H_

#include "report/reporter.h"

namespace rprof {

class CaliperReporter final : public Reporter {
 public:
  void write(const Analysis& a, const ReportOptions& opt, std::ostream& out) const override;
};

}  // namespace rprof

#endif  // RPROF_REPORT_CALIPER_REPORT_H_
