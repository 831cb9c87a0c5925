// rprof [options] [--] ./app args...: run, collect, report.
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/launcher.h"
#include "tools/rprof/machine_access.h"
#include "tools/rprof/report_setup.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::string output;
  std::string backend = "auto";
  std::string format = "text";
  bool quiet = false;
  std::string machine_file;
  ReportOptions report;
  std::vector<std::string> app;
};

// Reads the raw profiles the app left; a missing or unreadable one becomes a
// note, never a lost report.
std::vector<RawProfile> collect_raw(const std::string& raw_dir,
                                    std::vector<std::string>& notes) {
  std::vector<std::string> errors;
  std::vector<RawProfile> raws = read_raw_profiles(list_raw_profiles(raw_dir), &errors);
  for (const std::string& e : errors) notes.push_back("skipped " + e);
  return raws;
}

std::string resolve_backend(const std::string& requested) {
  if (requested == "auto" || requested == "time") return "time";
  if (requested == "fake") return "fake";  // scripted counters, for tests
  throw Error("backend '" + requested + "' is not available in this build "
              "(use --backend=time)", 2);
}

}  // namespace

int cmd_run(const Args& args) {
  CLI::App app(
      "Run a program and report its marked regions: time, and with counting "
      "backends FLOPs and bytes per memory boundary.\n"
      "Everything after the first non-option argument (or after --) is the "
      "program and its arguments.",
      "rprof");
  RunOptions o;
  app.add_option("-o,--output", o.output,
                 "output directory (created, mode 0700; default ./rprof-<app>-<random>)");
  app.add_option("--backend", o.backend, "time or auto (default auto)");
  app.add_option("--format", o.format, "report printed on stdout: text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  app.add_flag("--threads", o.report.show_threads, "per-thread rows in the text report");
  app.add_option("--boundary", o.report.boundary,
                 "roofline boundary in the text report: l1, l2, llc, dram or all "
                 "(default: each region's limiting one)")
      ->check(CLI::IsMember({"l1", "l2", "llc", "dram", "all"}));
  app.add_option("--machine", o.machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the "
                 "cached one for this CPU, measured once when missing)");
  app.add_flag("-q,--quiet", o.quiet, "do not print the report (files are still written)");
  app.add_flag_callback("--version", [] {
    std::cout << "rprof " << kVersion << "\n";
    throw CLI::Success();
  }, "print the version and exit");
  app.footer(
      "Subcommands: rprof report|help (rprof help for the list).\n"
      "Exit status: the app's, or 128+N when signal N killed it; 126/127 when it\n"
      "cannot be run; 1 or 2 for rprof's own errors.");
  app.prefix_command();
  if (!parse_cli(app, args)) return 0;
  o.app = app.remaining();
  if (!o.app.empty() && o.app.front() == "--") {
    o.app.erase(o.app.begin());
  } else if (!o.app.empty() && o.app.front().size() > 1 && o.app.front()[0] == '-') {
    throw Error("unknown option " + o.app.front() + " (see rprof --help; use -- before a "
                "program whose name starts with '-')", 2);
  }
  if (o.app.empty()) throw Error("no program to run (usage: rprof [options] [--] ./app args...)", 2);

  const std::string backend = resolve_backend(o.backend);
  resolve_program(o.app.front());  // fail before creating anything
  const std::string out_dir = make_output_dir(o.output, o.app.front());
  const std::string raw_dir = out_dir + "/raw";
  if (!fs::create_directory(raw_dir)) throw Error("cannot create " + raw_dir);
  fs::permissions(raw_dir, fs::perms::owner_all, fs::perm_options::replace);

  LaunchSpec spec;
  spec.argv = o.app;
  spec.env["RPROF_OUTPUT_DIR"] = raw_dir;
  spec.env["RPROF_BACKEND"] = backend;
  const LaunchResult result = launch(spec);

  RunInfo run;
  run.command = o.app;
  run.backend = backend;
  run.wall_time_s = result.wall_time_s;
  run.user_time_s = result.user_time_s;
  run.system_time_s = result.system_time_s;
  run.exit_code = result.exit_code;
  run.signal = result.signal;
  std::vector<std::string> notes;
  const std::vector<RawProfile> raws = collect_raw(raw_dir, notes);
  Profile p = aggregate(raws, run);
  p.notes.insert(p.notes.begin(), notes.begin(), notes.end());
  if (raws.empty()) {
    p.notes.push_back(
        "no marker data: the program has no rprof markers, is not linked with "
        "the rprof runtime, or died before writing its profile; only the whole "
        "program was measured");
  }
  if (result.signal != 0) {
    p.notes.push_back("the app was killed by signal " + std::to_string(result.signal) +
                      "; regions it completed are kept, open ones are marked incomplete");
  }

  // The roofline needs ceilings only when some region has FLOP counts; a
  // broken machine file costs the roofline, never the profile of the run.
  std::optional<Machine> machine;
  if (profile_has_roofline_data(p)) {
    try {
      MachineChoice mc = find_machine(o.machine_file, /*may_calibrate=*/true);
      machine = std::move(mc.machine);
      o.report.machine_file = mc.file;
      o.report.machine_notes = mc.notes;
    } catch (const Error& e) {
      std::cerr << "rprof: warning: " << e.what() << "; the report has no roofline\n";
      o.report.machine_notes.push_back(std::string("no roofline: ") + e.what());
    }
    o.report.machine = machine ? &*machine : nullptr;
  }
  attach_verdicts(o.report);
  ReportOptions file_opt = o.report;
  file_opt.show_threads = false;
  file_opt.boundary.clear();
  std::ostringstream json, text;
  make_reporter("json")->write(p, file_opt, json);
  make_reporter("text")->write(p, file_opt, text);
  write_file_atomic(out_dir + "/profile.json", json.str());
  write_file_atomic(out_dir + "/report.txt", text.str());
  // The chart and the HTML report always exist; without FLOP counts or
  // ceilings they say what is missing instead of drawing it.
  for (const char* f : {"svg", "html"}) {
    std::ostringstream out;
    make_reporter(f)->write(p, file_opt, out);
    write_file_atomic(out_dir + (f[0] == 's' ? "/roofline.svg" : "/report.html"), out.str());
  }
  if (o.format == "csv") {
    std::ostringstream csv;
    make_reporter("csv")->write(p, file_opt, csv);
    write_file_atomic(out_dir + "/profile.csv", csv.str());
  }
  if (!o.quiet) {
    std::cout.flush();
    make_reporter(o.format)->write(p, o.report, std::cout);
    std::cout.flush();
  }
  std::cerr << "rprof: profile written to " << out_dir
            << " (profile.json, report.txt, roofline.svg; open " << out_dir
            << "/report.html)\n";
  return result.shell_status();
}

}  // namespace rprof
