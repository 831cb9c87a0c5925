// Which regions the human reports (text, SVG charts, HTML) show. A profile of
// 100,000 regions is read by people through its longest regions: the reports
// for people show at most kMaxShownRegions of them, the longest by inclusive
// time with the regions enclosing them (so the tree still reads), and say how
// many they left out. profile.json and profile.csv keep every region.
//
// They also show each finding once: a region whose only child has its counts
// and (but for a sliver of its own) its time, such as a marker around one
// loop nest or a function that is one loop nest, is one row named for both
// ("dot = loop dot.c:12"); the child's row is folded into it.
#ifndef RPROF_ANALYSIS_SHOWN_REGIONS_H_
#define RPROF_ANALYSIS_SHOWN_REGIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof {

inline constexpr size_t kMaxShownRegions = 200;

struct ShownRegions {
  std::vector<bool> shown;  // per region of the profile, same order
  // Per region: folded into its parent's row (not shown, not left out).
  std::vector<bool> folded;
  // Per region: the names of the regions folded into its row, innermost last.
  std::vector<std::vector<std::string>> also;
  // Per region: how many of its ancestors are folded (its row sits that many
  // levels higher in the tree).
  std::vector<size_t> folded_above;
  size_t left_out = 0;
  // Function rows (the function view) of at most kQuietFunctionSamples
  // cpu-clock samples whose own counts are each under kQuietFunctionShare of
  // the enclosing region's: not shown (main's marker calls under each
  // marker); their number.
  size_t quiet_functions = 0;
  size_t limit = kMaxShownRegions;
  // "99,800 of 100,001 regions are left out of this report: ..." or "".
  std::string line() const;
  // Regions past the selection (none chosen: a default ShownRegions) show.
  bool operator[](size_t i) const { return i >= shown.size() || shown[i]; }
  // The row's name: the region's, then those folded into it, " = " between.
  std::string name(size_t i, const Region& r) const;
  // The row's depth in the shown tree.
  size_t depth(size_t i, const Region& r) const {
    return r.depth() - (i < folded_above.size() ? folded_above[i] : 0);
  }
};

// A parent's exclusive time up to this share of its time still folds its
// only child into its row (the marker or loop entry and exit calls'
// sliver); each counter must agree within kFoldCountShare.
inline constexpr double kFoldTimeShare = 0.1;
inline constexpr uint64_t kQuietFunctionSamples = 1;
inline constexpr double kQuietFunctionShare = 0.01;
inline constexpr double kFoldCountShare = 0.001;

// All regions when there are at most `limit`; else the `limit` longest (by
// inclusive time, [program] always) and every region enclosing one of them.
ShownRegions shown_regions(const Profile& p, size_t limit = kMaxShownRegions);

}  // namespace rprof

#endif  // RPROF_ANALYSIS_SHOWN_REGIONS_H_
