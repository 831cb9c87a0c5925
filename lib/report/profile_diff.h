// rprof diff: two runs of a program, region by region (matched by path),
// to check a transformation the way the seeds ask: the bytes it moves at
// each boundary, the useful work (FLOPs) and the elapsed time, before and
// after. Units: seconds, FLOPs (FMA = 2), bytes (GB = 1e9 bytes when shown),
// FLOP/byte, GFLOP/s.
#ifndef RPROF_REPORT_PROFILE_DIFF_H_
#define RPROF_REPORT_PROFILE_DIFF_H_

#include <optional>
#include <string>
#include <vector>

#include "profile/metrics.h"
#include "report/reporter.h"

namespace rprof {

// One quantity before and after; either side may be unknown.
struct Change {
  std::optional<double> before, after;

  bool both() const { return before.has_value() && after.has_value(); }
  bool any() const { return before.has_value() || after.has_value(); }
  // after - before, when both are known.
  std::optional<double> delta() const;
  // after / before, when both are known and before != 0.
  std::optional<double> ratio() const;
};

struct BoundaryDiff {
  Boundary boundary = Boundary::kDRAM;
  Change bytes;      // crossing the boundary, all threads
  Change intensity;  // FLOP/byte
  // Sampled estimates (the sampled cache model): each run's half-width of
  // the 95% interval of its bytes (nullopt where not sampled), and when both
  // runs have the boundary and one is sampled, the half-width of the change,
  // sqrt(ci_before^2 + ci_after^2) (independent runs), and whether the change
  // is within it: the two runs do not tell these bytes apart.
  std::optional<double> ci95_before, ci95_after, ci95_change;
  std::optional<bool> change_within_interval;
  std::optional<double> units_before, units_after;  // sampling units
  bool sampled() const { return ci95_before.has_value() || ci95_after.has_value(); }
};

enum class Presence { kBoth, kBeforeOnly, kAfterOnly };
const char* presence_key(Presence p);  // "both", "before_only", "after_only"

struct RegionDiff {
  std::vector<std::string> path;
  Presence presence = Presence::kBoth;
  Change calls, time_s, flops, gflops;
  Change declared_flops, declared_bytes;  // rprof_work, when stated
  std::vector<BoundaryDiff> boundaries;   // measured in either run, L1 first
  Change bound_gflops;                    // with ceilings
  std::optional<std::string> limited_before, limited_after;  // "compute", "memory (DRAM)"
  std::optional<Verdict> verdict_before, verdict_after;
  // --repeat: the region's time over each run's timed runs, when it has them.
  std::optional<RepeatTimes> repeat_before, repeat_after;
};

struct ProfileDiff {
  Change wall_time_s;
  // Regions of the after run in its tree order, each matched with the
  // before run's region of the same path; then regions only in before.
  std::vector<RegionDiff> regions;
};

// The two runs' analyses: their rooflines (with a machine) add the bounds,
// their verdicts the verdicts.
ProfileDiff diff_profiles(const Analysis& before, const Analysis& after);

}  // namespace rprof

#endif  // RPROF_REPORT_PROFILE_DIFF_H_
