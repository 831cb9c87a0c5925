#include "report/verdict_view.h"

#include "report/reporter.h"
#include "report/verdict_report.h"

namespace rprof {

VerdictSource classified_verdicts(const Machine* machine) {
  return [machine](const Region& r, const RegionRoofline*) -> std::optional<Verdict> {
    if (r.is_program()) return std::nullopt;  // as in the text and JSON reports
    ReportOptions opt;
    opt.machine = machine;
    Verdict v = verdict_of(r, opt);
    if (v.bound == "unknown" && v.flags.empty()) return std::nullopt;
    return v;
  };
}

}  // namespace rprof
