#include "report/diff_report.h"

#include <fmt/format.h>

#include <cmath>

#include "report/chart_scale.h"
#include "report/table.h"
#include "report/verdict_report.h"
#include "report/verdict_words.h"

namespace rprof {
namespace {

using nlohmann::json;

constexpr const char* kConventions =
    "change = after - before; ratio = after / before; times in s (a region's time is its "
    "slowest thread's); FLOPs with FMA = 2 FLOPs (GFLOP = 1e9 FLOPs); bytes crossing the "
    "named boundary (GB = 1e9 bytes; L1 = core-L1, L2 = L1-L2, LLC = L2-LLC, DRAM = "
    "LLC-DRAM); intensity in FLOP/byte at that boundary; performance in GFLOP/s; sampled bytes (the "
    "sampled cache model): ± = half-width of the 95% interval, a change within "
    "sqrt(ci_before^2 + ci_after^2) does not tell the runs apart";

std::string value(const std::optional<double>& v, double scale) {
  return v ? human_number(*v / scale) : "-";
}

std::string delta_text(const Change& c, double scale, const char* unit) {
  const std::optional<double> d = c.delta();
  if (!d) return "";
  if (*d == 0) return "unchanged";
  return fmt::format("{}{} {}", *d > 0 ? "+" : "", human_number(*d / scale), unit);
}

std::string ratio_text(const Change& c) {
  const std::optional<double> r = c.ratio();
  if (!r) return "";
  return fmt::format("x{} ({:+.1f}%)", human_number(*r), 100 * (*r - 1));
}

std::string run_line(const DiffRun& r) {
  const RunInfo& run = r.profile->run;
  std::string cmd;
  for (const std::string& a : run.command) cmd += (cmd.empty() ? "" : " ") + printable(a);
  return fmt::format("{} ({}{}backend {}{})", r.file, cmd.empty() ? "" : cmd,
                     cmd.empty() ? "" : "; ", run.backend.empty() ? "time" : run.backend,
                     run.wall_time_s > 0 ? fmt::format("; wall {} s", human_number(run.wall_time_s))
                                         : "");
}

std::string verdict_text(const std::optional<Verdict>& v) {
  if (!v) return "-";
  std::string s = verdict_summary(*v);
  for (const VerdictFlag& f : v->flags) s += " [" + std::string(f.name()) + "]";
  return s;
}

void add(TextTable& t, const std::string& what, const Change& c, double scale, const char* unit) {
  if (!c.any()) return;
  t.add_row({what, value(c.before, scale), value(c.after, scale), delta_text(c, scale, unit),
             ratio_text(c)});
}

// One line for a region found in one run only.
std::string one_side(const RegionDiff& r) {
  const bool b = r.presence == Presence::kBeforeOnly;
  auto pick = [&](const Change& c) { return b ? c.before : c.after; };
  std::string s = fmt::format("  {}: time {} s", printable(path_string(r.path)),
                              value(pick(r.time_s), 1));
  if (pick(r.flops)) s += fmt::format(", {} GFLOP", value(pick(r.flops), 1e9));
  for (const BoundaryDiff& bd : r.boundaries) {
    if (pick(bd.bytes)) {
      s += fmt::format(", {} {} GB", boundary_name(bd.boundary), value(pick(bd.bytes), 1e9));
    }
  }
  return s + "\n";
}

// "4 GB ± 0.4 GB (95%, sampled: 412 units)" or "4 GB (exact)".
std::string sampled_side(const std::optional<double>& bytes, const std::optional<double>& ci,
                         const std::optional<double>& units) {
  if (!bytes) return "-";
  if (!ci) return fmt::format("{:.4g} GB (not sampled)", *bytes / 1e9);
  return fmt::format("{:.4g} GB ± {:.4g} GB (95%, sampled: {:.0f} units)", *bytes / 1e9,
                     *ci / 1e9, units.value_or(0));
}

std::string sampled_change_text(const BoundaryDiff& b) {
  std::string s = fmt::format("  {} bytes are sampled estimates: before {}, after {}",
                              boundary_name(b.boundary),
                              sampled_side(b.bytes.before, b.ci95_before, b.units_before),
                              sampled_side(b.bytes.after, b.ci95_after, b.units_after));
  if (b.ci95_change && b.bytes.delta()) {
    s += fmt::format("; change {:+.4g} GB ± {:.4g} GB (95%, the intervals in quadrature): {}",
                     *b.bytes.delta() / 1e9, *b.ci95_change / 1e9,
                     *b.change_within_interval
                         ? "within the intervals, the runs do not tell these bytes apart"
                         : "beyond the intervals, a real change");
  }
  return s + "\n";
}

json change_json(const Change& c) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"before", opt(c.before)}, {"after", opt(c.after)}, {"change", opt(c.delta())},
          {"ratio", opt(c.ratio())}};
}

json verdict_or_null(const std::optional<Verdict>& v) { return v ? verdict_json(*v) : json(nullptr); }

json run_json(const DiffRun& r) {
  const RunInfo& run = r.profile->run;
  return {{"file", r.file},
          {"command", run.command},
          {"backend", run.backend.empty() ? "time" : run.backend},
          {"wall_time_s", run.wall_time_s}};
}

}  // namespace

