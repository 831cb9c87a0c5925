#include "report/caliper_report.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/kinds.h"

namespace rprof {
namespace {

using nlohmann::json;
constexpr auto kReplace = json::error_handler_t::replace;

// One metric column: its Caliper attribute name, unit, what it is, and its
// value for a region (counters stay integers).
struct Column {
  std::string name;
  std::string unit;
  std::string description;
  std::function<json(const RegionAnalysis&)> value;  // null: no value
};

constexpr Boundary kBoundaries[] = {Boundary::kL1, Boundary::kL2, Boundary::kLLC,
                                    Boundary::kDRAM};

std::vector<Column> columns_of(const Analysis& a) {
  std::vector<Column> cols;
  cols.push_back({"rprof.calls", "", "completed calls, summed over threads and processes",
                  [](const RegionAnalysis& ra) { return json(ra.region->calls); }});
  cols.push_back({"sum#time.duration", "sec",
                  "exclusive time: time outside child regions, slowest thread",
                  [](const RegionAnalysis& ra) { return json(ra.region->exclusive_time_s); }});
  cols.push_back({"inclusive#sum#time.duration", "sec", "inclusive time, slowest thread",
                  [](const RegionAnalysis& ra) { return json(ra.region->time_s); }});
  cols.push_back({"inclusive#rprof.thread_time", "sec", "inclusive time summed over threads",
                  [](const RegionAnalysis& ra) { return json(ra.region->thread_time_s); }});
  bool any_flops = false;
  bool traffic[4] = {};
  for (const RegionAnalysis& ra : a.regions) {
    any_flops |= ra.metrics.has_flops;
    for (Boundary b : kBoundaries) traffic[static_cast<int>(b)] |= ra.metrics.at(b).measured;
  }
  if (any_flops) {
    cols.push_back({"inclusive#rprof.flops", "FLOP",
                    "floating-point operations, FMA = 2 FLOPs, inclusive",
                    [](const RegionAnalysis& ra) -> json {
                      if (!ra.metrics.has_flops) return nullptr;
                      return ra.metrics.flops_total();
                    }});
    cols.push_back({"inclusive#rprof.gflops_per_s", "GFLOP/s",
                    "FLOPs / inclusive time / 1e9 (FMA = 2 FLOPs); with a machine file",
                    [](const RegionAnalysis& ra) -> json {
                      const RegionRoofline* rr = ra.valid_roofline();
                      if (rr == nullptr) return nullptr;
                      return rr->gflops;
                    }});
    cols.push_back({"inclusive#rprof.fraction_of_bound", "",
                    "GFLOP/s / min(compute roof, bandwidth x intensity) at the limiting "
                    "boundary; with a machine file",
                    [](const RegionAnalysis& ra) -> json {
                      const RegionRoofline* rr = ra.valid_roofline();
                      if (rr == nullptr) return nullptr;
                      return rr->fraction;
                    }});
  }
  for (Boundary b : kBoundaries) {
    if (!traffic[static_cast<int>(b)]) continue;
    const std::string key = boundary_key(b);
    const std::string where = std::string(" across ") + boundary_name(b) +
                              " (l1 = core<->L1, l2 = L1<->L2, llc = L2<->LLC, dram = LLC<->DRAM)";
    cols.push_back({"inclusive#rprof.bytes." + key, "byte", "bytes" + where + ", inclusive",
                    [b](const RegionAnalysis& ra) -> json {
                      if (!ra.metrics.at(b).measured) return nullptr;
                      return ra.metrics.at(b).bytes();
                    }});
    if (a.any_sampled_traffic) {
      // The sampled cache model's estimate: the 95% interval's half-width and
      // ends (null where the boundary is not sampled).
      auto sampled = [b](double SampledBoundary::*field) {
        return [b, field](const RegionAnalysis& ra) -> json {
          const SampledBoundary* s = ra.sampled_at(b);
          return s ? json(s->*field) : json(nullptr);
        };
      };
      cols.push_back({"inclusive#rprof.bytes_ci95." + key, "byte",
                      "half-width of the 95% interval of the sampled bytes" + where +
                          ", inclusive (null: not sampled)",
                      sampled(&SampledBoundary::ci95_bytes)});
      cols.push_back({"inclusive#rprof.bytes_low." + key, "byte",
                      "low end of the 95% interval of the sampled bytes" + where,
                      sampled(&SampledBoundary::bytes_lo)});
      cols.push_back({"inclusive#rprof.bytes_high." + key, "byte",
                      "high end of the 95% interval of the sampled bytes" + where,
                      sampled(&SampledBoundary::bytes_hi)});
      cols.push_back({"inclusive#rprof.sampling_units." + key, "",
                      "sampling units behind the sampled bytes" + where,
                      sampled(&SampledBoundary::units)});
    }
    cols.push_back({"inclusive#rprof.gb_per_s." + key, "GB/s",
                    "bandwidth" + where + ", GB = 1e9 bytes; with a machine file",
                    [b](const RegionAnalysis& ra) -> json {
                      const MemoryView* mv = ra.valid_memory();
                      if (mv == nullptr) return nullptr;
                      for (const BoundaryBandwidth& bw : mv->boundaries) {
                        if (bw.boundary == b) return bw.gbs;
                      }
                      return nullptr;
                    }});
    if (any_flops) {
      cols.push_back({"inclusive#rprof.intensity." + key, "FLOP/byte",
                      "operational intensity" + where + ", FMA = 2 FLOPs; with a machine file",
                      [b](const RegionAnalysis& ra) -> json {
                        const RegionRoofline* rr = ra.valid_roofline();
                        if (rr == nullptr) return nullptr;
                        const BoundaryRoof* br = rr->at(b);
                        if (br == nullptr) return nullptr;
                        return br->intensity;
                      }});
    }
  }
  // Every counter as measured: exclusive (sum#) and inclusive (inclusive#sum#).
  for (const std::string& c : a.prof().counters) {
    auto counter = [c](const CounterMap& m) -> json {
      auto it = m.find(c);
      if (it == m.end()) return nullptr;
      return json(it->second);
    };
    cols.push_back({"sum#" + c, "", "counter " + c + ", exclusive, summed over threads",
                    [counter](const RegionAnalysis& ra) {
                      return counter(ra.region->exclusive_counters);
                    }});
    cols.push_back({"inclusive#sum#" + c, "", "counter " + c + ", inclusive, summed over threads",
                    [counter](const RegionAnalysis& ra) { return counter(ra.region->counters); }});
  }
  return cols;
}

}  // namespace

void CaliperReporter::write(const Analysis& a, const ReportOptions&, std::ostream& out) const {
  const Profile& p = a.prof();
  // Nodes: every prefix of every region path, parents before children.
  std::map<std::vector<std::string>, size_t> node_of;
  std::vector<std::string> node_text;
  std::vector<size_t> region_node(a.regions.size(), 0);
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const std::vector<std::string>& path = a.regions[i].region->path;
    std::vector<std::string> prefix;
    std::optional<size_t> parent;
    for (const std::string& name : path) {
      prefix.push_back(name);
      auto it = node_of.find(prefix);
      if (it == node_of.end()) {
        json n = {{"label", name}, {"column", "path"}};
        if (parent) n["parent"] = *parent;
        it = node_of.emplace(prefix, node_text.size()).first;
        node_text.push_back(n.dump(-1, ' ', false, kReplace));
      }
      parent = it->second;
    }
    if (parent) region_node[i] = *parent;
  }

