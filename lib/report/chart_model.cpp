#include "report/chart_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include "machine/stream_kernels.h"
#include "report/roofline_report.h"

namespace rprof {
namespace {

std::string plural(int n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

std::string working_set(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= 1000000) return fmt::format("{:.3g} MB", b / 1e6);
  if (bytes >= 1000) return fmt::format("{:.3g} kB", b / 1e3);
  return fmt::format("{} B", bytes);
}

std::string provenance(const Provenance& h) {
  std::string s = fmt::format("{} kernel, {}", h.kernel, plural(h.threads, "thread"));
  if (h.working_set_bytes > 0) s += ", working set " + working_set(h.working_set_bytes);
  if (h.repetitions > 0) {
    s += fmt::format(", best of {} repetitions, spread {:.1f}%", h.repetitions, 100 * h.spread);
  }
  return s;
}

std::string date_of(int64_t unix_s) {
  if (unix_s <= 0) return "unknown date";
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// The program's file name and its arguments: the directory says little.
std::string command_text(const std::vector<std::string>& cmd) {
  std::string s;
  for (const std::string& a : cmd) {
    s += s.empty() ? a.substr(a.find_last_of('/') == std::string::npos ? 0 : a.find_last_of('/') + 1)
                   : " " + a;
  }
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

// Points at every boundary with measured bytes, from the counters alone, so
// a profile without ceilings still shows where its regions sit.
std::vector<ChartPoint> points_of(const Metrics& m, double flops) {
  std::vector<ChartPoint> pts;
  for (Boundary b : kBoundaries) {
    const Traffic& t = m.at(b);
    if (!t.measured || t.bytes() <= 0) continue;
    pts.push_back({b, flops / t.bytes(), t.bytes(), t.approximate, false});
  }
  std::sort(pts.begin(), pts.end(),
            [](const ChartPoint& a, const ChartPoint& b) { return a.intensity < b.intensity; });
  return pts;
}

}  // namespace

double dot_radius(double share) {
  return 4.0 + 11.0 * std::sqrt(std::clamp(share, 0.0, 1.0));
}

const char* boundary_colour(Boundary b) {
  switch (b) {
    case Boundary::kL1: return "#0f8b8d";
    case Boundary::kL2: return "#3a6fd8";
    case Boundary::kLLC: return "#8a4fcf";
    case Boundary::kDRAM: return "#e0552b";
  }
  return "#555555";
}

ChartModel build_chart_model(const Analysis& an) {
  const Profile& p = an.prof();
  ChartModel c;
  c.title = p.run.command.empty() ? "Roofline" : "Roofline: " + command_text(p.run.command);
  if (!p.run.failure.empty()) c.title += " (FAILED: " + p.run.failure + ")";
  const ChartCeilings& ceil = an.machine.chart;
  double longest = 0;
  for (const Region& r : p.regions) longest = std::max(longest, r.time_s);
  const double total = p.run.wall_time_s > 0 ? p.run.wall_time_s : longest;

  // Regions with FLOPs; the analysis chose the ceilings for those it charts.
  c.shown = an.shown;
  std::vector<std::string> parents;  // of each charted region, for its label
  for (size_t i = 0; i < an.regions.size(); ++i) {
    const RegionAnalysis& ra = an.regions[i];
    const Region& r = *ra.region;
    const Metrics& mt = ra.metrics;
    if (!mt.has_flops || !c.shown[i]) continue;
    ChartRegion cr;
    cr.number = static_cast<int>(c.regions.size()) + 1;
    cr.path = path_string(r.path);
    cr.name = r.name;
    cr.threads = std::max<int>(1, static_cast<int>(r.threads.size()));
    cr.time_s = r.time_s;
    cr.share = total > 0 ? std::min(1.0, r.time_s / total) : 0;
    cr.flops = mt.flops_total();
    cr.gflops = r.time_s > 0 ? cr.flops / r.time_s / 1e9 : 0;
    if (ra.time_bound && ra.time_bound->min_gflops) {
      cr.lower_bound = true;
      cr.time_s = ra.time_bound->max_time_s;
      cr.share = total > 0 ? std::min(1.0, cr.time_s / total) : 0;
      cr.gflops = *ra.time_bound->min_gflops;
    }
    if (r.repeat.runs > 1 && r.repeat.min_s > 0 && cr.flops > 0 && !cr.lower_bound) {
      cr.repeat_runs = r.repeat.runs;
      cr.gflops_low = cr.flops / r.repeat.max_s / 1e9;
      cr.gflops_high = cr.flops / r.repeat.min_s / 1e9;
      cr.repeat_spread = r.repeat.spread();
    }
    if (ra.sampling && ra.sampling->uncertain && !ra.time_bound) {
      cr.uncertain = true;
      cr.samples = ra.sampling->samples;
    }
    cr.points = points_of(mt, cr.flops);
    // Sampled boundaries: the analysis' interval of the intensity.
    for (ChartPoint& pt : cr.points) {
      const SampledBoundary* sb = ra.sampled_at(pt.boundary);
      if (sb == nullptr || !sb->intensity_ci) continue;
      pt.sampled = true;
      pt.intensity_low = sb->intensity_ci->lo;
      pt.intensity_high_unbounded = !sb->intensity_ci->hi;
      pt.intensity_high = sb->intensity_ci->hi.value_or(0);
      pt.ci95_bytes = sb->ci95_bytes;
      pt.sampling_units = sb->units;
    }
    if (ra.roofline) {
      const RegionRoofline* rr = &*ra.roofline;
      if (rr->valid) {
        cr.has_roofline = true;
        cr.roof_label = rr->roof.label();
        cr.roof_gflops = rr->roof.gflops;
        cr.bound = rr->bound;
        cr.fraction = rr->fraction;
        cr.limited_by = rr->uncertain ? "uncertain (few samples)" : limited_by_text(*rr, ra);
        // Only a memory-limited region has a limiting boundary to outline.
        for (ChartPoint& pt : cr.points) {
          pt.limiting = !rr->compute_limited && rr->limiting == pt.boundary;
        }
      } else {
        cr.notes.push_back("no roofline: " + rr->why_not);
      }
      for (const SharedText& n : rr->notes) cr.notes.push_back(n);
    }
    if (const Verdict* v = ra.shown_verdict()) cr.verdict = *v;
    if (ra.function) {
      cr.is_function = true;
      cr.symbol = ra.function->symbol;
      cr.source = ra.function->source;
      cr.object = ra.function->object;
    }
    if (!ra.charted) {
      // Why it has no point: no FLOPs (a FLOP rate of 0 has no place on a
      // log axis), no time, or no bytes.
      const char* why = !(cr.flops > 0)    ? "0 FLOPs counted: no point on the roofline"
                        : !(cr.time_s > 0) ? "no elapsed time"
                        : cr.gflops <= 0   ? "no FLOP rate"
                                           : "no bytes counted at any boundary";
      c.missing.push_back(fmt::format("{}: {}", cr.path, why));
      continue;
    }
    c.regions.push_back(std::move(cr));
    parents.push_back(r.path.size() > 1 ? r.path[r.path.size() - 2] : "");
  }
  if (an.any_flops && c.shown.left_out > 0) c.missing.push_back(c.shown.line());
  if (!an.any_flops) {
    c.missing.push_back(fmt::format(
        "no region has FLOP counts (backend {}): a roofline needs a counting backend, "
        "e.g. rprof --backend=sim",
        p.run.backend.empty() ? "time" : p.run.backend));
  }

  // Ceilings: as the analysis chose them; here only their words.
  if (ceil.threads == 0) {
    std::string why = "no machine ceilings: run rprof machine (or pass --machine FILE)";
    for (const std::string& n : an.machine.notes) why = n;
    if (an.any_flops) c.missing.push_back(why);
  } else {
    c.ceiling_threads = ceil.threads;
    for (const ChartCeilingRoof& r : ceil.roofs) {
      c.roofs.push_back({r.roof, r.applied, r.how ? provenance(*r.how) : ""});
    }
    for (const ChartCeilingBandwidth& bw : ceil.bandwidths) {
      std::string how = provenance(bw.how);
      if (bw.boundary != Boundary::kL1) {
        how += fmt::format(
            "; bytes include the write-allocate read of each store (as the regions' bytes "
            "do); STREAM's convention (explicit bytes): {:.4g} GB/s ({} kernel)",
            bw.stream_gbs, stream_key(bw.stream_kernel));
      }
      c.bandwidths.push_back({bw.boundary, bw.gbs, bw.kernel, how});
    }
    for (const ChartCeilingRidge& r : ceil.ridges) {
      c.ridges.push_back({r.boundary, r.roof.label(), r.intensity, r.roof.gflops});
    }
  }

  // Labels: a name shared by charted regions gets its parent's name.
  std::map<std::string, int> named;
  for (const ChartRegion& r : c.regions) ++named[r.name];
  std::map<std::string, int> labelled;
  for (ChartRegion& r : c.regions) {
    r.label = r.name;
    if (named[r.name] < 2) continue;
    const std::string& parent = parents[static_cast<size_t>(r.number - 1)];
    if (!parent.empty()) r.label += " in " + parent;
    ++labelled[r.label];
  }
  // Parents of one name too: the parent's path, then the region's number.
  std::map<std::string, int> again;
  for (ChartRegion& r : c.regions) {
    if (labelled[r.label] < 2) continue;
    r.label = r.name + " in " + r.path.substr(0, r.path.size() - std::min(r.path.size(), r.name.size() + 1));
    ++again[r.label];
  }
  for (ChartRegion& r : c.regions) {
    if (again[r.label] > 1) r.label += fmt::format(" #{}", r.number);
  }

  // Domains: the points, ridges and roofs, with room for labels; a point
  // far outside the others (shown_span) sits at the edge instead.
  std::vector<double> xs, ys, ridge_xs, roof_ys;
  for (const ChartRegion& r : c.regions) {
    ys.push_back(r.gflops);
    for (const ChartPoint& pt : r.points) xs.push_back(pt.intensity);
  }
  for (const ChartRidge& r : c.ridges) ridge_xs.push_back(r.intensity);
  for (const ChartRoof& r : c.roofs) roof_ys.push_back(r.roof.gflops);
  const ValueSpan sx = shown_span(xs, ridge_xs, kOffScaleGapX);
  const ValueSpan sy = shown_span(ys, roof_ys, kOffScaleGapY);
  double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
  auto take_x = [&](double v) { x_lo = std::min(x_lo, v); x_hi = std::max(x_hi, v); };
  auto take_y = [&](double v) { y_lo = std::min(y_lo, v); y_hi = std::max(y_hi, v); };
  // Ends of error bars count when they stay within a decade of the span.
  auto near = [](const ValueSpan& s, double v) { return v >= s.lo / 10 && v <= s.hi * 10; };
  for (ChartRegion& r : c.regions) {
    r.gflops_off_scale = sy.side(r.gflops);
    if (r.gflops_off_scale == 0) take_y(r.gflops);
    c.off_scale += r.gflops_off_scale != 0;
    if (r.repeat_runs > 0) {
      for (double v : {r.gflops_low, r.gflops_high}) {
        if (near(sy, v)) take_y(v);
      }
    }
    for (ChartPoint& pt : r.points) {
      pt.off_scale = sx.side(pt.intensity);
      c.off_scale += pt.off_scale != 0;
      if (pt.off_scale == 0) take_x(pt.intensity);
      // An interval's ends are on the chart (an unbounded one runs to its edge).
      if (pt.sampled) {
        c.any_sampled = true;
        if (pt.intensity_low > 0 && near(sx, pt.intensity_low)) take_x(pt.intensity_low);
        if (!pt.intensity_high_unbounded && near(sx, pt.intensity_high)) take_x(pt.intensity_high);
      }
    }
  }
  for (const ChartRidge& r : c.ridges) take_x(r.intensity);
  for (const ChartRoof& r : c.roofs) take_y(r.roof.gflops);
  c.x = fit_log_axis(x_lo, x_hi, 3.0, 3.0);
  c.y = fit_log_axis(y_lo, y_hi, 3.0, 3.0);

  // Conventions, stated on the chart itself.
  const std::string backend = p.run.backend.empty() ? "time" : p.run.backend;
  c.subtitle = c.regions.empty()
                   ? fmt::format("no region with FLOP counts; backend {}", backend)
                   : fmt::format("{} with FLOP counts; backend {}; regions on up to {}",
                                 plural(static_cast<int>(c.regions.size()), "region"), backend,
                                 plural(ceil.region_threads, "thread"));
  c.conventions.push_back(
      "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; intensity = FLOPs / bytes "
      "crossing the boundary (L1 = core-L1, L2 = L1-L2, LLC = L2-LLC, DRAM = LLC-DRAM)");
  if (ceil.threads != 0) {
    c.conventions.push_back(fmt::format(
        "Ceilings measured by rprof machine ({}, {}) with {} on {}{}", ceil.mode,
        date_of(ceil.created_unix_s), plural(ceil.threads, "thread"), ceil.cpu_model,
        ceil.threads != ceil.region_threads
            ? fmt::format(" (nearest to the regions' {})", ceil.region_threads)
            : ""));
  }
  c.conventions.push_back(
      "One dot per boundary, joined: same GFLOP/s, one intensity each; dot area = share of "
      "run time; bound = min(compute roof, bandwidth x intensity)");
  if (c.off_scale > 0) {
    c.conventions.push_back(
        "A dot with an arrow at the plot's edge: its value lies far outside the others' (more "
        "than 1000x in intensity or 10000x in GFLOP/s, e.g. a boundary crossed by a handful of "
        "bytes); it is written beside the arrow");
  }
  if (c.any_sampled) {
    c.conventions.push_back(
        "Bars through a dot: the 95% interval of the sampled traffic at that boundary (the "
        "sampled cache model's estimate), as intensity FLOPs / bytes_high to FLOPs / "
        "bytes_low; an open end with an arrow: no upper end (bytes_low is 0)");
  }
  if (std::any_of(c.regions.begin(), c.regions.end(),
                  [](const ChartRegion& r) { return r.lower_bound; })) {
    c.conventions.push_back(
        "Hollow dots with an arrow up: a lower bound on GFLOP/s (a function no cpu-clock "
        "sample hit: its time is below one sampling period per thread)");
  }
  return c;
}

}  // namespace rprof
