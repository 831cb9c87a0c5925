// The memory view in reports: a "memory" object per region in profile.json
// (derived data, recomputed whenever a profile is rendered, never parsed
// back), a bandwidth table in the text report, and per-boundary bandwidth and
// fraction columns in the CSV. Writers render the analysis' MemoryView only.
#ifndef RPROF_REPORT_MEMORY_REPORT_H_
#define RPROF_REPORT_MEMORY_REPORT_H_

#include <ostream>
#include <string>

#include "analysis/analysis.h"
#include "analysis/shown_regions.h"
#include "common/json_out.h"

namespace rprof {

// One region's "memory" object in profile.json, streamed.
void write_memory_region_json(json_out::Writer& w, const MemoryView& mv);

// The bandwidth table; writes nothing when no region has a valid view.
void write_memory_text(const Analysis& a, const ShownRegions& shown, std::ostream& out);

// CSV: the header cells (",bw_l1_gbs,bw_l1_fraction,...,memory_limiting") and
// one region's cells, empty where it has no view or no bytes at a boundary.
std::string memory_csv_header();
std::string memory_csv_cells(const RegionAnalysis& ra);

}  // namespace rprof

#endif  // RPROF_REPORT_MEMORY_REPORT_H_
