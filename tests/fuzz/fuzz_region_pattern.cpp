// Fuzz target: the region path patterns of `rprof check --rules`
// (report/region_pattern.h). The input's first line is a pattern, the rest a
// region path ('/' between names). Every input must finish within the
// driver's time bound per input (-timeout; a matcher that tries every split
// of the stars needs minutes for 60 characters); where the plain definition
// below is cheap enough to run (few stars), the matcher must agree with it.
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "report/region_pattern.h"

namespace {

// A rule's pattern and a profile's path are a few KiB at most (a region
// name is at most 4096 bytes); matching is O(pattern x path).
constexpr size_t kMaxInput = 16384;
// The plain definition tries every split: 3 stars over 64 bytes is 64^3.
constexpr size_t kMaxStarsChecked = 3;
constexpr size_t kMaxBytesChecked = 64;

bool plain_name(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return plain_name(p + 1, s) || (*s != '\0' && plain_name(p, s + 1));
  if (*s == '\0') return false;
  return (*p == '?' || *p == *s) && plain_name(p + 1, s + 1);
}

bool plain_names(const std::vector<std::string>& pat, size_t i,
                 const std::vector<std::string>& path, size_t j) {
  if (i == pat.size()) return j == path.size();
  if (pat[i] == "**") {
    for (size_t k = j; k <= path.size(); ++k) {
      if (plain_names(pat, i + 1, path, k)) return true;
    }
    return false;
  }
  return j < path.size() && plain_name(pat[i].c_str(), path[j].c_str()) &&
         plain_names(pat, i + 1, path, j + 1);
}

// Names split at '/'; "" is one empty name.
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> names(1);
  for (char c : text) {
    if (c == '/') {
      names.emplace_back();
    } else {
      names.back() += c;
    }
  }
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = rprof::fuzz::text_of(data, size < kMaxInput ? size : kMaxInput);
  const size_t newline = text.find('\n');
  const std::string pattern = text.substr(0, newline);
  const std::string rest = newline == std::string::npos ? "" : text.substr(newline + 1);
  // The root region's path is one name; a path with no name at all is
  // matched too (only "**" takes it).
  const std::vector<std::string> path = rest.empty() ? std::vector<std::string>{} : split(rest);
  const bool matched = rprof::path_matches(pattern, path);
  size_t stars = 0;
  for (char c : pattern) stars += c == '*' ? 1 : 0;
  if (stars <= kMaxStarsChecked && text.size() <= kMaxBytesChecked &&
      plain_names(split(pattern), 0, path, 0) != matched) {
    __builtin_trap();
  }
  return 0;
}
