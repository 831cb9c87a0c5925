#include "report/check_baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace rprof {
namespace {

std::string count_text(double v) { return fmt::format("{:.0f}", v); }

bool too_short(const std::optional<Verdict>& v) { return v && v->has(Flag::kTooShort); }

class Items {
 public:
  Items(const RegionDiff& r, std::vector<CheckItem>& out)
      : region_(path_string(r.path)), out_(out) {}

  void add(const std::string& check, const std::string& baseline, const std::string& now,
           bool failed, const std::string& message) {
    CheckItem it;
    it.suite = "baseline";
    it.region = region_;
    it.check = check;
    it.expected = baseline;
    it.measured = now;
    it.failed = failed;
    if (failed) it.message = region_ + ": " + message;
    out_.push_back(std::move(it));
  }

  // An exact count: equal, or the program changed.
  void exact(const std::string& what, const Change& c, const std::string& unit,
             double tolerance = 0) {
    if (!c.any()) return;
    const std::string a = c.before ? count_text(*c.before) + unit : "none";
    const std::string b = c.after ? count_text(*c.after) + unit : "none";
    const bool same =
        c.both() && std::fabs(*c.after - *c.before) <= tolerance * std::fabs(*c.before);
    std::string change;
    if (const auto r = c.ratio()) change = fmt::format(" ({:+.2f}%)", 100 * (*r - 1));
    add(what, a, b, !same,
        "changed program: " + what + " " + a + " -> " + b + change +
            " (exact counts: not noise; update the baseline if the change is intended)");
  }

 private:
  std::string region_;
  std::vector<CheckItem>& out_;
};

}  // namespace

std::vector<CheckItem> compare_to_baseline(const ProfileDiff& d, const BaselineOptions& o) {
  std::vector<CheckItem> out;
  const double t = o.tolerance;
  const std::string tol = fmt::format("{:g}%", 100 * t);
  for (const RegionDiff& r : d.regions) {
    Items items(r, out);
    if (r.presence == Presence::kBeforeOnly) {
      items.add("present", "present", "missing", true,
                "changed program: the region is in the baseline, not in the new run");
      continue;
    }
    if (r.presence == Presence::kAfterOnly) {
      items.add("present", "missing", "present", true,
                "changed program: a new region, not in the baseline");
      continue;
    }
    items.exact("calls", r.calls, "");
    if (o.exact_counts) {
      items.exact("FLOPs", r.flops, " FLOPs", o.count_tolerance);
      for (const BoundaryDiff& b : r.boundaries) {
        const std::string what = std::string("bytes at ") + boundary_name(b.boundary);
        if (b.ci95_change && b.bytes.both()) {
          // Sampled estimates are not exact: a change within the 95% interval
          // of the difference (or the count tolerance) is not a change.
          const double before = *b.bytes.before, after = *b.bytes.after;
          const double room = std::max(*b.ci95_change, o.count_tolerance * std::fabs(before));
          const std::string a = count_text(before) + " B" +
                                (b.ci95_before ? " ± " + count_text(*b.ci95_before) + " B" : "");
          const std::string n = count_text(after) + " B" +
                                (b.ci95_after ? " ± " + count_text(*b.ci95_after) + " B" : "");
          items.add(what + " (sampled, 95%)", a, n, std::fabs(after - before) > room,
                    fmt::format("changed program: {} {} -> {}, a change of {} B beyond the 95% "
                                "interval of the difference (± {} B, sampled estimates)",
                                what, a, n, count_text(after - before),
                                count_text(*b.ci95_change)));
          continue;
        }
        items.exact(what, b.bytes, " B", o.count_tolerance);
      }
    }
    if (o.counts_only) continue;
    const bool short_region = too_short(r.verdict_before) || too_short(r.verdict_after);
    // The runs' own spread: medians compared within the larger spread.
    const bool spread = o.runs_spread && r.repeat_before && r.repeat_after &&
                        r.repeat_before->median_s > 0 && r.repeat_after->median_s > 0;
    const double rt = spread ? std::max(r.repeat_before->spread(), r.repeat_after->spread()) : t;
    const std::string rtol =
        spread ? fmt::format("{:.3g}% tolerance (the runs' spread, median of {} and {} runs)",
                             100 * rt, r.repeat_before->runs, r.repeat_after->runs)
               : tol + " tolerance";
    const std::string median = spread ? "median " : "";
    std::optional<double> ta = r.time_s.before, tb = r.time_s.after;
    if (spread) {
      ta = r.repeat_before->median_s;
      tb = r.repeat_after->median_s;
    }
    if (ta && tb && *ta > 0 && *tb > 0) {
      const double a = *ta, b = *tb;
      const std::string was = fmt::format("{}{:.4g} s", median, a);
      if (short_region) {
        items.add("time (not compared: too short to time)", was, fmt::format("{:.4g} s", b), false,
                  "");
      } else {
        std::string now = fmt::format("{}{:.4g} s ({:+.1f}%)", median, b, 100 * (b / a - 1));
        if (spread) now += fmt::format(" within {:.3g}%", 100 * rt);
        items.add(median + "time", was, now, b > a * (1 + rt),
                  fmt::format("regression: {}time {:.4g} s -> {:.4g} s ({:+.1f}%), beyond the {}",
                              median, a, b, 100 * (b / a - 1), rtol));
      }
    }
    std::optional<double> ga = r.gflops.before, gb = r.gflops.after;
    if (spread && r.flops.both()) {
      ga = *r.flops.before / r.repeat_before->median_s / 1e9;
      gb = *r.flops.after / r.repeat_after->median_s / 1e9;
    }
    if (ga && gb && *ga > 0 && !short_region) {
      const double a = *ga, b = *gb;
      const std::string now = fmt::format("{:.4g} GFLOP/s ({:+.1f}%)", b, 100 * (b / a - 1));
      items.add(median + "GFLOP/s", fmt::format("{:.4g} GFLOP/s", a), now, b * (1 + rt) < a,
                fmt::format("regression: {}{:.4g} GFLOP/s -> {:.4g} GFLOP/s ({:+.1f}%, FMA = 2 "
                            "FLOPs), beyond the {}",
                            median, a, b, 100 * (b / a - 1), rtol));
    }
  }
  return out;
}

}  // namespace rprof
