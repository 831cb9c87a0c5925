// The roofline in reports: a "roofline" object per region and a
// "roofline_machine" object in profile.json (derived data: the analysis'
// rooflines, recomputed whenever a profile is rendered, never parsed back),
// and a roofline table in the text report, shown only when some region has
// FLOP counts.
#ifndef RPROF_REPORT_ROOFLINE_REPORT_H_
#define RPROF_REPORT_ROOFLINE_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/reporter.h"
#include "analysis/shown_regions.h"
#include "roofline/roofline.h"

namespace rprof {

// Adds doc["regions"][i]["roofline"] for regions with FLOP counts and
// doc["roofline_machine"]; doc must be profile_to_json(a.prof()).
void add_roofline_json(nlohmann::json& doc, const Analysis& a);
// Its parts, for writers that stream regions: "roofline_machine" (the
// analysis must have a machine) and one region's "roofline".
nlohmann::json roofline_machine_json(const Analysis& a);
nlohmann::json roofline_region_json(const RegionRoofline& rr);
// A function region no cpu-clock sample hit (docs/functions.md): its time's
// upper bound and the rates' lower bounds, as profile.json's "time_bound".
nlohmann::json time_bound_json(const TimeBound& b);
// A function region with a sampled time: its samples and relative error, as
// profile.json's "time_samples". add_time_bound_json adds both.
nlohmann::json sample_stats_json(const SampleStats& s);
void add_time_bound_json(nlohmann::json& doc, const Analysis& a);

// The roofline table; writes nothing when no region has FLOP counts.
void write_roofline_text(const Analysis& a, const ReportOptions& opt, const ShownRegions& shown,
                         std::ostream& out);

// "compute" or "memory (DRAM)": what limits a valid roofline.
std::string limited_by_text(const RegionRoofline& rr);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_REPORT_H_
