#include "report/html_report.h"

#include <fmt/format.h>

#include <map>
#include <ostream>

#include "machine/machine.h"
#include "report/markup.h"
#include "report/report_assets.h"
#include "report/bandwidth_chart.h"
#include "report/roofline_report.h"
#include "report/sampled_report.h"
#include "report/svg_chart.h"
#include "report/verdict_report.h"

namespace rprof {
namespace {

using nlohmann::json;

json boundary_map() { return json::object(); }

json region_data(const RegionAnalysis& ra, const Profile& p, const ShownRegions& shown,
                 size_t index) {
  const Region& r = *ra.region;
  const Metrics& m = ra.metrics;
  json j = {{"number", static_cast<int>(index) + 1},
            {"path", path_string(r.path)},
            {"name", r.name},
            // The row's name and depth: a region with its only child of the
            // same counts and time is one row ("dot = loop dot.c:3").
            {"label", shown.name(index, r)},
            {"depth", shown.depth(index, r)},
            // A function region's calls are not counted (its time is sampled).
            {"calls", r.is_function() ? json(nullptr) : json(r.calls)},
            {"time_s", r.time_s},
            {"exclusive_time_s", r.exclusive_time_s},
            {"threads", r.threads.size()},
            {"complete", r.complete},
            {"is_program", r.is_program()}};
  j["percent_of_run"] = p.run.wall_time_s > 0 ? json(100.0 * r.time_s / p.run.wall_time_s)
                                              : json(nullptr);
  j["imbalance"] = r.threads.size() > 1 ? json(r.thread_spread().imbalance()) : json(nullptr);
  j["repeat_times"] = r.repeat.runs > 0 ? json{{"runs", r.repeat.runs},
                                               {"min_time_s", r.repeat.min_s},
                                               {"median_time_s", r.repeat.median_s},
                                               {"max_time_s", r.repeat.max_s},
                                               {"spread", r.repeat.spread()}}
                                        : json(nullptr);
  j["declared"] = r.work_calls > 0 ? json{{"flops", r.work_flops}, {"bytes", r.work_bytes}}
                                   : json(nullptr);
  json bytes = boundary_map(), intensity = boundary_map();
  if (m.has_flops) {
    const double f = m.flops_total();
    j["flops"] = f;
    j["gflops"] = r.time_s > 0 ? json(f / r.time_s / 1e9) : json(nullptr);
    for (Boundary b : kBoundaries) {
      const Traffic& t = m.at(b);
      if (!t.measured) continue;
      bytes[boundary_key(b)] = t.bytes();
      if (t.bytes() > 0) intensity[boundary_key(b)] = f / t.bytes();
    }
  } else {
    j["flops"] = nullptr;
    j["gflops"] = nullptr;
  }
  j["bytes"] = bytes;
  j["intensity"] = intensity;
  // The sampled cache model's estimates: per sampled boundary its 95%
  // interval (profile.json's sampled_traffic objects, keyed by boundary).
  json sampled = boundary_map();
  if (!ra.sampled_traffic.empty()) {
    const json list = json_out::parsed(
        [&](json_out::Writer& w) { write_sampled_traffic_json(w, ra.sampled_traffic); });
    for (const json& s : list) sampled[s.at("boundary").get<std::string>()] = s;
  }
  j["sampled_traffic"] = sampled;
  j["roofline"] = nullptr;
  j["notes"] = json::array();
  if (ra.roofline) {
    const RegionRoofline* rr = &*ra.roofline;
    if (rr->valid) {
      json bs = json::object();
      for (const BoundaryRoof& b : rr->boundaries) {
        bs[boundary_key(b.boundary)] = {{"bandwidth_gbs", b.bandwidth_gbs},
                                        {"kernel", stream_key(b.kernel)},
                                        {"intensity", b.intensity},
                                        {"bound_gflops", b.bound},
                                        {"ridge", b.ridge},
                                        {"approximate", b.approximate}};
      }
      j["roofline"] = {{"roof_label", rr->roof.label()},
                       {"roof_gflops", rr->roof.gflops},
                       {"full_roof_label", rr->full_roof.label()},
                       {"full_roof_gflops", rr->full_roof.gflops},
                       {"threads", rr->threads},
                       {"ceiling_threads", rr->ceiling_threads},
                       {"bound_gflops", rr->bound},
                       {"fraction_of_bound", rr->fraction},
                       {"lower_bound", rr->lower_bound},
                       {"uncertain", rr->uncertain},
                       {"limiting", rr->limiting ? json(boundary_key(*rr->limiting)) : json(nullptr)},
                       {"limited_by", rr->compute_limited ? "compute" : "memory"},
                       {"roof_why", rr->roof_why},
                       {"boundaries", bs}};
    } else {
      j["notes"].push_back("no roofline: " + rr->why_not);
    }
    for (const std::string& n : rr->notes) j["notes"].push_back(n);
  }
  // The memory view: GB/s and fraction of the roof per boundary.
  j["memory"] = nullptr;
  if (const MemoryView* mv = ra.valid_memory()) {
    json bs = json::object();
    for (const BoundaryBandwidth& b : mv->boundaries) {
      bs[boundary_key(b.boundary)] = {{"gbs", b.gbs},
                                      {"roof_gbs", b.roof_gbs},
                                      {"fraction_of_roof", b.fraction},
                                      {"misses_in_flight_per_thread",
                                       b.in_flight ? json(*b.in_flight) : json(nullptr)},
                                      {"misses_in_flight_implausible", b.in_flight_implausible}};
    }
    j["memory"] = {{"limiting", boundary_key(*mv->limiting)},
                   {"lower_bound", mv->lower_bound},
                   {"uncertain", mv->uncertain},
                   {"fraction_of_roof", mv->fraction},
                   {"ceiling_threads", mv->ceiling_threads},
                   {"boundaries", bs}};
  }
  // A function region: where it is, and its inclusive counts beside the self
  // counts the rest of the row shows.
  j["function"] = nullptr;
  if (ra.function) {
    const FunctionInfo& f = *ra.function;
    const Traffic& dram = f.inclusive.at(Boundary::kDRAM);
    j["function"] = {{"symbol", f.symbol},
                     {"raw_symbol", f.raw_symbol},
                     {"object", f.object},
                     {"source", f.source},
                     {"inclusive_flops", f.inclusive.has_flops ? json(f.inclusive.flops_total())
                                                               : json(nullptr)},
                     {"inclusive_dram_bytes", dram.measured ? json(dram.bytes()) : json(nullptr)}};
  }
  // No sample hit it: its time from above, its rates from below.
  j["time_bound"] = ra.time_bound ? time_bound_json(*ra.time_bound) : json(nullptr);
  // A sampled time: its samples, relative error, uncertain or not.
  j["time_samples"] = ra.sampling ? sample_stats_json(*ra.sampling) : json(nullptr);
  // Summary, direction, flags with reasons.
  const Verdict* v = ra.shown_verdict();
  j["verdict"] = v != nullptr ? verdict_json(*v) : json(nullptr);
  return j;
}

json machine_data(const MachineSource& src, const ChartModel& chart) {
  if (src.machine == nullptr) return nullptr;
  const Machine& m = *src.machine;
  json roofs = json::array(), bws = json::array();
  for (const ChartRoof& r : chart.roofs) {
    roofs.push_back({{"label", r.roof.label()}, {"gflops", r.roof.gflops}, {"applied", r.applied},
                     {"how", r.how}});
  }
  for (const ChartBandwidth& b : chart.bandwidths) {
    bws.push_back({{"boundary", boundary_key(b.boundary)}, {"gbs", b.gbs},
                   {"kernel", stream_key(b.kernel)}, {"how", b.how}});
  }
  std::vector<int> counts;
  for (const CeilingSet& s : m.ceilings) counts.push_back(s.threads);
  return {{"file", src.file},            {"mode", m.mode},
          {"cpu", m.cpu.model_name},      {"created_unix_s", m.created_unix_s},
          {"host", m.host},               {"rprof_version", m.rprof_version},
          {"pages", m.pages},             {"thread_counts", counts},
          {"chart_threads", chart.ceiling_threads},
          {"roofs", roofs},               {"bandwidths", bws},
          {"notes", src.notes}};
}

// Substitutes @NAME@ placeholders in one pass, so inserted text is never
// scanned for placeholders again.
std::string fill(const std::string& tpl, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t i = 0;
  while (i < tpl.size()) {
    const size_t a = tpl.find('@', i);
    if (a == std::string::npos) break;
    const size_t b = tpl.find('@', a + 1);
    if (b == std::string::npos) break;
    auto it = values.find(tpl.substr(a + 1, b - a - 1));
    if (it == values.end()) {
      out.append(tpl, i, a + 1 - i);
      i = a + 1;
      continue;
    }
    out.append(tpl, i, a - i);
    out += it->second;
    i = b + 1;
  }
  out.append(tpl, i, std::string::npos);
  return out;
}

}  // namespace

json html_report_data(const Analysis& a, const ChartModel& chart) {
  const Profile& p = a.prof();
  json d;
  d["format"] = "rprof-html-data";
  d["title"] = chart.title;
  const RunInfo& run = p.run;
  d["run"] = {{"command", run.command},       {"backend", run.backend.empty() ? "time" : run.backend},
              {"host", run.host},             {"start_unix_s", run.start_unix_s},
              {"wall_time_s", run.wall_time_s}, {"exit_code", run.exit_code},
              {"signal", run.signal},         {"processes", run.processes},
              {"threads", run.threads},       {"world_size", run.world_size},
              {"failure", run.failure}};
  d["conventions"] = {
      {"flops", "FMA = 2 FLOPs per lane; GFLOP/s = 1e9 FLOP/s"},
      {"bytes", "GB = 1e9 bytes, counted where they cross the named boundary"},
      {"boundaries",
       {{"l1", "core <-> L1: the program's loads and stores"},
        {"l2", "L1 <-> L2: line fills and write-backs"},
        {"llc", "L2 <-> LLC"},
        {"dram", "LLC <-> DRAM"}}},
      {"intensity", "FLOP/byte = FLOPs / bytes crossing the boundary"},
      {"sampled", a.any_sampled_traffic ? json(kSampledTrafficConventions) : json(nullptr)},
      {"time", "seconds; a region's time is its slowest thread's (inclusive of children)"},
      {"bound", "min(compute roof, bandwidth x intensity) at each boundary; the region's "
                "bound is the lowest (its limiting boundary)"}};
  d["machine"] = machine_data(a.machine, chart);
  json regions = json::array();
  for (size_t i = 0; i < a.regions.size(); ++i) {
    if (chart.shown[i]) regions.push_back(region_data(a.regions[i], p, chart.shown, i));
  }
  d["regions"] = std::move(regions);
  d["verdicts_available"] = a.verdicts;
  d["notes"] = p.notes;
  d["regions_left_out"] = chart.shown.left_out;
  if (chart.shown.left_out > 0) d["notes"].push_back(chart.shown.line());
  d["missing"] = chart.missing;
  json errors = json::array();
  for (const MarkerError& e : p.errors) {
    errors.push_back({{"kind", e.kind}, {"expected", e.expected}, {"got", e.got}, {"count", e.count}});
  }
  d["marker_errors"] = errors;
  return d;
}

namespace {

// The bandwidth chart's section, beside the roofline; none without views.
std::string bandwidth_section(const Analysis& a) {
  const std::string svg = render_bandwidth_svg(a, /*standalone=*/false);
  if (svg.empty()) return "";
  return "<section id=\"bandwidth\" class=\"card\" aria-label=\"Bandwidth chart\">\n"
         "  <h2>Bandwidth per boundary</h2>\n"
         "  <div class=\"chart-wrap\" data-testid=\"bandwidth-chart\">" +
         svg + "</div>\n</section>\n";
}

}  // namespace

void HtmlReporter::write(const Analysis& a, const ReportOptions&, std::ostream& out) const {
  const ChartModel chart = build_chart_model(a);
  const json data = html_report_data(a, chart);
  // Invalid UTF-8 in names becomes U+FFFD rather than failing the dump.
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  out << fill(assets::kReportHtml, {{"TITLE", xml_escape(chart.title)},
                                    {"CSS", assets::kReportCss},
                                    {"CHART", render_svg(chart, /*standalone=*/false)},
                                    {"BANDWIDTH", bandwidth_section(a)},
                                    {"DATA", script_safe_json(text)},
                                    {"JS", assets::kReportJs},
                                    {"LABJS", assets::kLabJs}});
}

}  // namespace rprof
