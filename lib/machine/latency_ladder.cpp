#include "machine/latency_ladder.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace rprof {
namespace {

// The rank of a latency level from the core outward; -1 when unknown.
int rank_of(const std::string& level) {
  if (level == "L1") return 0;
  if (level == "L2") return 1;
  if (level == "L3" || level == "LLC") return 2;
  if (level == "DRAM") return 3;
  return -1;
}

}  // namespace

std::string latency_ladder_note(const CeilingSet& s) {
  std::vector<const LatencyCeiling*> levels;
  for (const LatencyCeiling& l : s.latency) {
    if (rank_of(l.level) >= 0 && l.ns > 0) levels.push_back(&l);
  }
  std::stable_sort(levels.begin(), levels.end(), [](const auto* a, const auto* b) {
    return rank_of(a->level) < rank_of(b->level);
  });
  std::string steps;
  for (size_t i = 1; i < levels.size(); ++i) {
    const LatencyCeiling& lo = *levels[i - 1];
    const LatencyCeiling& hi = *levels[i];
    if (hi.ns > lo.ns) continue;
    steps += fmt::format("{}{} {:.3g} ns is not above {} {:.3g} ns", steps.empty() ? "" : "; ",
                         hi.level, hi.ns, lo.level, lo.ns);
  }
  if (steps.empty()) return "";
  return fmt::format(
      "latency ladder out of order ({} thread{}): {}; the chase of a level did not sit in it "
      "(working set, TLB misses or noise): misses in flight read with these latencies are "
      "doubtful; recalibrate (rprof machine)",
      s.threads, s.threads == 1 ? "" : "s", steps);
}

}  // namespace rprof