void write_diff_text(const ProfileDiff& d, const DiffRun& before, const DiffRun& after,
                     std::ostream& out) {
  out << "rprof diff\n  before: " << run_line(before) << "\n  after:  " << run_line(after)
      << "\n";
  out << "Units: " << kConventions << ".\n";
  if (d.wall_time_s.both()) {
    out << fmt::format("Wall time: {} s -> {} s, {}\n", value(d.wall_time_s.before, 1),
                       value(d.wall_time_s.after, 1), ratio_text(d.wall_time_s));
  }
  std::string only_before, only_after;
  int matched = 0;
  for (const RegionDiff& r : d.regions) {
    if (r.presence == Presence::kBeforeOnly) {
      only_before += one_side(r);
      continue;
    }
    if (r.presence == Presence::kAfterOnly) {
      only_after += one_side(r);
      continue;
    }
    ++matched;
    out << "\n" << printable(path_string(r.path)) << "\n";
    TextTable t({"  Metric", "Before", "After", "Change", "After/Before"});
    add(t, "  Calls", r.calls, 1, "");
    add(t, "  Time [s]", r.time_s, 1, "s");
    add(t, "  FLOPs [GFLOP]", r.flops, 1e9, "GFLOP");
    add(t, "  Declared FLOPs [GFLOP]", r.declared_flops, 1e9, "GFLOP");
    add(t, "  Declared bytes [GB]", r.declared_bytes, 1e9, "GB");
    for (const BoundaryDiff& b : r.boundaries) {
      add(t, fmt::format("  Bytes {} [GB]", boundary_name(b.boundary)), b.bytes, 1e9, "GB");
    }
    for (const BoundaryDiff& b : r.boundaries) {
      add(t, fmt::format("  Intensity {} [FLOP/byte]", boundary_name(b.boundary)), b.intensity, 1,
          "FLOP/byte");
    }
    add(t, "  Performance [GFLOP/s]", r.gflops, 1, "GFLOP/s");
    add(t, "  Bound [GFLOP/s]", r.bound_gflops, 1, "GFLOP/s");
    if (r.limited_before || r.limited_after) {
      t.add_row({"  Limited by", r.limited_before.value_or("-"), r.limited_after.value_or("-"),
                 r.limited_before == r.limited_after ? "unchanged" : "changed", ""});
    }
    out << t.render();
    // Sampled bytes: each run's 95% interval, and whether the change is
    // within the interval of the difference.
    for (const BoundaryDiff& b : r.boundaries) {
      if (b.sampled()) out << sampled_change_text(b);
    }
    // Verdicts are sentences: under the table, not in a column.
    if (r.verdict_before || r.verdict_after) {
      out << "  Verdict before: " << verdict_text(r.verdict_before) << "\n"
          << "  Verdict after:  " << verdict_text(r.verdict_after) << "\n";
    }
  }
  if (matched == 0) out << "\nNo region is in both runs (regions are matched by path).\n";
  if (!only_before.empty()) out << "\nOnly in before (matched by path):\n" << only_before;
  if (!only_after.empty()) out << "\nOnly in after (matched by path):\n" << only_after;
}

json diff_to_json(const ProfileDiff& d, const DiffRun& before, const DiffRun& after) {
  json regions = json::array(), only_before = json::array(), only_after = json::array();
  for (const RegionDiff& r : d.regions) {
    const std::string path = path_string(r.path);
    if (r.presence == Presence::kBeforeOnly) only_before.push_back(path);
    if (r.presence == Presence::kAfterOnly) only_after.push_back(path);
    json bytes = json::object(), intensity = json::object();
    for (const BoundaryDiff& b : r.boundaries) {
      json bj = change_json(b.bytes);
      if (b.sampled()) {
        auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
        bj["ci95_before"] = opt(b.ci95_before);
        bj["ci95_after"] = opt(b.ci95_after);
        bj["ci95_change"] = opt(b.ci95_change);
        bj["change_within_interval"] =
            b.change_within_interval ? json(*b.change_within_interval) : json(nullptr);
        bj["sampling_units_before"] = opt(b.units_before);
        bj["sampling_units_after"] = opt(b.units_after);
      }
      bytes[boundary_key(b.boundary)] = bj;
      if (b.intensity.any()) intensity[boundary_key(b.boundary)] = change_json(b.intensity);
    }
    auto text = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
    regions.push_back({{"path", r.path},
                       {"path_string", path},
                       {"presence", presence_key(r.presence)},
                       {"calls", change_json(r.calls)},
                       {"time_s", change_json(r.time_s)},
                       {"flops", change_json(r.flops)},
                       {"declared_flops", change_json(r.declared_flops)},
                       {"declared_bytes", change_json(r.declared_bytes)},
                       {"bytes", bytes},
                       {"intensity", intensity},
                       {"gflops", change_json(r.gflops)},
                       {"bound_gflops", change_json(r.bound_gflops)},
                       {"limited_by", {{"before", text(r.limited_before)},
                                       {"after", text(r.limited_after)}}},
                       {"verdict", {{"before", verdict_or_null(r.verdict_before)},
                                    {"after", verdict_or_null(r.verdict_after)}}}});
  }
  return {{"format", "rprof-diff"},
          {"schema_version", 1},
          {"conventions", kConventions},
          {"before", run_json(before)},
          {"after", run_json(after)},
          {"wall_time_s", change_json(d.wall_time_s)},
          {"regions", regions},
          {"only_before", only_before},
          {"only_after", only_after}};
}

}  // namespace rprof
