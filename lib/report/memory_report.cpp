#include "report/memory_report.h"

#include <fmt/format.h>

#include <set>

#include "report/table.h"

namespace rprof {
namespace {

using nlohmann::json;

const char* kMemoryConventions =
    "GB = 1e9 bytes; bandwidth = bytes crossing the boundary (all threads) / the "
    "region's time (slowest thread); fraction = bandwidth / the boundary's measured "
    "roof for the nearest measured thread count; in flight = read line misses x "
    "measured latency behind the boundary / time / threads (Little's law, below L1)";

std::string num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

json memory_region_json(const MemoryView& mv) {
  json j;
  j["conventions"] = kMemoryConventions;
  j["available"] = mv.valid;
  if (!mv.valid) {
    j["why"] = mv.why_not;
    return j;
  }
  j["time_s"] = mv.time_s;
  // time_s is an upper bound: the rates and fractions are lower bounds.
  j["lower_bound"] = mv.lower_bound;
  j["uncertain"] = mv.uncertain;
  j["threads"] = mv.threads;
  j["ceiling_threads"] = mv.ceiling_threads;
  j["line_bytes"] = mv.line_bytes;
  json bs = json::array();
  for (const BoundaryBandwidth& b : mv.boundaries) {
    json x = {{"boundary", boundary_key(b.boundary)},
              {"bytes", b.bytes},
              {"approximate", b.approximate},
              {"gbs", b.gbs},
              {"roof_gbs", b.roof_gbs},
              {"roof_kernel", stream_key(b.kernel)},
              {"fraction_of_roof", b.fraction},
              // The roof above counts the bytes as the region's do; STREAM's
              // convention (explicit bytes) beside it.
              {"roof_convention", b.boundary == Boundary::kL1
                                      ? "explicit loads and stores"
                                      : "bytes crossing the boundary, write-allocate included"},
              {"roof_gbs_stream_convention", b.stream_roof_gbs},
              {"roof_kernel_stream_convention", stream_key(b.stream_kernel)}};
    if (b.boundary != Boundary::kL1) {
      x["line_misses"] = b.line_misses;
      x["latency_ns"] = b.latency_ns ? json(*b.latency_ns) : json(nullptr);
      x["misses_in_flight_per_thread"] = b.in_flight ? json(*b.in_flight) : json(nullptr);
      x["misses_in_flight_implausible"] = b.in_flight_implausible;
    }
    bs.push_back(std::move(x));
  }
  j["boundaries"] = std::move(bs);
  j["limiting_boundary"] = boundary_key(*mv.limiting);
  j["fraction_of_roof"] = mv.fraction;
  j["latency_boundary"] =
      mv.latency_boundary ? json(boundary_key(*mv.latency_boundary)) : json(nullptr);
  return j;
}

void add_memory_json(json& doc, const Analysis& a) {
  json& regions = doc["regions"];
  for (size_t i = 0; i < a.regions.size() && i < regions.size(); ++i) {
    if (a.regions[i].memory) regions[i]["memory"] = memory_region_json(*a.regions[i].memory);
  }
}

namespace {

// Each roof below L1 both ways, for the thread counts the shown regions used:
// the % above use the write-allocate figure; STREAM's MB/s compare with the
// other (explicit bytes).
void write_roof_conventions(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  std::set<std::pair<int, Boundary>> done;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const MemoryView* mv = a.regions[i].valid_memory();
    if (mv == nullptr || !shown[i]) continue;
    for (const BoundaryBandwidth& b : mv->boundaries) {
      if (b.boundary == Boundary::kL1 || !(b.roof_gbs > 0)) continue;
      if (!done.insert({mv->ceiling_threads, b.boundary}).second) continue;
      out << fmt::format(
          "  {} roof ({} thread{}): {:.4g} GB/s counting write-allocate ({} kernel; the % "
          "above); {:.4g} GB/s in STREAM's convention, explicit bytes ({} kernel)\n",
          boundary_name(b.boundary), mv->ceiling_threads, mv->ceiling_threads == 1 ? "" : "s",
          b.roof_gbs, stream_key(b.kernel), b.stream_roof_gbs, stream_key(b.stream_kernel));
    }
  }
}

}  // namespace

void write_memory_text(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  if (!a.any_memory) return;
  std::set<Boundary> measured;
  for (const RegionAnalysis& ra : a.regions) {
    if (const MemoryView* mv = ra.valid_memory()) {
      for (const BoundaryBandwidth& b : mv->boundaries) measured.insert(b.boundary);
    }
  }
  out << "\nMemory (GB/s with GB = 1e9 bytes, all threads / region time; % of the "
         "boundary's measured bandwidth roof; in flight = line misses x latency / "
         "time / threads, Little's law):\n";
  std::vector<std::string> headers = {"Region", "Threads"};
  for (Boundary b : measured) {
    headers.push_back(fmt::format("{} [GB/s]", boundary_name(b)));
    headers.push_back(fmt::format("{} [% roof]", boundary_name(b)));
  }
  headers.insert(headers.end(), {"Limiting", "In flight [lines/thread]"});
  TextTable table(headers);
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const MemoryView* mv = ra.valid_memory();
    if (mv == nullptr || !shown[i]) continue;
    const Region& r = *ra.region;
    std::vector<std::string> row = {std::string(2 * r.depth(), ' ') + printable(r.name)};
    row.push_back(mv->ceiling_threads == mv->threads
                      ? fmt::format("{}", mv->threads)
                      : fmt::format("{} (ceil. {})", mv->threads, mv->ceiling_threads));
    // A time bound: rates from below; a time of few samples: rates marked ~.
    const std::string least = mv->lower_bound ? ">= " : mv->uncertain ? "~" : "";
    for (Boundary b : measured) {
      const BoundaryBandwidth* x = mv->at(b);
      row.push_back(x ? least + num(x->gbs) + (x->approximate ? "~" : "") : "-");
      row.push_back(x && x->roof_gbs > 0 ? least + fmt::format("{:.1f}", 100 * x->fraction)
                                         : "-");
    }
    row.push_back(boundary_name(*mv->limiting));
    const BoundaryBandwidth* lb = mv->latency_boundary ? mv->at(*mv->latency_boundary) : nullptr;
    row.push_back(lb && lb->in_flight
                      ? least + fmt::format("{:.3g} at {} ({:.3g} ns){}", *lb->in_flight,
                                            boundary_name(lb->boundary), *lb->latency_ns,
                                            lb->in_flight_implausible
                                                ? fmt::format(" implausible: > {:.0f}",
                                                              kMaxLinesInFlightPerCore)
                                                : "")
                      : "-");
    table.add_row(std::move(row));
  }
  out << table.render();
  out << "Roof: the best measured stream kernel at each boundary, its bytes counted as the "
         "region's are (below L1: write-allocate included); ~ = approximate traffic";
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.memory && ra.memory->uncertain) {
      out << fmt::format("; a leading ~ = uncertain (a function time of fewer than {:.0f} "
                         "cpu-clock samples: not judged)", a.thresholds.function_min_samples);
      break;
    }
  }
  out << ".\n";
  write_roof_conventions(a, shown, out);
}

std::string memory_csv_header() {
  std::string h;
  for (Boundary b : kBoundaries) {
    h += fmt::format(",bw_{0}_gbs,bw_{0}_fraction_of_roof", boundary_key(b));
  }
  return h + ",memory_limiting_boundary,misses_in_flight_per_thread";
}

std::string memory_csv_cells(const RegionAnalysis& ra) {
  // Lower bounds (a time bound) are not plain numbers: the function columns
  // give them (function_dram_gbs_lower_bound).
  const MemoryView* mv = ra.time_bound ? nullptr : ra.valid_memory();
  std::string c;
  for (Boundary b : kBoundaries) {
    const BoundaryBandwidth* x = mv ? mv->at(b) : nullptr;
    c += x ? fmt::format(",{:.9g},", x->gbs) : ",,";
    if (x && x->roof_gbs > 0) c += fmt::format("{:.6g}", x->fraction);
  }
  c += ",";
  if (mv) c += boundary_key(*mv->limiting);
  c += ",";
  const BoundaryBandwidth* lb =
      mv && mv->latency_boundary ? mv->at(*mv->latency_boundary) : nullptr;
  if (lb && lb->in_flight) c += fmt::format("{:.6g}", *lb->in_flight);
  return c;
}

}  // namespace rprof
