#include "report/text_report.h"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>

#include "report/memory_report.h"
#include "report/roofline_report.h"
#include "report/sampled_report.h"
#include "report/verdict_report.h"
#include "report/verdict_words.h"
#include "report/table.h"

namespace rprof {
namespace {

std::string seconds(double s) { return fmt::format("{:.6f}", s); }

std::string command_line(const std::vector<std::string>& cmd) {
  std::string out;
  for (const std::string& a : cmd) out += (out.empty() ? "" : " ") + printable(a);
  return out;
}

std::string error_line(const MarkerError& e) {
  const std::string got = "\"" + printable(e.got) + "\"";
  std::string what = e.kind;  // a kind this rprof does not know
  const std::optional<MarkerErrorKind> kind = parse_marker_error_kind(e.kind);
  if (kind) {
    switch (*kind) {
      case MarkerErrorKind::kMismatchedEnd:
        what = "end " + got + " while \"" + printable(e.expected) +
               "\" was the innermost open region (end ignored)";
        break;
      case MarkerErrorKind::kEndWithoutBegin:
        what = "end " + got + " with no region open (ignored)";
        break;
      case MarkerErrorKind::kEmptyName:
        what = "a marker with a null or empty name (ignored)";
        break;
      case MarkerErrorKind::kTooDeep:
        what = "begin " + got + " nested deeper than 256 regions (ignored, its end too)";
        break;
      case MarkerErrorKind::kTooManyRegions:
        what = "more distinct region names than the runtime holds (16,384; ignored)";
        break;
      case MarkerErrorKind::kTooManyPaths:
        what = "calls of region paths beyond the runtime's limit of 262,144 paths per "
               "thread, not recorded (their time is in the enclosing region's exclusive "
               "time)";
        break;
      case MarkerErrorKind::kNameTooLong:
        what = "a marker with a region name longer than 4096 bytes (ignored)";
        break;
      case MarkerErrorKind::kReservedName:
        what = "a marker named \"[program]\", the whole-program row's name (ignored)";
        break;
      case MarkerErrorKind::kWorkOutsideRegion:
        what = "rprof_work() with no region open (ignored)";
        break;
      case MarkerErrorKind::kBadWork:
        what = "rprof_work() with a NaN, negative or absurd (above 1e18) count in " + got +
               " (ignored)";
        break;
      case MarkerErrorKind::kInSignalHandler:
        what = "a marker called from a signal handler that interrupted another marker "
               "call of its thread (ignored; the interrupted region is intact)";
        break;
    }
  }
  return fmt::format("  {}: {} time{} (process {}, thread {})", what, e.count,
                     e.count == 1 ? "" : "s", e.pid, e.thread);
}

std::string gigas(const Metrics& m, std::optional<Boundary> at) {
  if (!at) return m.has_flops ? fmt::format("{:.4g}", m.flops_total() / 1e9) : "";
  const Traffic& t = m.at(*at);
  return t.measured ? fmt::format("{:.4g}", t.bytes() / 1e9) : "";
}

// "1234 (±2.8%)", "12 (±29%) uncertain", "0 (bound)"; "" unsampled.
std::string sample_cell(const Boxed<SampleStats>& s) {
  if (!s) return "";
  if (s->samples == 0) return "0 (a bound)";
  return fmt::format("{} (±{:.2g}%){}", s->samples, 100 * s->relative_error,
                     s->uncertain ? " uncertain" : "");
}

// The function view: where each function region is, and its self counts
// (what the tables show) beside its inclusive ones (callees included).
void write_function_text(const Analysis& a, const ShownRegions& shown, std::ostream& out) {
  if (!a.any_function) return;
  // The region's name is the function's; the symbol (its signature) and the
  // object are printed once below the table where they add something, the
  // source as file:line.
  TextTable table({"Function region", "Source", "Self GFLOP", "Incl. GFLOP", "Self DRAM GB",
                   "Incl. DRAM GB", "Time samples"});
  table.wrap_last_at(kTextColumns);
  std::vector<std::string> objects;
  bool any_uncertain = false;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    if (!shown[i] || !ra.function) continue;
    const FunctionInfo& f = *ra.function;
    const Region& r = *ra.region;
    const size_t slash = f.source.rfind('/');
    table.add_row({std::string(2 * shown.depth(i, r), ' ') + printable(shown.name(i, r)),
                   f.source.empty() ? "(no debug info)"
                                    : printable(slash == std::string::npos
                                                    ? f.source
                                                    : f.source.substr(slash + 1)),
                   gigas(ra.metrics, std::nullopt), gigas(f.inclusive, std::nullopt),
                   gigas(ra.metrics, Boundary::kDRAM), gigas(f.inclusive, Boundary::kDRAM),
                   sample_cell(ra.sampling)});
    if (std::find(objects.begin(), objects.end(), f.object) == objects.end()) {
      objects.push_back(f.object);
    }
    any_uncertain |= ra.sampling && ra.sampling->uncertain;
  }
  out << "\n"
      << wrap_paragraph("Functions (self = the function's own instructions, as in the tables; "
                        "Incl. = with its callees; FMA = 2 FLOPs, GB = 1e9 bytes; time samples: "
                        "cpu-clock samples of its self time, ± = relative error "
                        "1/sqrt(samples)):")
      << table.render();
  if (!objects.empty()) {
    std::string in;
    for (const std::string& o : objects) in += (in.empty() ? "" : ", ") + printable(o);
    out << wrap_paragraph("Objects (ELF files) of these functions: " + in +
                          "; each function's symbol and object are in profile.json.");
  }
  if (any_uncertain) {
    out << fmt::format("uncertain = fewer than {:.0f} samples (error above {:.0f}%): its rates "
                       "are marked ~, no bound is claimed for it.\n",
                       a.thresholds.function_min_samples,
                       100 / std::sqrt(a.thresholds.function_min_samples));
  }
}

// One screen before the details: each shown row's time, rate, fraction of its
// bound and verdict in a few words.
void write_summary_text(const Analysis& a, std::ostream& out) {
  if (!a.verdicts) return;
  const Profile& p = a.prof();
  const ShownRegions& shown = a.shown;
  bool any = false;
  for (const RegionAnalysis& ra : a.regions) any |= ra.shown_verdict() != nullptr;
  if (!any) return;
  TextTable table({"Region", "Time [s]", "% run", "GFLOP/s", "% of bound", "Verdict"});
  table.wrap_last_at(kTextColumns);
  table.last_is_text();
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    const Region& r = *ra.region;
    if (!shown[i] || r.is_program()) continue;
    const Verdict* v = ra.shown_verdict();
    const RegionRoofline* rr = ra.valid_roofline();
    const double wall = p.run.wall_time_s;
    const std::string least = rr && rr->lower_bound ? ">= " : rr && rr->uncertain ? "~" : "";
    table.add_row(
        {std::string(2 * shown.depth(i, r), ' ') + printable(shown.name(i, r)),
         ra.time_bound ? "< " + fmt::format("{:.4g}", ra.time_bound->max_time_s)
                       : fmt::format("{:.4g}", r.time_s),
         wall > 0 && !ra.time_bound ? fmt::format("{:.1f}", 100 * r.time_s / wall) : "",
         rr                                                ? least + fmt::format("{:.4g}", rr->gflops)
         : ra.metrics.has_flops && r.time_s > 0 && !ra.time_bound
             ? fmt::format("{:.4g}", ra.metrics.flops_total() / r.time_s / 1e9)
             : "",
         rr && !rr->uncertain ? least + fmt::format("{:.0f}", 100 * rr->fraction) : "",
         v ? verdict_headline(*v) : ""});
  }
  out << wrap_paragraph(
             "Summary (one row per finding: a region and its only child of the same counts "
             "and time are one row, \" = \" between their names; GFLOP/s with FMA = 2 FLOPs; "
             "the details and each verdict's numbers below):")
      << table.render();
}

}  // namespace

