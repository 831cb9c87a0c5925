#include "report/verdict_report.h"

#include <time.h>

#include "report/roofline_report.h"
#include "report/table.h"

namespace rprof {
namespace {

using nlohmann::json;

double clock_resolution_s() {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

Verdict verdict_of(const Region& r, const ReportOptions& opt) {
  const Metrics m = metrics_from_counters(r.counters);
  std::optional<RegionRoofline> rr;
  if (opt.machine != nullptr && m.has_flops) rr = roofline_of(r, *opt.machine);
  VerdictInput in;
  in.region = &r;
  in.metrics = &m;
  in.roofline = rr ? &*rr : nullptr;
  in.machine = opt.machine;
  in.clock_resolution_s = clock_resolution_s();
  return classify(in);
}

json verdict_json(const Verdict& v) {
  json flags = json::array();
  for (const VerdictFlag& f : v.flags) {
    flags.push_back({{"name", f.name}, {"reason", f.reason}, {"direction", f.direction}});
  }
  return {{"bound", v.bound},
          {"boundary", v.boundary ? json(boundary_key(*v.boundary)) : json(nullptr)},
          {"fraction_of_roof", v.fraction},
          {"at_roof", v.at_roof},
          {"summary", v.summary},
          {"direction", v.direction},
          {"flags", std::move(flags)}};
}

json thresholds_json(const VerdictThresholds& t) {
  return {{"at_roof_fraction", t.at_roof},
          {"underutilized_fraction", t.underutilized},
          {"latency_max_fraction", t.latency_max_fraction},
          {"latency_max_misses_in_flight", t.latency_max_in_flight},
          {"low_vector_share", t.low_vector_share},
          {"traffic_above_ideal_ratio", t.traffic_above_ideal},
          {"above_roof_ratio", t.above_roof},
          {"load_imbalance_fraction", t.load_imbalance},
          {"too_short_overheads_per_call", t.too_short_overheads},
          {"too_short_min_total_s", t.min_total_s},
          {"marker_pair_s", t.marker_pair_s}};
}

void add_verdict_json(json& doc, const Profile& p, const ReportOptions& opt) {
  doc["verdict_thresholds"] = thresholds_json(VerdictThresholds{});
  json& regions = doc["regions"];
  for (size_t i = 0; i < p.regions.size() && i < regions.size(); ++i) {
    if (p.regions[i].is_program()) continue;
    regions[i]["verdict"] = verdict_json(verdict_of(p.regions[i], opt));
  }
}

void write_verdict_text(const Profile& p, const ReportOptions& opt, std::ostream& out) {
  std::string body;
  for (const Region& r : p.regions) {
    if (r.is_program()) continue;
    const Verdict v = verdict_of(r, opt);
    if (v.bound == "unknown" && v.flags.empty()) continue;
    body += "  " + printable(path_string(r.path)) + ": " + v.summary + "\n";
    if (v.bound != "unknown") body += "    -> " + v.direction + "\n";
    for (const VerdictFlag& f : v.flags) {
      body += "    [" + f.name + "] " + f.reason + "\n      -> " + f.direction + "\n";
    }
  }
  if (body.empty()) return;
  out << "\nVerdicts (thresholds in profile.json \"verdict_thresholds\", docs/verdicts.md):\n"
      << body;
}

}  // namespace rprof
