// Region path patterns of `rprof check --rules`: '/' between names, within
// a name '*' any run of characters and '?' one character, a whole name
// "**" any number of levels (none included). Brackets and every other
// character are literal: "[program]" is the root region.
//
// Matching is greedy with backtracking to the last star only, at both
// levels: time O(P x S) for a pattern of P characters and a path of S, never
// exponential in the number of stars.
#ifndef RPROF_REPORT_REGION_PATTERN_H_
#define RPROF_REPORT_REGION_PATTERN_H_

#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// Whether one region name matches one name of a pattern ('*', '?').
bool name_matches(std::string_view pattern, std::string_view name);

// Whether a region path matches a rule's pattern.
bool path_matches(std::string_view pattern, const std::vector<std::string>& path);

}  // namespace rprof

#endif  // RPROF_REPORT_REGION_PATTERN_H_
