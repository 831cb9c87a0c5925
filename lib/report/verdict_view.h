// How the chart, the HTML report and rprof diff get a region's verdict
// (roofline/classify.h): through ReportOptions::verdicts, so the writers do
// not decide how verdicts are made and tests can supply their own. Where no
// source is set, or it returns nullopt, no verdict is shown.
#ifndef RPROF_REPORT_VERDICT_VIEW_H_
#define RPROF_REPORT_VERDICT_VIEW_H_

#include <functional>
#include <optional>

#include "roofline/classify.h"

namespace rprof {

// The roofline is null when the region has none (no machine, no FLOPs).
using VerdictSource =
    std::function<std::optional<Verdict>(const Region&, const RegionRoofline*)>;

// The classifier's verdicts (classify()) against this machine (may be null):
// none for the [program] region, none when nothing could be said (bound
// unknown and no flags).
VerdictSource classified_verdicts(const Machine* machine);

}  // namespace rprof

#endif  // RPROF_REPORT_VERDICT_VIEW_H_
