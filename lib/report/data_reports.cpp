#include "report/data_reports.h"

#include <fmt/format.h>

#include <string_view>

#include "common/error.h"
#include "common/json_out.h"
#include "profile/profile_json.h"
#include "report/caliper_report.h"
#include "report/html_report.h"
#include "report/memory_report.h"
#include "report/roofline_report.h"
#include "report/sampled_report.h"
#include "report/svg_chart.h"
#include "report/verdict_report.h"
#include "report/text_report.h"

namespace rprof {

std::string csv_field(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  // A cell a spreadsheet would run as a formula is text: a leading '.
  if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos) {
    out += '\'';
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() &&
                    static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    if ((c < 0x20 && c != '\n') || c == 0x7F) {
      // A terminal or a spreadsheet would act on it (ESC, BEL, CR): shown.
      out += fmt::format("\\x{:02x}", c);
    } else if (c1) {  // U+0080..U+009F (CSI and the other C1 controls)
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.find_first_of(",\"\n") == std::string::npos) return out;
  std::string quoted = "\"";
  for (char c : out) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

std::string function_csv_cells(const RegionAnalysis& ra) {
  if (!ra.function) return ",,,,,,,,,,,";
  const FunctionInfo& f = *ra.function;
  const Traffic& dram = f.inclusive.at(Boundary::kDRAM);
  std::string c = "," + csv_field(f.symbol) + "," + csv_field(f.object) + "," +
                  csv_field(f.source) + "," +
                  (f.inclusive.has_flops ? fmt::format("{:.17g}", f.inclusive.flops_total()) : "") +
                  "," + (dram.measured ? fmt::format("{:.17g}", dram.bytes()) : "");
  // No sample hit it: its time from above, its rates from below.
  const Boxed<TimeBound>& b = ra.time_bound;
  c += "," + (b ? fmt::format("{:.9g}", b->max_time_s) : std::string());
  c += "," + (b && b->min_gflops ? fmt::format("{:.9g}", *b->min_gflops) : std::string());
  c += "," + (b && b->min_dram_gbs ? fmt::format("{:.9g}", *b->min_dram_gbs) : std::string());
  // A sampled time: its samples, relative error and whether it is uncertain.
  const Boxed<SampleStats>& s = ra.sampling;
  c += s ? fmt::format(",{},{:.4g},{}", s->samples, s->relative_error, s->uncertain ? 1 : 0)
         : std::string(",,,");
  return c;
}

}  // namespace

// profile.json: the profile's one writer (write_profile_json: streamed region
// by region, performance, issue 16: 100,000 regions) with the analysis'
// sections added where their keys go: the machine's ceilings and the
// verdict thresholds in the document, and at the end of each region its
// roofline, memory view, time bound, sample statistics and verdict.
void JsonReporter::write(const Analysis& a, const ReportOptions&, std::ostream& out) const {
  namespace jo = json_out;
  ProfileJsonParts parts;
  if (a.machine.machine != nullptr) {
    parts.before_run = [&](jo::Writer& w) {
      w.key("roofline_machine");
      write_roofline_machine_json(w, a);
    };
  }
  if (a.verdicts) {
    parts.at_end = [&](jo::Writer& w) {
      w.key("verdict_thresholds");
      write_thresholds_json(w, a.thresholds);
    };
  }
  parts.region_end = [&](jo::Writer& w, size_t i) {
    if (i >= a.regions.size()) return;
    const RegionAnalysis& ra = a.regions[i];
    if (a.machine.machine != nullptr && ra.roofline) {
      w.key("roofline");
      write_roofline_region_json(w, *ra.roofline);
    }
    if (ra.memory) {
      w.key("memory");
      write_memory_region_json(w, *ra.memory);
    }
    if (!ra.sampled_traffic.empty()) {
      w.key("sampled_traffic");
      write_sampled_traffic_json(w, ra.sampled_traffic);
    }
    if (ra.time_bound) {
      w.key("time_bound");
      write_time_bound_json(w, *ra.time_bound);
    }
    if (ra.sampling) {
      w.key("time_samples");
      write_sample_stats_json(w, *ra.sampling);
    }
    if (a.verdicts && ra.verdict) {
      w.key("verdict");
      write_verdict_json(w, *ra.verdict);
    }
  };
  write_profile_json(out, a.prof(), parts);
}

void CsvReporter::write(const Analysis& a, const ReportOptions&, std::ostream& out) const {
  const Profile& p = a.prof();
  // A failed run is named before the header, as a comment line (no row).
  if (!p.run.failure.empty()) out << "# FAILED: " << csv_field(p.run.failure) << "\n";
  out << "path,name,depth,calls,time_s,exclusive_time_s,thread_time_s,cpu_time_s,"
         "percent_of_run,threads,complete,open_calls,declared_flops,"
         "declared_bytes";
  for (const std::string& c : p.counters) out << "," << csv_field(c);
  // The memory view after the counters: existing columns keep their places.
  if (a.any_memory) out << memory_csv_header();
  // The function view: where each function region is (empty cells for
  // marked regions); its counter columns are self counts, these inclusive.
  if (a.any_function) {
    out << ",function_symbol,function_object,function_source,function_inclusive_flops,"
           "function_inclusive_dram_bytes,function_time_upper_bound_s,"
           "function_gflops_lower_bound,function_dram_gbs_lower_bound,function_time_samples,"
           "function_time_relative_error,function_time_uncertain";
  }
  // --repeat N: the time over the timed runs, last (existing columns keep
  // their places); spread = (max - min) / median, relative.
  const bool any_repeat = p.run.repeat > 1;
  if (any_repeat) out << ",repeat_runs,min_time_s,median_time_s,max_time_s,time_spread";
  // The sampled cache model's 95% intervals, last of all.
  if (a.any_sampled_traffic) out << sampled_csv_header();
  out << "\n";
  for (size_t i = 0; i < p.regions.size(); ++i) {
    const Region& r = p.regions[i];
    const double pct = p.run.wall_time_s > 0 ? 100.0 * r.time_s / p.run.wall_time_s : 0;
    out << csv_field(path_string(r.path)) << "," << csv_field(r.name) << ","
        << r.depth() << "," << (r.is_function() ? std::string() : std::to_string(r.calls)) << ","
        << fmt::format("{:.9g},{:.9g},{:.9g},{},{:.4g}", r.time_s, r.exclusive_time_s,
                       r.thread_time_s,
                       r.has_cpu_time ? fmt::format("{:.9g}", r.cpu_time_s) : "", pct)
        << "," << r.threads.size() << "," << (r.complete ? "true" : "false")
        << "," << r.open_calls << ","
        << (r.work_calls ? fmt::format("{:.17g}", r.work_flops) : "") << ","
        << (r.work_calls ? fmt::format("{:.17g}", r.work_bytes) : "");
    for (const std::string& c : p.counters) {
      auto it = r.counters.find(c);
      out << "," << (it == r.counters.end() ? std::string() : std::to_string(it->second));
    }
    if (a.any_memory && i < a.regions.size()) out << memory_csv_cells(a.regions[i]);
    if (a.any_function) {
      out << (i < a.regions.size() ? function_csv_cells(a.regions[i]) : std::string(",,,,,,,,"));
    }
    if (any_repeat) {
      const RepeatTimes& t = r.repeat;
      out << (t.runs > 0 ? fmt::format(",{},{:.9g},{:.9g},{:.9g},{:.6g}", t.runs, t.min_s,
                                       t.median_s, t.max_s, t.spread())
                         : std::string(",,,,,"));
    }
    if (a.any_sampled_traffic) {
      out << (i < a.regions.size() ? sampled_csv_cells(a.regions[i])
                                   : sampled_csv_cells(RegionAnalysis{}));
    }
    out << "\n";
  }
}

std::unique_ptr<Reporter> make_reporter(const std::string& format) {
  if (format == "text") return std::make_unique<TextReporter>();
  if (format == "json") return std::make_unique<JsonReporter>();
  if (format == "csv") return std::make_unique<CsvReporter>();
  if (format == "svg") return std::make_unique<SvgReporter>();
  if (format == "html") return std::make_unique<HtmlReporter>();
  if (format == "caliper") return std::make_unique<CaliperReporter>();
  throw Error("unknown report format '" + format + "' (use text, json, csv, svg, html or caliper)",
              2);
}

}  // namespace rprof
