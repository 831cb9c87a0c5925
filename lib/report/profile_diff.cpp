#include "report/profile_diff.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/roofline_report.h"
#include "roofline/sampled_traffic.h"

namespace rprof {
namespace {

// What one run says about one region, as optional numbers.
struct Side {
  std::optional<double> calls, time_s, flops, gflops, declared_flops, declared_bytes, bound;
  std::optional<double> bytes[4], intensity[4];
  std::optional<Traffic> traffic[4];  // measured boundaries, for sampled intervals
  std::optional<std::string> limited;
  std::optional<Verdict> verdict;
  std::optional<RepeatTimes> repeat;
};

Side side_of(const RegionAnalysis& ra) {
  const Region& r = *ra.region;
  Side s;
  s.calls = static_cast<double>(r.calls);
  s.time_s = r.time_s;
  if (r.repeat.runs > 1) s.repeat = r.repeat;
  if (r.work_calls > 0) {
    s.declared_flops = r.work_flops;
    s.declared_bytes = r.work_bytes;
  }
  const Metrics& m = ra.metrics;
  for (Boundary b : kBoundaries) {
    if (m.at(b).measured) s.traffic[static_cast<int>(b)] = m.at(b);
  }
  if (m.has_flops) {
    const double f = m.flops_total();
    s.flops = f;
    if (r.time_s > 0) s.gflops = f / r.time_s / 1e9;
    for (Boundary b : kBoundaries) {
      const Traffic& t = m.at(b);
      if (!t.measured) continue;
      const int k = static_cast<int>(b);
      s.bytes[k] = t.bytes();
      if (t.bytes() > 0) s.intensity[k] = f / t.bytes();
    }
    if (const RegionRoofline* rr = ra.valid_roofline()) {
      s.bound = rr->bound;
      s.limited = limited_by_text(*rr, ra);
    }
  } else {
    // Bytes can be counted without FLOPs; intensity then has no meaning.
    for (Boundary b : kBoundaries) {
      const Traffic& t = m.at(b);
      if (t.measured) s.bytes[static_cast<int>(b)] = t.bytes();
    }
  }
  if (const Verdict* v = ra.shown_verdict()) s.verdict = *v;
  return s;
}

RegionDiff combine(const std::vector<std::string>& path, const Side* a, const Side* b) {
  static const Side none;
  const Side& x = a ? *a : none;
  const Side& y = b ? *b : none;
  RegionDiff d;
  d.path = path;
  d.presence = a && b ? Presence::kBoth : a ? Presence::kBeforeOnly : Presence::kAfterOnly;
  d.calls = {x.calls, y.calls};
  d.time_s = {x.time_s, y.time_s};
  d.flops = {x.flops, y.flops};
  d.gflops = {x.gflops, y.gflops};
  d.declared_flops = {x.declared_flops, y.declared_flops};
  d.declared_bytes = {x.declared_bytes, y.declared_bytes};
  d.bound_gflops = {x.bound, y.bound};
  d.limited_before = x.limited;
  d.limited_after = y.limited;
  d.verdict_before = x.verdict;
  d.verdict_after = y.verdict;
  d.repeat_before = x.repeat;
  d.repeat_after = y.repeat;
  for (Boundary bd : kBoundaries) {
    const int k = static_cast<int>(bd);
    BoundaryDiff bdiff;
    bdiff.boundary = bd;
    bdiff.bytes = {x.bytes[k], y.bytes[k]};
    bdiff.intensity = {x.intensity[k], y.intensity[k]};
    const std::optional<Traffic>& tx = x.traffic[k];
    const std::optional<Traffic>& ty = y.traffic[k];
    if (tx && tx->sampled) {
      bdiff.ci95_before = tx->ci95_bytes;
      bdiff.units_before = tx->sampled_units;
    }
    if (ty && ty->sampled) {
      bdiff.ci95_after = ty->ci95_bytes;
      bdiff.units_after = ty->sampled_units;
    }
    if (tx && ty && bdiff.sampled() && bdiff.bytes.both()) {
      bdiff.ci95_change = difference_ci95(*tx, *ty);
      bdiff.change_within_interval = std::fabs(*bdiff.bytes.delta()) <= *bdiff.ci95_change;
    }
    if (bdiff.bytes.any()) d.boundaries.push_back(bdiff);
  }
  return d;
}

}  // namespace

std::optional<double> Change::delta() const {
  if (!both()) return std::nullopt;
  return *after - *before;
}

std::optional<double> Change::ratio() const {
  if (!both() || *before == 0) return std::nullopt;
  return *after / *before;
}

const char* presence_key(Presence p) {
  switch (p) {
    case Presence::kBoth: return "both";
    case Presence::kBeforeOnly: return "before_only";
    case Presence::kAfterOnly: return "after_only";
  }
  return "both";
}

ProfileDiff diff_profiles(const Analysis& before_run, const Analysis& after_run) {
  const Profile& before = before_run.prof();
  const Profile& after = after_run.prof();
  ProfileDiff d;
  auto wall = [](const Profile& p) {
    return p.run.wall_time_s > 0 ? std::optional<double>(p.run.wall_time_s) : std::nullopt;
  };
  d.wall_time_s = {wall(before), wall(after)};
  std::map<std::vector<std::string>, const RegionAnalysis*> old_regions;
  for (const RegionAnalysis& ra : before_run.regions) old_regions[ra.region->path] = &ra;
  std::map<std::vector<std::string>, bool> matched;
  for (const RegionAnalysis& ra : after_run.regions) {
    const std::vector<std::string>& path = ra.region->path;
    const Side b = side_of(ra);
    auto it = old_regions.find(path);
    if (it != old_regions.end()) {
      const Side a = side_of(*it->second);
      matched[path] = true;
      d.regions.push_back(combine(path, &a, &b));
    } else {
      d.regions.push_back(combine(path, nullptr, &b));
    }
  }
  for (const RegionAnalysis& ra : before_run.regions) {
    if (matched.count(ra.region->path)) continue;
    const Side a = side_of(ra);
    d.regions.push_back(combine(ra.region->path, &a, nullptr));
  }
  return d;
}

}  // namespace rprof
