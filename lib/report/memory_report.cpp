#include "report/memory_report.h"

#include <fmt/format.h>

#include <set>

#include "report/table.h"

namespace rprof {
namespace {

const char* kMemoryConventions =
    "GB = 1e9 bytes; bandwidth = bytes crossing the boundary (all threads) / the "
    "region's time (slowest thread); fraction = bandwidth / the boundary's measured "
    "roof for the nearest measured thread count; in flight = read line misses x "
    "measured latency behind the boundary / time / threads (Little's law, below L1)";

std::string num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

// Keys sorted (the order profile.json has always had).
void write_memory_region_json(json_out::Writer& w, const MemoryView& mv) {
  w.begin_object();
  w.member("available", mv.valid);
  if (!mv.valid) {
    w.member("conventions", kMemoryConventions);
    w.member("why", mv.why_not);
    w.end_object();
    return;
  }
  w.key("boundaries").begin_array();
  for (const BoundaryBandwidth& b : mv.boundaries) {
    w.begin_object();
    w.member("approximate", b.approximate);
    w.member("boundary", boundary_key(b.boundary));
    w.member("bytes", b.bytes);
    w.member("fraction_of_roof", b.fraction);
    w.member("gbs", b.gbs);
    if (b.boundary != Boundary::kL1) {
      w.member("latency_ns", b.latency_ns);
      w.member("line_misses", b.line_misses);
      w.member("misses_in_flight_implausible", b.in_flight_implausible);
      w.member("misses_in_flight_per_thread", b.in_flight);
    }
    // The roof counts the bytes as the region's do; STREAM's convention
    // (explicit bytes) beside it.
    w.member("roof_any_mix_gbs", b.best_gbs);
    w.member("roof_convention", b.boundary == Boundary::kL1
                                    ? "explicit loads and stores"
                                    : "bytes crossing the boundary, write-allocate included");
    w.member("roof_gbs", b.roof_gbs);
    w.member("roof_gbs_stream_convention", b.stream_roof_gbs);
    w.member("roof_kernel", stream_key(b.kernel));
    w.member("roof_kernel_stream_convention", stream_key(b.stream_kernel));
    w.member("roof_pages", b.pages);
    w.member("roof_read_gbs", b.read_gbs);
    w.member("roof_read_limited", b.read_limited);
    w.member("write_share", b.write_share);
    w.end_object();
  }
  w.end_array();
  w.member("ceiling_threads", mv.ceiling_threads);
  w.member("conventions", kMemoryConventions);
  w.member("fraction_of_roof", mv.fraction);
  w.key("latency_boundary");
  if (mv.latency_boundary) {
    w.value(boundary_key(*mv.latency_boundary));
  } else {
    w.null();
  }
  w.member("limiting_boundary", boundary_key(*mv.limiting));
  w.member("line_bytes", mv.line_bytes);
  // time_s is an upper bound: the rates and fractions are lower bounds.
  w.member("lower_bound", mv.lower_bound);
  w.member("threads", mv.threads);
  w.member("time_s", mv.time_s);
  w.member("uncertain", mv.uncertain);
  w.end_object();
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
      out << wrap_paragraph(fmt::format(
          "{} roof ({} thread{}): {:.4g} GB/s counting write-allocate, the best of any kernel "
          "({}{}); for a region whose bytes there are a share w written, min(that, the best "
          "read rate {:.4g} GB/s ({} kernel) / (1 - w)) (the % above); {:.4g} GB/s in STREAM's "
          "convention, explicit bytes ({} kernel)",
          boundary_name(b.boundary), mv->ceiling_threads, mv->ceiling_threads == 1 ? "" : "s",
          b.best_gbs, stream_key(b.best_kernel),
          b.best_pages.empty() ? "" : ", " + b.best_pages + " pages", b.read_gbs,
          stream_key(b.read_kernel), b.stream_roof_gbs, stream_key(b.stream_kernel)), 2);
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
  out << "\n"
      << wrap_paragraph(
             "Memory (GB/s with GB = 1e9 bytes, all threads / region time; (%) = % of the "
             "boundary's measured bandwidth roof; in flight = line misses in flight per "
             "thread: misses x latency / time / threads, Little's law):");
  // A column of 1s says nothing: one thread everywhere is said once, above.
  bool threads_column = false;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const MemoryView* mv = a.regions[i].valid_memory();
    if (mv != nullptr && shown[i]) {
      threads_column |= mv->threads != 1 || mv->ceiling_threads != mv->threads;
    }
  }
  if (!threads_column) out << "Every region ran on 1 thread.\n";
  std::vector<std::string> headers = {"Region"};
  if (threads_column) headers.push_back("Threads");
  for (Boundary b : measured) headers.push_back(fmt::format("{} GB/s (%)", boundary_name(b)));
  headers.insert(headers.end(), {"Limiting", "In flight"});
  TextTable table(headers);
  table.wrap_last_at(kTextColumns);
  bool any_sampled = false;
  std::set<Boundary> sampled_at;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const MemoryView* mv = ra.valid_memory();
    if (mv == nullptr || !shown[i]) continue;
    const Region& r = *ra.region;
    std::vector<std::string> row = {std::string(2 * shown.depth(i, r), ' ') +
                                    printable(shown.name(i, r))};
    if (threads_column) {
      row.push_back(mv->ceiling_threads == mv->threads
                        ? fmt::format("{}", mv->threads)
                        : fmt::format("{} (ceil. {})", mv->threads, mv->ceiling_threads));
    }
    // A time bound: rates from below; a time of few samples: rates marked ~.
    const std::string least = mv->lower_bound ? ">= " : mv->uncertain ? "~" : "";
    for (Boundary b : measured) {
      const BoundaryBandwidth* x = mv->at(b);
      const SampledBoundary* sb = x ? ra.sampled_at(b) : nullptr;
      any_sampled |= sb != nullptr;
      if (x == nullptr) {
        row.push_back("-");
        continue;
      }
      if (sb != nullptr) sampled_at.insert(b);
      std::string cell = least + num(x->gbs) + (x->approximate ? "~" : "");
      if (x->roof_gbs > 0) cell += fmt::format(" ({:.1f})", 100 * x->fraction);
      row.push_back(std::move(cell));
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
  std::string legend = "Roof: at each boundary, the measured roof for the region's own mix of reads and "
         "writes (below), its bytes counted as the region's are (below L1: write-allocate "
         "included); ~ = approximate traffic";
  if (any_sampled) {
    std::string where;
    for (Boundary b : sampled_at) where += (where.empty() ? "" : ", ") + std::string(boundary_name(b));
    legend += "; sampled traffic (estimates, their 95% intervals under Sampled traffic) at " + where;
  }
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.memory && ra.memory->uncertain) {
      legend += fmt::format("; a leading ~ = uncertain (a function time of fewer than {:.0f} "
                         "cpu-clock samples: not judged)", a.thresholds.function_min_samples);
      break;
    }
  }
  out << wrap_paragraph(legend + ".");
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
