#include "report/roofline_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "machine/machine.h"
#include "report/table.h"

namespace rprof {
namespace {

namespace jo = json_out;

using nlohmann::json;

const char* kConventions =
    "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; intensity in FLOP/byte of "
    "the bytes crossing the named boundary (l1 = core<->L1, l2 = L1<->L2, llc = "
    "L2<->LLC, dram = LLC<->DRAM); bound = min(compute roof, bandwidth * intensity)";

void write_roof(jo::Writer& w, const ComputeRoof& c) {
  w.begin_object();
  w.member("gflops", c.gflops);
  w.member("mix", mix_key(c.mix));
  w.member("precision", c.precision == Precision::kDP ? "dp" : "sp");
  w.member("width", width_name(c.width));
  w.end_object();
}

std::string num(double v) { return fmt::format("{:.4g}", v); }

// The ceilings the roofline holds regions against, per measured thread count:
// the best peak of each precision and width (over operation mixes) and each
// boundary's roofline bandwidth (CeilingSet::roof_bandwidth), for readers
// that draw the roofline from profile.json alone (python/rprof).
void write_ceilings(jo::Writer& w, const Machine& m) {
  w.begin_array();
  for (const CeilingSet& s : m.ceilings) {
    w.begin_object();
    w.key("bandwidth").begin_array();
    for (Boundary b : {Boundary::kL1, Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
      if (const BandwidthCeiling* c = s.roof_bandwidth(b)) {
        w.begin_object();
        w.member("boundary", boundary_key(b));
        w.member("gbs", c->boundary_gbs());
        w.member("kernel", stream_key(c->mix));
        w.end_object();
      }
    }
    w.end_array();
    w.key("peaks").begin_array();
    for (Precision p : {Precision::kDP, Precision::kSP}) {
      for (Width wd : {Width::kScalar, Width::k128, Width::k256, Width::k512}) {
        if (const PeakCeiling* c = s.peak(p, wd)) {
          w.begin_object();
          w.member("gflops", c->gflops);
          w.member("mix", mix_key(c->mix));
          w.member("precision", p == Precision::kDP ? "dp" : "sp");
          w.member("width", width_name(wd));
          w.end_object();
        }
      }
    }
    w.end_array();
    w.member("threads", s.threads);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

static bool ra_waiting(const RegionAnalysis& ra) {
  return ra.verdict && ra.verdict->bound == Bound::kWaiting;
}

std::string limited_by_text(const RegionRoofline& rr, const RegionAnalysis& ra) {
  if (ra_waiting(ra)) return "waiting (off the CPU)";
  if (rr.compute_limited) return "compute";
  return fmt::format("memory ({})", boundary_name(*rr.limiting));
}

// Keys sorted (the order profile.json has always had).
void write_roofline_machine_json(jo::Writer& w, const Analysis& a) {
  const Machine& m = *a.machine.machine;
  w.begin_object();
  w.key("ceilings");
  write_ceilings(w, m);
  w.member("conventions", kConventions);
  w.member("cpu", m.cpu.model_name);
  w.member("created_unix_s", m.created_unix_s);
  w.member("file", a.machine.file);
  w.member("mode", m.mode);
  w.key("notes").array(a.machine.notes);
  w.key("thread_counts").begin_array();
  for (const CeilingSet& s : m.ceilings) w.value(s.threads);
  w.end_array();
  w.end_object();
}

void write_roofline_region_json(jo::Writer& w, const RegionRoofline& rr) {
  w.begin_object();
  if (!rr.valid) {
    w.member("available", false);
    w.member("conventions", kConventions);
    w.member("why", rr.why_not);
    w.end_object();
    return;
  }
  w.member("available", true);
  w.member("bound_gflops", rr.bound);
  w.key("boundaries").begin_array();
  for (const BoundaryRoof& b : rr.boundaries) {
    w.begin_object();
    w.member("approximate", b.approximate);
    w.member("bandwidth_any_mix_gbs", b.best_gbs);
    w.member("bandwidth_gbs", b.bandwidth_gbs);
    w.member("bandwidth_kernel", stream_key(b.kernel));
    w.member("bandwidth_pages", b.pages);
    w.member("bandwidth_read_limited", b.read_limited);
    w.member("bandwidth_roof_gflops", b.bandwidth_roof);
    w.member("bound_gflops", b.bound);
    w.member("boundary", boundary_key(b.boundary));
    w.member("bytes", b.bytes);
    w.member("fraction_of_bound", b.fraction);
    w.member("intensity", b.intensity);
    w.member("limited_by", b.memory_limited ? "memory" : "compute");
    w.member("ridge", b.ridge);
    if (!b.source.empty()) w.member("source", b.source);
    w.member("write_share", b.write_share);
    w.end_object();
  }
  w.end_array();
  w.member("ceiling_threads", rr.ceiling_threads);
  w.key("compute_roof");
  write_roof(w, rr.roof);
  w.member("compute_roof_why", rr.roof_why);
  w.member("conventions", kConventions);
  w.member("flops", rr.flops);
  w.key("fma_share");
  if (rr.fma_share) {
    w.value(*rr.fma_share);
  } else {
    w.null();
  }
  w.member("fraction_of_bound", rr.fraction);
  w.key("full_compute_roof");
  write_roof(w, rr.full_roof);
  w.member("gflops", rr.gflops);
  w.member("limited_by", rr.compute_limited ? "compute" : "memory");
  w.key("limiting_boundary");
  if (rr.limiting) {
    w.value(boundary_key(*rr.limiting));
  } else {
    w.null();
  }
  // time_s is an upper bound: gflops and the fractions are lower bounds.
  w.member("lower_bound", rr.lower_bound);
  w.key("notes").array(rr.notes);
  w.member("threads", rr.threads);
  w.member("time_s", rr.time_s);
  // time_s is a function time of too few samples: nothing here is judged.
  w.member("uncertain", rr.uncertain);
  w.end_object();
}

namespace {

}  // namespace

void write_time_bound_json(jo::Writer& w, const TimeBound& b) {
  w.begin_object();
  w.member("max_time_s", b.max_time_s);
  w.member("min_dram_gbs", b.min_dram_gbs);
  w.member("min_gflops", b.min_gflops);
  w.member("period_s", b.period_s);
  w.member("threads", b.threads);
  w.member("why",
           "no cpu-clock sample hit it: its time is below one sampling period per "
           "thread that can have run it (period_s x threads); its rates are lower "
           "bounds, its counts exact");
  w.end_object();
}

void write_sample_stats_json(jo::Writer& w, const SampleStats& s) {
  w.begin_object();
  w.member("relative_error", s.relative_error);
  w.member("samples", s.samples);
  w.member("uncertain", s.uncertain);
  w.member("why",
           "cpu-clock samples in the function: relative error 1/sqrt(samples) (1 without "
           "a sample); uncertain below verdict_thresholds.function_min_samples, where no "
           "bound is claimed");
  w.end_object();
}

nlohmann::json time_bound_json(const TimeBound& b) {
  return jo::parsed([&](jo::Writer& w) { write_time_bound_json(w, b); });
}

nlohmann::json sample_stats_json(const SampleStats& s) {
  return jo::parsed([&](jo::Writer& w) { write_sample_stats_json(w, s); });
}

void write_roofline_text(const Analysis& a, const ReportOptions& opt, const ShownRegions& kept,
                         std::ostream& out) {
  if (!a.any_flops) {
    // Declared work is not a count: say why there is no roofline beside it.
    bool declared = false;
    for (const Region& r : a.prof().regions) declared |= r.work_calls > 0;
    if (declared) {
      out << "\n"
          << wrap_paragraph(fmt::format(
                 "Roofline: none. The {} backend counted no FLOPs and no bytes; the work the "
                 "program declared (rprof_work, the Declared columns above) is what it should "
                 "do, not what it did, so no rate is held against a roof. For counts: rprof "
                 "cc and --backend=inst, --backend=sim, or a hardware backend where the "
                 "machine has a PMU (rprof doctor).",
                 a.prof().run.backend.empty() ? "time" : a.prof().run.backend));
    }
    return;
  }
  out << "\n"
      << wrap_paragraph("Roofline (FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; I = "
                        "FLOP/byte at the boundary; bound = min(roof, B * I), by the compute "
                        "roof or memory bandwidth at the boundary):");
  if (a.machine.machine == nullptr) {
    for (const std::string& n : a.machine.notes) out << "  " << n << "\n";
    if (a.machine.notes.empty()) out << "  no machine ceilings (run rprof machine)\n";
    return;
  }
  const Machine& m = *a.machine.machine;
  out << fmt::format("Ceilings: {} ({} calibration of {}).\n", a.machine.file, m.mode,
                     m.cpu.model_name);
  for (const std::string& n : a.machine.notes) out << "  " << n << "\n";

  std::vector<std::pair<size_t, const RegionRoofline*>> rows;
  std::set<Boundary> measured;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    if (!ra.roofline || !kept[i]) continue;
    rows.emplace_back(i, &*ra.roofline);
    for (const BoundaryRoof& b : ra.roofline->boundaries) measured.insert(b.boundary);
  }
  const bool all = opt.boundary == "all";
  const std::optional<Boundary> fixed =
      all || opt.boundary.empty() ? std::nullopt : parse_boundary(opt.boundary);
  // A column of 1s says nothing: one thread everywhere is said once, above.
  bool threads_column = false;
  for (const auto& [index, rrp] : rows) {
    threads_column |= rrp->threads != 1 || rrp->ceiling_threads != rrp->threads;
  }
  if (!threads_column && !rows.empty()) out << "Every region ran on 1 thread.\n";
  std::vector<std::string> headers = {"Region", "GFLOP/s", "Roof [GFLOP/s]"};
  if (threads_column) headers.insert(headers.begin() + 1, "Threads");
  if (all) {
    for (Boundary b : measured) {
      headers.push_back(fmt::format("I {} [FLOP/B]", boundary_name(b)));
      headers.push_back(fmt::format("Bound {} [GFLOP/s]", boundary_name(b)));
    }
  } else {
    // What limits the bound is said beside it: "5.17 (memory)".
    headers.insert(headers.end(), {"Boundary", "I [FLOP/B]", "Bound [GFLOP/s]"});
  }
  headers.push_back("% of bound");
  if (all) headers.push_back("Limited by");
  TextTable table(headers);
  table.wrap_last_at(kTextColumns);
  // Each note once, with the regions it is said of.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  auto note = [&notes](const std::string& text, const std::string& region) {
    auto it = std::find_if(notes.begin(), notes.end(),
                           [&](const auto& n) { return n.first == text; });
    if (it == notes.end()) {
      notes.emplace_back(text, std::vector<std::string>{region});
    } else {
      it->second.push_back(region);
    }
  };
  bool any_sampled = false;
  for (const auto& [index, rrp] : rows) {
    const RegionRoofline& rr = *rrp;
    const RegionAnalysis* rap = &a.regions[index];
    const Region* r = rap->region;
    const std::string name = printable(kept.name(index, *r));
    // A sampled boundary's intensity is an estimate: marked ±, its interval
    // under "Sampled traffic".
    auto intensity_cell = [&, rap = rap](const BoundaryRoof& br) {
      const SampledBoundary* sb = rap->sampled_at(br.boundary);
      any_sampled |= sb != nullptr;
      std::string cell = num(br.intensity) + (br.approximate ? "~" : "");
      if (sb != nullptr && sb->bytes > 0) {
        cell += fmt::format(" ±{:.2g}%", 100 * sb->ci95_bytes / sb->bytes);
      }
      return cell;
    };
    std::vector<std::string> row = {std::string(2 * kept.depth(index, *r), ' ') + name};
    if (!rr.valid) {
      // Why there is no roofline goes under the table: a sentence in the
      // last column would run past it.
      if (threads_column) row.push_back(fmt::format("{}", rr.threads));
      row.resize(headers.size(), "-");
      table.add_row(std::move(row));
      note("no roofline: " + std::string(rr.why_not), name);
      continue;
    }
    if (threads_column) {
      row.push_back(rr.ceiling_threads == rr.threads
                        ? fmt::format("{}", rr.threads)
                        : fmt::format("{} (ceil. {})", rr.threads, rr.ceiling_threads));
    }
    // A time bound: rates from below; a time of few samples: rates marked ~.
    const std::string least = rr.lower_bound ? ">= " : rr.uncertain ? "~" : "";
    row.push_back(least + num(rr.gflops));
    row.push_back(fmt::format("{} ({})", num(rr.roof.gflops), rr.roof.label()));
    double fraction = rr.fraction;  // of the region's bound (the analysis')
    if (all) {
      for (Boundary b : measured) {
        const BoundaryRoof* br = rr.at(b);
        row.push_back(br ? intensity_cell(*br) : "-");
        row.push_back(br ? num(br->bound) : "-");
      }
    } else {
      const std::optional<Boundary> shown = fixed ? fixed : rr.limiting;
      const BoundaryRoof* br = shown ? rr.at(*shown) : nullptr;
      row.push_back(br ? boundary_name(br->boundary) : "-");
      row.push_back(br ? intensity_cell(*br) : "-");
      const std::string bound = br ? num(br->bound) : num(rr.roof.gflops);
      row.push_back(rr.uncertain                              ? "uncertain (few samples)"
                    : ra_waiting(*rap)                        ? bound + " waiting"
                    : rr.compute_limited                      ? bound + " compute"
                                                              : bound + " memory");
      // --boundary X: of the bound at X (the compute roof where X has no bytes).
      if (fixed) fraction = br ? br->fraction : rr.gflops / rr.roof.gflops;
    }
    // A time of few samples claims no fraction of any bound (its verdict says
    // so): none is printed beside it.
    row.push_back(rr.uncertain ? "-" : least + fmt::format("{:.1f}", 100 * fraction));
    if (all) {
      row.push_back(rr.uncertain ? "uncertain (few samples)" : limited_by_text(rr, *rap));
    }
    table.add_row(std::move(row));
    note("roof " + std::string(rr.roof_why), name);
    for (const SharedText& n : rr.notes) note(n, name);
  }
  out << table.render();
  std::string legend = "Roof: the compute ceiling for the region's precision and widest vector width; "
         "~ = approximate traffic";
  if (any_sampled) {
    legend += "; ±N% = sampled traffic: an estimate and the half-width of its 95% interval of "
           "bytes, the interval under Sampled traffic";
  }
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.roofline && ra.roofline->lower_bound) {
      legend += "; >= = a lower bound (a function no sample hit: its time is an upper bound)";
      break;
    }
  }
  for (const RegionAnalysis& ra : a.regions) {
    if (ra.roofline && ra.roofline->uncertain) {
      legend += fmt::format("; ~ = uncertain (a function time of fewer than {:.0f} cpu-clock "
                         "samples: not judged, no % of bound)",
                         a.thresholds.function_min_samples);
      break;
    }
  }
  out << wrap_paragraph(legend + ".");
  for (const auto& [text, regions] : notes) {
    std::string line = regions.front();
    for (size_t k = 1; k < regions.size(); ++k) line += "; " + regions[k];
    out << wrap_paragraph(line + ": " + text, 2);
  }
}

}  // namespace rprof
