// The roofline in reports: a "roofline" object per region and a
// "roofline_machine" object in profile.json (derived data: the analysis'
// rooflines, recomputed whenever a profile is rendered, never parsed back),
// and a roofline table in the text report, shown only when some region has
// FLOP counts.
#ifndef RPROF_REPORT_ROOFLINE_REPORT_H_
#define RPROF_REPORT_ROOFLINE_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/shown_regions.h"
#include "common/json_out.h"
#include "report/reporter.h"
#include "roofline/roofline.h"

namespace rprof {

// profile.json's "roofline_machine" (the analysis must have a machine) and a
// region's "roofline", streamed.
void write_roofline_machine_json(json_out::Writer& w, const Analysis& a);
void write_roofline_region_json(json_out::Writer& w, const RegionRoofline& rr);
// A function region no cpu-clock sample hit (docs/functions.md): its time's
// upper bound and the rates' lower bounds, as profile.json's "time_bound".
void write_time_bound_json(json_out::Writer& w, const TimeBound& b);
// A function region with a sampled time: its samples and relative error, as
// profile.json's "time_samples".
void write_sample_stats_json(json_out::Writer& w, const SampleStats& s);
// The same two parsed, for the HTML report's data.
nlohmann::json time_bound_json(const TimeBound& b);
nlohmann::json sample_stats_json(const SampleStats& s);

// The roofline table; writes nothing when no region has FLOP counts.
void write_roofline_text(const Analysis& a, const ReportOptions& opt, const ShownRegions& shown,
                         std::ostream& out);

// "compute" or "memory (DRAM)": what limits a valid roofline; "waiting
// (off the CPU)" where the region's verdict says no roof set its time, so
// the column and the verdict never disagree.
std::string limited_by_text(const RegionRoofline& rr, const RegionAnalysis& ra);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_REPORT_H_
