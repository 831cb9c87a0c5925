// What a report shows of a region's verdict: a one-line summary and flags,
// each with a one-line reason. The verdict logic (lib/roofline, "Verdicts")
// fills it through ReportOptions::verdicts; the writers only display it, and
// show nothing where no source is plugged in or it returns nullopt.
#ifndef RPROF_REPORT_VERDICT_VIEW_H_
#define RPROF_REPORT_VERDICT_VIEW_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rprof {

struct Region;
struct RegionRoofline;

struct VerdictFlag {
  std::string name;    // "latency-bound", "low-vectorization", ...
  std::string reason;  // one line citing the numbers, with units
};

struct VerdictView {
  std::string summary;  // e.g. "memory-bound at DRAM, 92% of the roof"
  std::vector<VerdictFlag> flags;
};

// The roofline is null when the region has none (no machine, no FLOPs).
using VerdictSource =
    std::function<std::optional<VerdictView>(const Region&, const RegionRoofline*)>;

}  // namespace rprof

#endif  // RPROF_REPORT_VERDICT_VIEW_H_
