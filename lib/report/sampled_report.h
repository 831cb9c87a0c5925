// Sampled traffic in reports: the sampled cache model's estimates with their
// 95% intervals (the analysis' RegionAnalysis::sampled_traffic), as a
// "sampled_traffic" array per region in profile.json, a section of the text
// report, and interval columns in the CSV. Writers render; the intervals are
// computed once in roofline/sampled_traffic.
#ifndef RPROF_REPORT_SAMPLED_REPORT_H_
#define RPROF_REPORT_SAMPLED_REPORT_H_

#include <ostream>
#include <string>

#include "analysis/analysis.h"
#include "analysis/shown_regions.h"
#include "common/json_out.h"

namespace rprof {

// What the figures mean, in every writer.
extern const char* const kSampledTrafficConventions;

// "DRAM 4 GB ± 0.4 GB (95%, sampled: 412 units)".
std::string sampled_bytes_text(const SampledBoundary& s);
// "0.25 FLOP/byte [0.2273, 0.2778]" / "... [0.2273, unbounded]"; "" without FLOPs.
std::string sampled_intensity_text(const SampledBoundary& s);
// "12.3 GB/s [11.9, 12.7]"; "" without a time.
std::string sampled_gbs_text(const SampledBoundary& s);

// One region's "sampled_traffic" array in profile.json, streamed.
void write_sampled_traffic_json(json_out::Writer& w, const std::vector<SampledBoundary>& v);

// The "Sampled traffic" section; writes nothing when no shown region has one.
void write_sampled_traffic_text(const Analysis& a, const ShownRegions& shown, std::ostream& out);

// CSV: per boundary its half-width, bytes interval, units and intensity
// interval (",traffic_l1_ci95_bytes,..."), and one region's cells, empty
// where the boundary is not sampled.
std::string sampled_csv_header();
std::string sampled_csv_cells(const RegionAnalysis& ra);

}  // namespace rprof

#endif  // RPROF_REPORT_SAMPLED_REPORT_H_
