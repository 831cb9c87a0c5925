#include "report/verdict_report.h"

#include "common/json_out.h"
#include "report/table.h"

namespace rprof {

using nlohmann::json;

json verdict_json(const Verdict& v) {
  json flags = json::array();
  for (const VerdictFlag& f : v.flags) {
    flags.push_back({{"name", f.name()}, {"reason", f.reason}, {"direction", f.direction}});
  }
  return {{"bound", bound_key(v.bound)},
          {"boundary", v.boundary ? json(boundary_key(*v.boundary)) : json(nullptr)},
          {"fraction_of_roof", v.fraction},
          {"at_roof", v.at_roof},
          {"summary", v.summary},
          {"likely_limit", v.likely_limit.empty() ? json(nullptr) : json(v.likely_limit)},
          {"direction", v.direction},
          {"flags", std::move(flags)}};
}

void append_verdict_json(std::string& out, const Verdict& v) {
  namespace jo = json_out;
  auto str = [&](const char* k, const std::string& s) {
    jo::key(out, k);
    jo::string(out, s);
  };
  out += '{';
  jo::key(out, "at_roof");
  out += v.at_roof ? "true," : "false,";
  str("bound", bound_key(v.bound));
  out += ',';
  jo::key(out, "boundary");
  if (v.boundary) {
    jo::string(out, boundary_key(*v.boundary));
  } else {
    out += "null";
  }
  out += ',';
  str("direction", v.direction);
  out += ',';
  jo::key(out, "flags");
  out += '[';
  for (size_t i = 0; i < v.flags.size(); ++i) {
    const VerdictFlag& f = v.flags[i];
    out += i ? ",{" : "{";
    str("direction", f.direction);
    out += ',';
    str("name", f.name());
    out += ',';
    str("reason", f.reason);
    out += '}';
  }
  out += "],";
  jo::key(out, "fraction_of_roof");
  jo::number(out, v.fraction);
  out += ',';
  jo::key(out, "likely_limit");
  if (v.likely_limit.empty()) {
    out += "null";
  } else {
    jo::string(out, v.likely_limit);
  }
  out += ',';
  str("summary", v.summary);
  out += '}';
}

json thresholds_json(const VerdictThresholds& t) {
  return {{"at_roof_fraction", t.at_roof},
          {"underutilized_fraction", t.underutilized},
          {"latency_max_fraction", t.latency_max_fraction},
          {"latency_max_misses_in_flight", t.latency_max_in_flight},
          {"latency_min_misses_in_flight", t.latency_min_explained},
          {"max_lines_in_flight_per_core", kMaxLinesInFlightPerCore},
          {"waiting_max_cpu_share", t.waiting_max_cpu_share},
          {"below_roofs_fraction", t.below_roofs},
          {"below_bandwidth_roofs_fraction", t.below_bandwidth_roofs},
          {"irregular_l1_bytes_per_flop", t.irregular_l1_bytes_per_flop},
          {"irregular_miss_share", t.irregular_miss_share},
          {"low_vector_share", t.low_vector_share},
          {"traffic_above_ideal_ratio", t.traffic_above_ideal},
          {"above_roof_ratio", t.above_roof},
          {"load_imbalance_fraction", t.load_imbalance},
          {"too_short_overheads_per_call", t.too_short_overheads},
          {"too_short_min_total_s", t.min_total_s},
          {"marker_pair_s", t.marker_pair_s},
          {"function_min_samples", t.function_min_samples}};
}

void add_verdict_json(json& doc, const Analysis& a) {
  if (!a.verdicts) return;
  doc["verdict_thresholds"] = thresholds_json(a.thresholds);
  json& regions = doc["regions"];
  for (size_t i = 0; i < a.regions.size() && i < regions.size(); ++i) {
    if (a.regions[i].verdict) regions[i]["verdict"] = verdict_json(*a.regions[i].verdict);
  }
}

void write_verdict_text(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  std::string body;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const Verdict* vp = shown[i] ? ra.shown_verdict() : nullptr;
    if (vp == nullptr) continue;
    const Verdict& v = *vp;
    const Region& r = *ra.region;
    body += "  " + printable(path_string(r.path)) + ": " + v.summary + "\n";
    if (v.bound != Bound::kUnknown) body += "    -> " + v.direction + "\n";
    for (const VerdictFlag& f : v.flags) {
      body += "    [" + std::string(f.name()) + "] " + f.reason + "\n      -> " + f.direction + "\n";
    }
  }
  if (body.empty()) return;
  out << "\nVerdicts (thresholds in profile.json \"verdict_thresholds\", docs/verdicts.md):\n"
      << body;
}

}  // namespace rprof
