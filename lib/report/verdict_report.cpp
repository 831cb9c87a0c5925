#include "report/verdict_report.h"

#include "common/json_out.h"
#include "machine/fp_latency.h"
#include "machine/stream_kernels.h"
#include "report/table.h"
#include "report/verdict_words.h"

namespace rprof {

using nlohmann::json;

namespace {

// The numbers of a verdict or flag ("numbers" in its JSON object): each
// evidence struct's fields, by name, in the order it declares them.
void put(json_out::Writer& w, double v) { w.value(v); }
void put(json_out::Writer& w, int v) { w.value(v); }
void put(json_out::Writer& w, unsigned v) { w.value(v); }
void put(json_out::Writer& w, uint64_t v) { w.value(v); }
void put(json_out::Writer& w, bool v) { w.value(v); }
void put(json_out::Writer& w, const std::optional<double>& v) { w.value(v); }
void put(json_out::Writer& w, Boundary b) { w.value(boundary_key(b)); }
void put(json_out::Writer& w, const std::optional<Boundary>& b) {
  if (b) {
    w.value(boundary_key(*b));
  } else {
    w.null();
  }
}
void put(json_out::Writer& w, Width x) { w.value(width_name(x)); }
void put(json_out::Writer& w, const SharedText& s) { w.value(s); }
void put(json_out::Writer& w, const ComputeRoof& r) {
  w.begin_object();
  w.member("gflops", r.gflops);
  w.member("label", r.label());
  w.end_object();
}
void put(json_out::Writer& w, const RoofSource& r) {
  w.begin_object();
  w.member("kernel", stream_key(r.kernel));
  w.member("pages", r.pages);
  w.member("read_limited", r.read_limited);
  w.member("write_share", r.write_share);
  w.end_object();
}

struct Fields {
  json_out::Writer& w;
  template <class T>
  void operator()(std::string_view name, const T& v) {
    w.key(name);
    put(w, v);
  }
};

void fields(const ComputeEvidence& e, Fields f) {
  f("boundary", e.boundary);
  f("intensity", e.intensity);
  f("ridge", e.ridge);
  f("lower_bound", e.lower_bound);
  f("gflops", e.gflops);
  f("bound_gflops", e.bound);
  f("roof", e.roof);
}
void fields(const MemoryEvidence& e, Fields f) {
  f("boundary", e.boundary);
  f("intensity", e.intensity);
  f("ridge", e.ridge);
  f("lower_bound", e.lower_bound);
  f("gflops", e.gflops);
  f("bound_gflops", e.bound);
  f("bandwidth_gbs", e.bandwidth_gbs);
  f("roof_source", e.source);
}
void fields(const BandwidthEvidence& e, Fields f) {
  f("boundary", e.boundary);
  f("lower_bound", e.lower_bound);
  f("gbs", e.gbs);
  f("roof_gbs", e.roof_gbs);
  f("fraction", e.fraction);
  f("threads", e.threads);
  f("ceiling_threads", e.ceiling_threads);
  f("roof_source", e.source);
  f("in_flight", e.in_flight);
}
void fields(const ChainVerdictEvidence& e, Fields f) { f("roof_share", e.roof_share); }
void fields(const WaitingEvidence& e, Fields f) {
  f("has_run_delay", e.has_run_delay);
  f("cpu_share", e.cpu_share);
  f("cpu_s", e.cpu_s);
  f("wall_s", e.wall_s);
  f("threads", e.threads);
  f("run_delay_share", e.run_delay_share);
  f("run_delay_s", e.run_delay_s);
  f("runnable", e.runnable);
  f("max_cpu_share", e.max_cpu_share);
}
void fields(const BelowRoofsEvidence& e, Fields f) {
  f("bandwidth_view", e.bandwidth_view);
  f("fraction", e.fraction);
  f("threshold", e.threshold);
  f("gflops", e.gflops);
  f("bound_gflops", e.bound);
  f("compute_limited", e.compute_limited);
  f("roof", e.roof);
  f("boundary", e.boundary);
  f("intensity", e.intensity);
  f("ridge", e.ridge);
  f("gbs", e.gbs);
  f("roof_gbs", e.roof_gbs);
}
void fields(const UncertainEvidence& e, Fields f) {
  f("samples", e.samples);
  f("relative_error", e.relative_error);
  f("min_samples", e.min_samples);
  f("max_time_s", e.max_time_s);
  f("min_gflops", e.min_gflops);
  f("min_dram_gbs", e.min_dram_gbs);
}
void fields(const NoRooflineEvidence& e, Fields f) { f("why_not", e.why_not); }
void fields(const std::monostate&, Fields) {}
void fields(const LatencyFlagEvidence& e, Fields f) {
  f("boundary", e.boundary);
  f("fraction", e.fraction);
  f("in_flight", e.in_flight);
  f("line_misses", e.line_misses);
  f("latency_ns", e.latency_ns);
  f("time_s", e.time_s);
  f("threads", e.threads);
  f("min_explained", e.min_explained);
  f("max_in_flight", e.max_in_flight);
}
void fields(const VectorFlagEvidence& e, Fields f) {
  f("share", e.share);
  f("threshold", e.threshold);
  f("widest", e.widest);
  f("offered", e.offered);
}
void fields(const TrafficFlagEvidence& e, Fields f) {
  f("boundary", e.boundary);
  f("measured_bytes", e.measured_bytes);
  f("declared_bytes", e.declared_bytes);
  f("ratio", e.ratio);
  f("approximate", e.approximate);
}
void fields(const AboveRoofEvidence& e, Fields f) {
  f("gflops", e.gflops);
  f("ratio", e.ratio);
  f("bound_gflops", e.bound);
  f("ceiling_threads", e.ceiling_threads);
  f("roof", e.roof);
  f("boundary", e.boundary);
  f("bandwidth_gbs", e.bandwidth_gbs);
  f("roof_source", e.source);
}
void fields(const NoSampleFlagEvidence& e, Fields f) {
  f("period_s", e.period_s);
  f("threads", e.threads);
  f("max_time_s", e.max_time_s);
  f("min_gflops", e.min_gflops);
  f("min_dram_gbs", e.min_dram_gbs);
}
void fields(const ShortFlagEvidence& e, Fields f) {
  f("time_s", e.time_s);
  f("min_total_s", e.min_total_s);
  f("calls", e.calls);
  f("per_call_s", e.per_call_s);
  f("overhead_s", e.overhead_s);
}
void fields(const ImbalanceEvidence& e, Fields f) {
  f("min_s", e.min_s);
  f("max_s", e.max_s);
  f("threads", e.threads);
  f("waits", e.waits);
  f("processes", e.processes);
}
void fields(const OwnCacheEvidence& e, Fields f) { f("processes", e.processes); }
void fields(const UnderutilizedEvidence& e, Fields f) { f("fraction", e.fraction); }
void fields(const BusyEvidence& e, Fields f) {
  f("share", e.share);
  f("run_delay_s", e.run_delay_s);
  f("wall_s", e.wall_s);
  f("threads", e.threads);
  f("threshold", e.threshold);
  f("running_s", e.running_s);
  f("time_s", e.time_s);
}
void fields(const LikelyLimit& l, Fields f) {
  f("boundary", l.boundary);
  f("in_flight", l.in_flight);
  f("line_misses", l.line_misses);
  f("latency_ns", l.latency_ns);
  f("bandwidth_fraction", l.bandwidth_fraction);
  f("miss_share", l.miss_share);
  f("l1_bytes_per_flop", l.l1_bytes_per_flop);
  f("vector_share", l.vector_share);
  f("below_l1_counted", l.below_l1_counted);
  f("min_explained", l.min_explained);
  f("max_in_flight", l.max_in_flight);
  f("irregular_miss_share", l.irregular_miss_share);
  f("irregular_l1_bytes_per_flop", l.irregular_l1_bytes_per_flop);
  f("low_vector_share", l.low_vector_share);
}

template <class Variant>
void write_numbers(json_out::Writer& w, const Variant& numbers) {
  w.key("numbers").begin_object();
  std::visit([&](const auto& e) { fields(e, Fields{w}); }, numbers);
}

const char* little_key(LikelyLimit::Little l) {
  switch (l) {
    case LikelyLimit::Little::kNone: return "none";
    case LikelyLimit::Little::kUnder: return "under";
    case LikelyLimit::Little::kAbove: return "above";
  }
  return "none";
}

}  // namespace

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
  w.member("direction", verdict_direction(v));
  w.key("flags").begin_array();
  for (const VerdictFlag& f : v.flags) {
    w.begin_object();
    w.member("direction", flag_direction(f));
    w.member("kind", flag_kind_key(f.kind));
    w.member("name", f.name());
    write_numbers(w, f.numbers);
    w.end_object();
    w.member("reason", flag_reason(f));
    w.end_object();
  }
  w.end_array();
  w.member("fraction_of_roof", v.fraction);
  w.member("kind", verdict_kind_key(v.kind));
  w.key("likely_limit");
  const std::string limit = likely_limit_text(v.likely_limit);
  if (limit.empty()) {
    w.null();
  } else {
    w.value(limit);
  }
  write_numbers(w, v.numbers);
  if (v.kind == VerdictKind::kBelowRoofs) {
    w.key("likely_limit").begin_object();
    w.member("kind", limit_kind_key(v.likely_limit.kind));
    w.member("little", little_key(v.likely_limit.little));
    fields(v.likely_limit, Fields{w});
    w.end_object();
  }
  w.member("unmeasured_below_l1", v.unmeasured_below_l1);
  w.end_object();
  w.member("summary", verdict_summary(v));
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
    std::vector<std::string> path(r.path.begin(), r.path.end() - 1);
    path.push_back(shown.name(i, r));
    body += wrap_paragraph(printable(path_string(path)) + ": " + verdict_summary(v), 2, 4);
    if (v.bound != Bound::kUnknown) body += wrap_paragraph("-> " + verdict_direction(v), 4, 3);
    for (const VerdictFlag& f : v.flags) {
      body += wrap_paragraph("[" + std::string(f.name()) + "] " + flag_reason(f), 4, 2);
      body += wrap_paragraph("-> " + flag_direction(f), 6, 3);
    }
  }
  if (body.empty()) return;
  out << "\nVerdicts (thresholds in profile.json \"verdict_thresholds\", docs/verdicts.md):\n"
      << body;
}

}  // namespace rprof
