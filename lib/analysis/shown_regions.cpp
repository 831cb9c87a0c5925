#include "analysis/shown_regions.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace rprof {
namespace {

// 100000 -> "100,000".
std::string grouped(size_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

bool is_prefix(const std::vector<std::string>& parent, const std::vector<std::string>& path) {
  return parent.size() + 1 == path.size() && std::equal(parent.begin(), parent.end(), path.begin());
}

}  // namespace

std::string ShownRegions::line() const {
  if (left_out == 0) return "";
  const size_t total = shown.size();
  return fmt::format(
      "{} of {} regions are left out of this report: it shows the {} longest (inclusive "
      "time) with the regions enclosing them; profile.json and profile.csv hold every region",
      grouped(left_out), grouped(total), grouped(limit));
}

ShownRegions shown_regions(const Profile& p, size_t limit) {
  const std::vector<Region>& regions = p.regions;
  ShownRegions s;
  s.limit = limit;
  const size_t n = regions.size();
  s.shown.assign(n, true);
  if (n <= limit) return s;
  s.shown.assign(n, false);
  // Each region's parent: the regions are in tree order, so the open
  // ancestors form a stack (a hand-edited profile may break it: no parent).
  std::vector<size_t> parent(n, SIZE_MAX), stack;
  for (size_t i = 0; i < n; ++i) {
    while (!stack.empty() && regions[stack.back()].path.size() >= regions[i].path.size()) {
      stack.pop_back();
    }
    if (!stack.empty() && is_prefix(regions[stack.back()].path, regions[i].path)) {
      parent[i] = stack.back();
    }
    stack.push_back(i);
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  auto longer = [&](size_t a, size_t b) {
    if (regions[a].is_program() != regions[b].is_program()) return regions[a].is_program();
    if (regions[a].time_s != regions[b].time_s) return regions[a].time_s > regions[b].time_s;
    return a < b;
  };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit),
                   order.end(), longer);
  for (size_t k = 0; k < limit; ++k) {
    for (size_t i = order[k]; i != SIZE_MAX && !s.shown[i]; i = parent[i]) s.shown[i] = true;
  }
  s.left_out = static_cast<size_t>(std::count(s.shown.begin(), s.shown.end(), false));
  return s;
}

}  // namespace rprof
