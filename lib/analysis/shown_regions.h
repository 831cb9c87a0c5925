// Which regions the human reports (text, SVG charts, HTML) show. A profile of
// 100,000 regions is read by people through its longest regions: the reports
// for people show at most kMaxShownRegions of them, the longest by inclusive
// time with the regions enclosing them (so the tree still reads), and say how
// many they left out. profile.json and profile.csv keep every region.
#ifndef RPROF_ANALYSIS_SHOWN_REGIONS_H_
#define RPROF_ANALYSIS_SHOWN_REGIONS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof {

inline constexpr size_t kMaxShownRegions = 200;

struct ShownRegions {
  std::vector<bool> shown;  // per region of the profile, same order
  size_t left_out = 0;
  size_t limit = kMaxShownRegions;
  // "99,800 of 100,001 regions are left out of this report: ..." or "".
  std::string line() const;
  // Regions past the selection (none chosen: a default ShownRegions) show.
  bool operator[](size_t i) const { return i >= shown.size() || shown[i]; }
};

// All regions when there are at most `limit`; else the `limit` longest (by
// inclusive time, [program] always) and every region enclosing one of them.
ShownRegions shown_regions(const Profile& p, size_t limit = kMaxShownRegions);

}  // namespace rprof

#endif  // RPROF_ANALYSIS_SHOWN_REGIONS_H_
