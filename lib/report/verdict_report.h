// Verdicts in reports: a "verdict" object per region and the thresholds in
// profile.json (derived: the analysis' verdicts, recomputed whenever a
// profile is rendered), and a "Verdicts" section in the text report.
#ifndef RPROF_REPORT_VERDICT_REPORT_H_
#define RPROF_REPORT_VERDICT_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/reporter.h"
#include "analysis/shown_regions.h"
#include "roofline/classify.h"

namespace rprof {

nlohmann::json verdict_json(const Verdict& v);
// The same as JSON text appended to out (no DOM: profile.json of 100,000
// regions).
void append_verdict_json(std::string& out, const Verdict& v);
nlohmann::json thresholds_json(const VerdictThresholds& t);

// Adds doc["regions"][i]["verdict"] and doc["verdict_thresholds"] (when the
// analysis has verdicts).
void add_verdict_json(nlohmann::json& doc, const Analysis& a);

// One block per region: the bound and each flag with its reason and direction.
void write_verdict_text(const Analysis& a, const ShownRegions& shown, std::ostream& out);

}  // namespace rprof

#endif  // RPROF_REPORT_VERDICT_REPORT_H_