  const std::vector<Column> cols = columns_of(a);
  json columns = json::array({"path"});
  json metadata = json::array();
  metadata.push_back(json::object({{"is_value", false}}));
  for (const Column& c : cols) {
    columns.push_back(c.name);
    json m = {{"is_value", true}, {"rprof.description", c.description}};
    if (!c.unit.empty()) m["attribute.unit"] = c.unit;
    metadata.push_back(std::move(m));
  }
  json globals = {
      {"rprof.format", "Caliper json-split, written by rprof report --format caliper"},
      {"rprof.conventions",
       "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; times in seconds (inclusive: "
       "the slowest thread's); bytes and intensity at the named boundary (l1 = core<->L1, "
       "l2 = L1<->L2, llc = L2<->LLC, dram = LLC<->DRAM)"},
      {"rprof.backend", p.run.backend},
      {"rprof.host", p.run.host},
      {"rprof.wall_time_s", p.run.wall_time_s},
      {"rprof.threads", p.run.threads},
      {"rprof.processes", p.run.processes}};
  if (a.machine.machine != nullptr) globals["rprof.machine_file"] = a.machine.file;

  out << "{\n\"nodes\": [";
  for (size_t i = 0; i < node_text.size(); ++i) out << (i ? ",\n  " : "\n  ") << node_text[i];
  out << "\n],\n\"columns\": " << columns.dump(-1, ' ', false, kReplace)
      << ",\n\"column_metadata\": " << metadata.dump(-1, ' ', false, kReplace)
      << ",\n\"data\": [";
  for (size_t i = 0; i < a.regions.size(); ++i) {
    json row = json::array({region_node[i]});
    for (const Column& c : cols) {
      row.push_back(c.value(a.regions[i]));
    }
    out << (i ? ",\n  " : "\n  ") << row.dump(-1, ' ', false, kReplace);
  }
  out << "\n],\n\"globals\": " << globals.dump(-1, ' ', false, kReplace) << "\n}\n";
}

}  // namespace rprof
