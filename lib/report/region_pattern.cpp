#include "report/region_pattern.h"

namespace rprof {
namespace {

constexpr size_t kNone = std::string_view::npos;

// The names of a pattern, split at '/' ("" stays one empty name).
std::vector<std::string_view> pattern_names(std::string_view pattern) {
  std::vector<std::string_view> names;
  size_t begin = 0;
  while (true) {
    const size_t slash = pattern.find('/', begin);
    names.push_back(pattern.substr(begin, slash == kNone ? kNone : slash - begin));
    if (slash == kNone) return names;
    begin = slash + 1;
  }
}

}  // namespace

// Each token after a star is tried at the leftmost place it fits; on a
// mismatch only the last star takes one more character. An earlier star
// never needs to: whatever a later star could still reach, the leftmost
// choice leaves reachable, so each (pattern, name) position pair is visited
// at most once.
bool name_matches(std::string_view p, std::string_view s) {
  size_t i = 0, j = 0;
  size_t star = kNone, resume = 0;  // the last star, and where its run ends
  while (j < s.size()) {
    if (i < p.size() && p[i] == '*') {
      star = i++;
      resume = j;
    } else if (i < p.size() && (p[i] == '?' || p[i] == s[j])) {
      ++i;
      ++j;
    } else if (star != kNone) {
      i = star + 1;
      j = ++resume;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

// The same greedy walk one level up: "**" is the star, every other pattern
// name matches exactly one path name (name_matches).
bool path_matches(std::string_view pattern, const std::vector<std::string>& path) {
  const std::vector<std::string_view> pat = pattern_names(pattern);
  size_t i = 0, j = 0;
  size_t star = kNone, resume = 0;
  while (j < path.size()) {
    if (i < pat.size() && pat[i] == "**") {
      star = i++;
      resume = j;
    } else if (i < pat.size() && name_matches(pat[i], path[j])) {
      ++i;
      ++j;
    } else if (star != kNone) {
      i = star + 1;
      j = ++resume;
    } else {
      return false;
    }
  }
  while (i < pat.size() && pat[i] == "**") ++i;
  return i == pat.size();
}

}  // namespace rprof
