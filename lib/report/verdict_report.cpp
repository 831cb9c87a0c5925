#include "report/verdict_report.h"

#include "common/json_out.h"
#include "report/table.h"

namespace rprof {

using nlohmann::json;

void write_verdict_json(json_out::Writer& w, const Verdict& v) {
  // Doubles as profile.json has always had them here: the shortest text.
  const json_out::Doubles doubles = w.set_doubles(json_out::Doubles::kShortest);
  w.begin_object();
  w.member("at_roof", v.at_roof);
  w.member("bound", bound_key(v.bound));
  w.key("boundary");
  if (v.boundary) {
    w.value(boundary_key(*v.boundary));
  } else {
    w.null();
  }
  if (v.chain) {
    w.key("dependency_chain").begin_object();
    w.member("chains", v.chain->chains);
    w.member("fp_instructions_per_latency_per_thread", v.chain->per_latency);
    w.member("latency_cycles", v.chain->latency_cycles);
    w.member("latency_ns", v.chain->latency_ns);
    w.member("op", fp_op_key(v.chain->op));
    w.member("precision", v.chain->precision == Precision::kDP ? "dp" : "sp");
    w.end_object();
  }
  w.member("direction", v.direction);
  w.key("flags").begin_array();
  for (const VerdictFlag& f : v.flags) {
    w.begin_object();
    w.member("direction", f.direction);
    w.member("name", f.name());
    w.member("reason", f.reason);
    w.end_object();
  }
  w.end_array();
  w.member("fraction_of_roof", v.fraction);
  w.key("likely_limit");
  if (v.likely_limit.empty()) {
    w.null();
  } else {
    w.value(v.likely_limit);
  }
  w.member("summary", v.summary());
  w.end_object();
  w.set_doubles(doubles);
}

json verdict_json(const Verdict& v) {
  return json_out::parsed([&](json_out::Writer& w) { write_verdict_json(w, v); });
}

void write_thresholds_json(json_out::Writer& w, const VerdictThresholds& t) {
  w.begin_object();
  w.member("above_roof_ratio", t.above_roof);
  w.member("at_roof_fraction", t.at_roof);
  w.member("below_bandwidth_roofs_fraction", t.below_bandwidth_roofs);
  w.member("below_roofs_fraction", t.below_roofs);
  w.member("busy_min_run_delay_share", t.busy_min_run_delay_share);
  w.member("chain_max", t.chain_max);
  w.member("chain_max_roof_fraction", t.chain_max_roof_fraction);
  w.member("chain_tolerance", t.chain_tolerance);
  w.member("function_min_samples", t.function_min_samples);
  w.member("irregular_l1_bytes_per_flop", t.irregular_l1_bytes_per_flop);
  w.member("irregular_miss_share", t.irregular_miss_share);
  w.member("latency_max_fraction", t.latency_max_fraction);
  w.member("latency_max_misses_in_flight", t.latency_max_in_flight);
  w.member("latency_min_misses_in_flight", t.latency_min_explained);
  w.member("load_imbalance_fraction", t.load_imbalance);
  w.member("low_vector_share", t.low_vector_share);
  w.member("marker_pair_s", t.marker_pair_s);
  w.member("max_lines_in_flight_per_core", kMaxLinesInFlightPerCore);
  w.member("too_short_min_total_s", t.min_total_s);
  w.member("too_short_overheads_per_call", t.too_short_overheads);
  w.member("traffic_above_ideal_ratio", t.traffic_above_ideal);
  w.member("underutilized_fraction", t.underutilized);
  w.member("waiting_max_cpu_share", t.waiting_max_cpu_share);
  w.end_object();
}

void write_verdict_text(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  std::string body;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const Verdict* vp = shown[i] ? ra.shown_verdict() : nullptr;
    if (vp == nullptr) continue;
    const Verdict& v = *vp;
    const Region& r = *ra.region;
    body += "  " + printable(path_string(r.path)) + ": " + v.summary() + "\n";
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