void TextReporter::write(const Analysis& a, const ReportOptions& opt,
                         std::ostream& out) const {
  const Profile& p = a.prof();
  const RunInfo& run = p.run;
  out << fmt::format("rprof profile: {}\n",
                     run.command.empty() ? std::string("(saved profile)")
                                         : command_line(run.command));
  std::string status;
  if (run.signal != 0) {
    status = fmt::format("killed by signal {}", run.signal);
  } else {
    status = fmt::format("exit status {}", run.exit_code);
  }
  // A run without marker data (the function view of a program without
  // markers) has no marked processes or threads to count.
  out << fmt::format("backend {}, {}, {}\n", run.backend.empty() ? "time" : run.backend,
                     run.processes > 0
                         ? fmt::format("{} process{}, {} thread{} with regions", run.processes,
                                       run.processes == 1 ? "" : "es", run.threads,
                                       run.threads == 1 ? "" : "s")
                         : std::string("no markers"),
                     status);
  if (run.wall_time_s > 0) {
    out << fmt::format("wall time {:.6f} s (launcher, monotonic clock)\n",
                       run.wall_time_s);
  }
  if (!run.failure.empty()) out << "FAILED: " << printable(run.failure) << "\n";
  bool any_threads = false, any_open = false, any_work = false, any_ranks = false;
  bool any_cpu = false;
  for (const Region& r : p.regions) {
    any_cpu |= r.has_cpu_time;
    any_threads |= r.threads.size() > 1;
    any_ranks |= r.process_spread().count > 1;
    any_open |= !r.complete;
    any_work |= r.work_calls > 0;
  }
  out << "\n";
  write_summary_text(a, out);
  out << "\nTimes in seconds; a region's time is its slowest thread's; "
         "Excl = time outside child regions.\n";
  if (any_cpu) {
    out << "CPU = thread CPU time summed over the region's threads (time on a CPU, not "
           "waiting).\n";
  }
  if (any_threads) {
    out << "Threads = the threads that worked in the region (an OpenMP team's included); "
           "Imbal. = slowest thread's time / mean over its threads - 1.\n";
  }
  if (any_ranks) {
    out << "Procs, Min/Mean/Max = over processes (MPI ranks), each its slowest thread.\n";
  }
  const bool any_repeat = run.repeat > 1;
  if (any_repeat) {
    out << fmt::format("--repeat {}: Time is the first timed run's (the counts' run); Min, "
                       "Median over the {} timed runs; Spread = (max - min) / median.\n",
                       run.repeat, run.repeat);
  }
  out << "\n";
  std::vector<std::string> headers = {"Region", "Calls", "Time [s]", "Excl [s]"};
  if (any_repeat) {
    headers.push_back("Min [s]");
    headers.push_back("Median [s]");
    headers.push_back("Spread [%]");
  }
  if (any_cpu) headers.push_back("CPU [s]");
  if (run.wall_time_s > 0) headers.push_back("% run");
  if (any_threads) {
    headers.push_back("Threads");
    headers.push_back("Imbal. [%]");
  }
  if (any_ranks) {
    headers.push_back("Procs");
    headers.push_back("Min [s]");
    headers.push_back("Mean [s]");
    headers.push_back("Max [s]");
  }
  if (any_work) {
    headers.push_back("Declared [GFLOP]");
    headers.push_back("Declared [GB]");
  }
  if (any_open) headers.push_back("Open");
  TextTable table(headers);
  table.wrap_last_at(kTextColumns);
  const ShownRegions& shown = a.shown;
  for (size_t i = 0; i < p.regions.size(); ++i) {
    if (!shown[i]) continue;
    const Region& r = p.regions[i];
    std::string label = std::string(2 * shown.depth(i, r), ' ') + printable(shown.name(i, r));
    if (r.is_program() && !run.command.empty()) {
      label += " " + printable(run.command.front());
    }
    // Function regions (the function view): where the function is; calls are
    // not counted for them.
    if (r.is_function() && !r.fn_source.empty()) {
      const std::string& source = r.fn_source;
      const size_t slash = source.rfind('/');
      label +=
          " (" + printable(slash == std::string::npos ? source : source.substr(slash + 1)) + ")";
    }
    // A region with no completed call shows how long it has been open; a
    // function no sample hit, the bound on its time.
    const bool only_open = r.calls == 0 && r.open_calls > 0;
    const TimeBound* bound =
        i < a.regions.size() && a.regions[i].time_bound ? &*a.regions[i].time_bound : nullptr;
    std::vector<std::string> row = {
        label, r.is_function() ? "" : fmt::format("{}", r.calls),
        only_open ? seconds(r.open_time_s) + " open"
        : bound   ? "< " + seconds(bound->max_time_s)
                  : seconds(r.time_s),
        only_open ? "" : bound ? "< " + seconds(bound->max_time_s) : seconds(r.exclusive_time_s)};
    if (any_repeat) {
      const RepeatTimes& t = r.repeat;
      row.push_back(t.runs > 0 ? seconds(t.min_s) : "");
      row.push_back(t.runs > 0 ? seconds(t.median_s) : "");
      row.push_back(t.runs > 0 ? fmt::format("{:.1f}", 100 * t.spread()) : "");
    }
    if (any_cpu) row.push_back(r.has_cpu_time ? seconds(r.cpu_time_s) : "");
    if (run.wall_time_s > 0) {
      row.push_back(bound ? "< " + fmt::format("{:.1f}", 100.0 * bound->max_time_s / run.wall_time_s)
                          : fmt::format("{:.1f}", 100.0 * r.time_s / run.wall_time_s));
    }
    if (any_threads) {
      const Spread s = r.thread_spread();
      row.push_back(s.count > 0 ? fmt::format("{}", s.count) : "");
      row.push_back(s.count > 1 ? fmt::format("{:.1f}", 100 * s.imbalance()) : "");
    }
    if (any_ranks) {
      const Spread s = r.process_spread();
      row.push_back(s.count > 1 ? fmt::format("{}", s.count) : "");
      for (double v : {s.min_s, s.mean_s, s.max_s}) {
        row.push_back(s.count > 1 ? seconds(v) : "");
      }
    }
    if (any_work) {
      row.push_back(r.work_calls ? fmt::format("{:.4g}", r.work_flops / 1e9) : "");
      row.push_back(r.work_calls ? fmt::format("{:.4g}", r.work_bytes / 1e9) : "");
    }
    if (any_open) {
      row.push_back(r.complete ? ""
                               : fmt::format("{} open for {} s (incomplete)", r.open_calls,
                                             seconds(r.open_time_s)));
    }
    table.add_row(std::move(row));
    if (opt.show_threads && r.threads.size() > 1) {
      for (const ThreadRow& t : r.threads) {
        std::vector<std::string> trow = {
            std::string(2 * r.depth() + 2, ' ') +
                fmt::format("thread {} (pid {})", t.thread, t.pid),
            fmt::format("{}", t.calls), seconds(t.time_s),
            seconds(t.exclusive_time_s)};
        if (any_cpu) trow.push_back(r.has_cpu_time ? seconds(t.cpu_time_s) : "");
        table.add_row(std::move(trow));
      }
    }
  }
  out << table.render();
  if (!shown.line().empty()) out << wrap_paragraph(shown.line() + ".");
  if (any_work) {
    out << "Declared work is what rprof_work() stated (FMA = 2 FLOPs; GB = 1e9 bytes).\n";
  }
  write_function_text(a, shown, out);
  write_roofline_text(a, opt, shown, out);
  write_memory_text(a, shown, out);
  write_sampled_traffic_text(a, shown, out);
  write_verdict_text(a, shown, out);
  if (!p.errors.empty()) {
    out << "\nMarker errors (other regions are unaffected):\n";
    for (const MarkerError& e : p.errors) out << error_line(e) << "\n";
  }
  if (!p.notes.empty()) {
    out << "\nNotes:\n";
    for (const std::string& n : p.notes) out << wrap_paragraph(n, 2);
  }
}

}  // namespace rprof
