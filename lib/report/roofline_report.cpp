#include "report/roofline_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "machine/machine.h"
#include "report/table.h"

namespace rprof {
namespace {

using nlohmann::json;

const char* kConventions =
    "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; intensity in FLOP/byte of "
    "the bytes crossing the named boundary (l1 = core<->L1, l2 = L1<->L2, llc = "
    "L2<->LLC, dram = LLC<->DRAM); bound = min(compute roof, bandwidth * intensity)";

json roof_json(const ComputeRoof& c) {
  return {{"precision", c.precision == Precision::kDP ? "dp" : "sp"},
          {"width", width_name(c.width)},
          {"mix", mix_key(c.mix)},
          {"gflops", c.gflops}};
}

std::string num(double v) { return fmt::format("{:.4g}", v); }

// The ceilings the roofline holds regions against, per measured thread count:
// the best peak of each precision and width (over operation mixes) and each
// boundary's roofline bandwidth (CeilingSet::roof_bandwidth), for readers
// that draw the roofline from profile.json alone (python/rprof).
json ceilings_json(const Machine& m) {
  json sets = json::array();
  for (const CeilingSet& s : m.ceilings) {
    json peaks = json::array();
    for (Precision p : {Precision::kDP, Precision::kSP}) {
      for (Width w : {Width::kScalar, Width::k128, Width::k256, Width::k512}) {
        if (const PeakCeiling* c = s.peak(p, w)) {
          peaks.push_back({{"precision", p == Precision::kDP ? "dp" : "sp"},
                           {"width", width_name(w)},
                           {"mix", mix_key(c->mix)},
                           {"gflops", c->gflops}});
        }
      }
    }
    json bandwidth = json::array();
    for (Boundary b : {Boundary::kL1, Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
      if (const BandwidthCeiling* c = s.roof_bandwidth(b)) {
        bandwidth.push_back({{"boundary", boundary_key(b)},
                             {"gbs", c->boundary_gbs()},
                             {"kernel", stream_key(c->mix)}});
      }
    }
    sets.push_back({{"threads", s.threads}, {"peaks", std::move(peaks)},
                    {"bandwidth", std::move(bandwidth)}});
  }
  return sets;
}

}  // namespace

std::string limited_by_text(const RegionRoofline& rr) {
  if (rr.compute_limited) return "compute";
  return fmt::format("memory ({})", boundary_name(*rr.limiting));
}

json roofline_machine_json(const Analysis& a) {
  const Machine& m = *a.machine.machine;
  return {{"file", a.machine.file},
          {"mode", m.mode},
          {"created_unix_s", m.created_unix_s},
          {"cpu", m.cpu.model_name},
          {"thread_counts", [&] {
             std::vector<int> t;
             for (const CeilingSet& s : m.ceilings) t.push_back(s.threads);
             return t;
           }()},
          {"notes", a.machine.notes},
          {"ceilings", ceilings_json(m)},
          {"conventions", kConventions}};
}

json roofline_region_json(const RegionRoofline& rr) {
  json j;
  j["conventions"] = kConventions;
  if (!rr.valid) {
    j["available"] = false;
    j["why"] = rr.why_not;
    return j;
  }
  j["available"] = true;
  j["flops"] = rr.flops;
  j["time_s"] = rr.time_s;
  // time_s is an upper bound: gflops and the fractions are lower bounds.
  j["lower_bound"] = rr.lower_bound;
  // time_s is a function time of too few samples: nothing here is judged.
  j["uncertain"] = rr.uncertain;
  j["gflops"] = rr.gflops;
  j["threads"] = rr.threads;
  j["ceiling_threads"] = rr.ceiling_threads;
  j["compute_roof"] = roof_json(rr.roof);
  j["full_compute_roof"] = roof_json(rr.full_roof);
  j["compute_roof_why"] = rr.roof_why;
  j["fma_share"] = rr.fma_share ? json(*rr.fma_share) : json(nullptr);
  json bs = json::array();
  for (const BoundaryRoof& b : rr.boundaries) {
    bs.push_back({{"boundary", boundary_key(b.boundary)},
                  {"bytes", b.bytes},
                  {"approximate", b.approximate},
                  {"intensity", b.intensity},
                  {"bandwidth_gbs", b.bandwidth_gbs},
                  {"bandwidth_kernel", stream_key(b.kernel)},
                  {"bandwidth_roof_gflops", b.bandwidth_roof},
                  {"bound_gflops", b.bound},
                  {"ridge", b.ridge},
                  {"limited_by", b.memory_limited ? "memory" : "compute"},
                  {"fraction_of_bound", b.fraction}});
  }
  j["boundaries"] = std::move(bs);
  j["limiting_boundary"] = rr.limiting ? json(boundary_key(*rr.limiting)) : json(nullptr);
  j["limited_by"] = rr.compute_limited ? "compute" : "memory";
  j["bound_gflops"] = rr.bound;
  j["fraction_of_bound"] = rr.fraction;
  j["notes"] = rr.notes;
  return j;
}

json time_bound_json(const TimeBound& b) {
  return {{"max_time_s", b.max_time_s},
          {"period_s", b.period_s},
          {"threads", b.threads},
          {"min_gflops", b.min_gflops ? json(*b.min_gflops) : json(nullptr)},
          {"min_dram_gbs", b.min_dram_gbs ? json(*b.min_dram_gbs) : json(nullptr)},
          {"why", "no cpu-clock sample hit it: its time is below one sampling period per "
                  "thread that can have run it (period_s x threads); its rates are lower "
                  "bounds, its counts exact"}};
}

json sample_stats_json(const SampleStats& s) {
  return {{"samples", s.samples},
          {"relative_error", s.relative_error},
          {"uncertain", s.uncertain},
          {"why", "cpu-clock samples in the function: relative error 1/sqrt(samples) (1 without "
                  "a sample); uncertain below verdict_thresholds.function_min_samples, where no "
                  "bound is claimed"}};
}

void add_time_bound_json(json& doc, const Analysis& a) {
  json& regions = doc["regions"];
  for (size_t i = 0; i < a.regions.size() && i < regions.size(); ++i) {
    if (a.regions[i].time_bound) regions[i]["time_bound"] = time_bound_json(*a.regions[i].time_bound);
    if (a.regions[i].sampling) regions[i]["time_samples"] = sample_stats_json(*a.regions[i].sampling);
  }
}

void add_roofline_json(json& doc, const Analysis& a) {
  if (a.machine.machine == nullptr) return;
  doc["roofline_machine"] = roofline_machine_json(a);
  json& regions = doc["regions"];
  for (size_t i = 0; i < a.regions.size() && i < regions.size(); ++i) {
    if (a.regions[i].roofline) regions[i]["roofline"] = roofline_region_json(*a.regions[i].roofline);
  }
}

void write_roofline_text(const Analysis& a, const ReportOptions& opt, const ShownRegions& kept,
                         std::ostream& out) {
  if (!a.any_flops) return;
  out << "\nRoofline (FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; I = FLOP/byte "
         "at the boundary; bound = min(roof, B * I)):\n";
  if (a.machine.machine == nullptr) {
    for (const std::string& n : a.machine.notes) out << "  " << n << "\n";
    if (a.machine.notes.empty()) out << "  no machine ceilings (run rprof machine)\n";
    return;
  }
  const Machine& m = *a.machine.machine;
  out << fmt::format("Ceilings: {} ({} calibration of {}).\n", a.machine.file, m.mode,
                     m.cpu.model_name);
  for (const std::string& n : a.machine.notes) out << "  " << n << "\n";

  std::vector<std::pair<const Region*, const RegionRoofline*>> rows;
  std::set<Boundary> measured;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    if (!ra.roofline || !kept[i]) continue;
    rows.emplace_back(ra.region, &*ra.roofline);
    for (const BoundaryRoof& b : ra.roofline->boundaries) measured.insert(b.boundary);
  }
  const bool all = opt.boundary == "all";
  const std::optional<Boundary> fixed =
      all || opt.boundary.empty() ? std::nullopt : parse_boundary(opt.boundary);
  std::vector<std::string> headers = {"Region", "Threads", "GFLOP/s", "Roof [GFLOP/s]"};
  if (all) {
    for (Boundary b : measured) {
      headers.push_back(fmt::format("I {} [FLOP/B]", boundary_name(b)));
      headers.push_back(fmt::format("Bound {} [GFLOP/s]", boundary_name(b)));
    }
  } else {
    headers.insert(headers.end(), {"Boundary", "I [FLOP/B]", "Bound [GFLOP/s]"});
  }
  headers.insert(headers.end(), {"% of bound", "Limited by"});
  TextTable table(headers);
  std::vector<std::string> notes;
  for (const auto& [r, rrp] : rows) {
    const RegionRoofline& rr = *rrp;
    std::vector<std::string> row = {std::string(2 * r->depth(), ' ') + printable(r->name)};
    if (!rr.valid) {
      // Why there is no roofline goes under the table: a sentence in the
      // last column would run past it.
      row.push_back(fmt::format("{}", rr.threads));
      row.resize(headers.size(), "-");
      table.add_row(std::move(row));
      notes.push_back(printable(r->name) + ": no roofline: " + rr.why_not);
      continue;
    }
    row.push_back(rr.ceiling_threads == rr.threads
                      ? fmt::format("{}", rr.threads)
                      : fmt::format("{} (ceil. {})", rr.threads, rr.ceiling_threads));
    // A time bound: rates from below; a time of few samples: rates marked ~.
    const std::string least = rr.lower_bound ? ">= " : rr.uncertain ? "~" : "";
    row.push_back(least + num(rr.gflops));
    row.push_back(fmt::format("{} ({})", num(rr.roof.gflops), rr.roof.label()));
    double fraction = rr.fraction;  // of the region's bound (the analysis')
    if (all) {
      for (Boundary b : measured) {
        const BoundaryRoof* br = rr.at(b);
        row.push_back(br ? num(br->intensity) + (br->approximate ? "~" : "") : "-");
        row.push_back(br ? num(br->bound) : "-");
      }
    } else {
      const std::optional<Boundary> shown = fixed ? fixed : rr.limiting;
      const BoundaryRoof* br = shown ? rr.at(*shown) : nullptr;
      row.push_back(br ? boundary_name(br->boundary) : "-");
      row.push_back(br ? num(br->intensity) + (br->approximate ? "~" : "") : "-");
      row.push_back(br ? num(br->bound) : num(rr.roof.gflops));
      // --boundary X: of the bound at X (the compute roof where X has no bytes).
      if (fixed) fraction = br ? br->fraction : rr.gflops / rr.roof.gflops;
    }
    row.push_back(least + fmt::format("{:.1f}", 100 * fraction));
    row.push_back(rr.uncertain ? "uncertain (few samples)" : limited_by_text(rr));
    table.add_row(std::move(row));
    notes.push_back(printable(r->name) + ": roof " + rr.roof_why);
    for (const std::string& n : rr.notes) notes.push_back(printable(r->name) + ": " + n);
  }
  out << table.render();
  out << "Roof: the compute ceiling for the region's precision and widest vector width; "
         "~ = approximate traffic";
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.roofline && ra.roofline->lower_bound) {
      out << "; >= = a lower bound (a function no sample hit: its time is an upper bound)";
      break;
    }
  }
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.roofline && ra.roofline->uncertain) {
      out << fmt::format("; ~ = uncertain (a function time of fewer than {:.0f} cpu-clock "
                         "samples: not judged)", a.thresholds.function_min_samples);
      break;
    }
  }
  out << ".\n";
  for (const std::string& n : notes) out << "  " << n << "\n";
}

}  // namespace rprof
