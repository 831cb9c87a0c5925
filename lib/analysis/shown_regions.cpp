#include "analysis/shown_regions.h"

#include <algorithm>
#include <cmath>
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

// Regions are in tree order: each one's parent, SIZE_MAX for a root (or a
// hand-edited profile's orphan).
std::vector<size_t> parents(const std::vector<Region>& regions) {
  const size_t n = regions.size();
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
  return parent;
}

bool close(double a, double b, double share) {
  return std::fabs(a - b) <= share * std::max(std::fabs(a), std::fabs(b));
}

// Every counter of one is the other's (within kFoldCountShare; a counter
// absent from one is 0 there).
bool same_counts(const CounterMap& a, const CounterMap& b) {
  if (a.empty() || b.empty()) return false;
  for (const auto& [name, v] : a) {
    const auto it = b.find(name);
    if (!close(static_cast<double>(v), it == b.end() ? 0.0 : static_cast<double>(it->second),
               kFoldCountShare)) {
      return false;
    }
  }
  for (const auto& [name, v] : b) {
    if (v != 0 && !a.contains(name)) return false;
  }
  return true;
}

// Is `child`, the only child of `parent`, the same finding as it?
bool same_finding(const Region& parent, const Region& child) {
  if (parent.is_program() || !parent.complete || !child.complete) return false;
  if (parent.threads.size() != child.threads.size()) return false;
  if (parent.time_s <= 0 || parent.exclusive_time_s > kFoldTimeShare * parent.time_s) {
    return false;
  }
  return same_counts(parent.counters, child.counters);
}

// A function row that says nothing: a sample or none, and own counts that
// are a sliver of its parent's.
bool quiet_function(const Region& r, const Region& parent) {
  if (!r.is_function() || !r.fn_sampled || r.fn_samples > kQuietFunctionSamples) return false;
  for (const auto& [name, v] : r.counters) {
    const auto it = parent.counters.find(name);
    const double whole = it == parent.counters.end() ? 0.0 : static_cast<double>(it->second);
    if (static_cast<double>(v) > kQuietFunctionShare * whole) return false;
  }
  return true;
}

void fold_single_children(const std::vector<Region>& regions, ShownRegions& s) {
  const size_t n = regions.size();
  const std::vector<size_t> parent = parents(regions);
  // Quiet function rows first (a leaf of them only: a parent keeps its row).
  std::vector<bool> has_child(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] != SIZE_MAX) has_child[parent[i]] = true;
  }
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] == SIZE_MAX || !s.shown[i] || has_child[i]) continue;
    if (!quiet_function(regions[i], regions[parent[i]])) continue;
    s.shown[i] = false;
    ++s.quiet_functions;
  }
  // Shown children: a hidden one (quiet, or left out) is within the counts'
  // tolerance of nothing when the parent's counts are its shown child's.
  std::vector<size_t> children(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] != SIZE_MAX && s.shown[i]) ++children[parent[i]];
  }
  s.folded.assign(n, false);
  s.also.assign(n, {});
  s.folded_above.assign(n, 0);
  // Innermost first, so a chain (function, marker, loop) folds into one row.
  for (size_t i = n; i-- > 0;) {
    const size_t p = parent[i];
    if (p == SIZE_MAX || children[p] != 1 || !s.shown[p] || !s.shown[i]) continue;
    if (!same_finding(regions[p], regions[i])) continue;
    s.folded[i] = true;
    s.shown[i] = false;
    std::vector<std::string>& names = s.also[p];
    names.push_back(regions[i].name);
    names.insert(names.end(), s.also[i].begin(), s.also[i].end());
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t p = parent[i];
    if (p != SIZE_MAX) s.folded_above[i] = s.folded_above[p] + (s.folded[p] ? 1 : 0);
  }
}

}  // namespace

std::string ShownRegions::name(size_t i, const Region& r) const {
  std::string out = r.name;
  if (i < also.size()) {
    for (const std::string& n : also[i]) out += " = " + n;
  }
  return out;
}

std::string ShownRegions::line() const {
  if (left_out == 0 && quiet_functions > 0) {
    return fmt::format("{} function row{} of at most {} cpu-clock sample{} and under {:.0f}% of "
                       "the enclosing region's counts {} not shown (profile.json has {})",
                       quiet_functions, quiet_functions == 1 ? "" : "s", kQuietFunctionSamples,
                       kQuietFunctionSamples == 1 ? "" : "s", 100 * kQuietFunctionShare,
                       quiet_functions == 1 ? "is" : "are", quiet_functions == 1 ? "it" : "them");
  }
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
  if (n <= limit) {
    fold_single_children(regions, s);
    return s;
  }
  s.shown.assign(n, false);
  const std::vector<size_t> parent = parents(regions);
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
  fold_single_children(regions, s);
  return s;
}

}  // namespace rprof
