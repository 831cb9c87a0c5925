// The roofline in reports: a "roofline" object per region and a
// "roofline_machine" object in profile.json (derived data: recomputed from
// the counters and the machine file whenever a profile is rendered, never
// parsed back), and a roofline table in the text report, shown only when
// some region has FLOP counts.
#ifndef RPROF_REPORT_ROOFLINE_REPORT_H_
#define RPROF_REPORT_ROOFLINE_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/reporter.h"
#include "roofline/roofline.h"

namespace rprof {

// The region's roofline (threads = the threads that ran it).
RegionRoofline roofline_of(const Region& r, const Machine& m);

// Adds doc["regions"][i]["roofline"] for regions with FLOP counts and
// doc["roofline_machine"]; doc must be profile_to_json(p).
void add_roofline_json(nlohmann::json& doc, const Profile& p, const ReportOptions& opt);

// The roofline table; writes nothing when no region has FLOP counts.
void write_roofline_text(const Profile& p, const ReportOptions& opt, std::ostream& out);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_REPORT_H_
