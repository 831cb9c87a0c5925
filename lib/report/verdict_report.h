// Verdicts in reports: a "verdict" object per region and the thresholds in
// profile.json (derived: the analysis' verdicts, recomputed whenever a
// profile is rendered), and a "Verdicts" section in the text report.
#ifndef RPROF_REPORT_VERDICT_REPORT_H_
#define RPROF_REPORT_VERDICT_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "common/json_out.h"
#include "report/reporter.h"
#include "analysis/shown_regions.h"
#include "roofline/classify.h"

namespace rprof {

// A region's "verdict" object, streamed (profile.json of 100,000 regions);
// verdict_json() is the same text parsed, for the writers that embed a DOM
// (the HTML report's data, the diff).
void write_verdict_json(json_out::Writer& w, const Verdict& v);
nlohmann::json verdict_json(const Verdict& v);
// profile.json's "verdict_thresholds".
void write_thresholds_json(json_out::Writer& w, const VerdictThresholds& t);

// One block per region: the bound and each flag with its reason and direction.
void write_verdict_text(const Analysis& a, const ShownRegions& shown, std::ostream& out);

}  // namespace rprof

#endif  // RPROF_REPORT_VERDICT_REPORT_H_
