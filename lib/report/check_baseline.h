// `rprof check --baseline OLD NEW`: the new run against a stored one, region
// by region (matched by path, report/profile_diff.h). Times and GFLOP/s are
// noisy: a change counts as a regression only beyond a stated relative
// tolerance. Exact counts (a simulated or scripted backend in both runs:
// FLOPs with FMA = 2, bytes at each boundary) and call counts are not noise:
// any change in them is reported as a changed program.
#ifndef RPROF_REPORT_CHECK_BASELINE_H_
#define RPROF_REPORT_CHECK_BASELINE_H_

#include <string>
#include <vector>

#include "report/check_rules.h"
#include "report/profile_diff.h"

namespace rprof {

struct BaselineOptions {
  double tolerance = 0.10;    // relative: time above (1 + t) x, GFLOP/s below / (1 + t)
  std::string tolerance_why;  // "the default", "--tolerance": said in the table's title
  bool exact_counts = false;  // both runs' FLOP and byte counts are exact
  bool counts_only = false;   // leave times and GFLOP/s out (a shared runner's times)
  // FLOPs and bytes equal within this relative difference (0: exactly). The
  // simulated caches see addresses, which follow the environment's size.
  double count_tolerance = 0;
  // Both runs were repeated (rprof --repeat N) and no --tolerance was given:
  // a region with repeat times in both runs compares its median times (and
  // GFLOP/s from them) with the larger of the two runs' spreads,
  // (max - min) / median, as its tolerance; other regions use `tolerance`.
  bool runs_spread = false;
};

// One item per compared quantity of every region (rprof check's table,
// JUnit and annotations); failures carry their one-line message.
std::vector<CheckItem> compare_to_baseline(const ProfileDiff& d, const BaselineOptions& o);

}  // namespace rprof

#endif  // RPROF_REPORT_CHECK_BASELINE_H_
