// rprof [options] [--] ./app args...: run, collect, report.
//
// With --backend=sim the program runs twice: natively for times, then under
// rprof's Valgrind tool for counts (FLOPs, bytes per boundary), and the two
// are joined per region (lib/profile/join.h). --sim-only skips the native run.
#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "machine/topology.h"
#include "profile/join.h"
#include "profile/profile_json.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "backends/perf/perf_probe.h"
#include "tools/rprof/hw_run.h"
#include "tools/rprof/launcher.h"
#include "tools/rprof/machine_access.h"
#include "tools/rprof/sim_config.h"
#include "tools/rprof/sim_run.h"
#include "tools/rprof/report_setup.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::string output;
  std::string backend = "auto";
  std::string format = "text";
  bool quiet = false;
  bool sim_only = false;
  std::string sim_cache;
  std::string machine_file;
  std::string events;  // hardware backends: --events, comma-separated
  bool perf_multiplex = false;
  ReportOptions report;
  std::vector<std::string> app;
};

struct BackendChoice {
  std::string name;            // what the app's runtime is told: time, sim, fake
  std::optional<SimTool> sim;  // set for sim
  std::string notice;          // for --backend=auto: what was chosen, and why
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

// "a,b;c" -> {{a, b}, {c}}: ';' separates groups (one run each).
std::vector<std::vector<std::string>> split_events(const std::string& text) {
  std::vector<std::vector<std::string>> groups;
  std::stringstream gs(text);
  std::string group, e;
  while (std::getline(gs, group, ';')) {
    groups.emplace_back();
    std::stringstream es(group);
    while (std::getline(es, e, ',')) groups.back().push_back(e);
    for (const std::string& name : groups.back()) {
      if (name.empty()) throw Error("--events: empty event name in '" + text + "'", 2);
    }
    if (groups.back().empty()) throw Error("--events: empty group in '" + text + "'", 2);
  }
  return groups;
}

#if defined(RPROF_SANITIZED_BUILD)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

BackendChoice resolve_backend(const RunOptions& o, const std::string& program) {
  const std::string& b = o.backend;
  if (b == "time" || b == "fake") {  // fake: scripted counters, for tests
    if (o.sim_only) throw Error("--sim-only needs --backend=sim (or auto)", 2);
    return {b, std::nullopt, ""};
  }
  std::string why;
  const std::string sanitizer = sanitizer_of(program);
  if (is_hardware_backend(b)) {
    if (o.sim_only) throw Error("--sim-only needs --backend=sim (or auto)", 2);
    return {b, std::nullopt, ""};
  }
  if (b == "sim") {
    if (!sanitizer.empty()) {
      throw Error("--backend=sim: " + program + " is built with " + sanitizer +
                      ", which cannot run under Valgrind; rebuild without it or use "
                      "--backend=time",
                  2);
    }
    std::optional<SimTool> tool = find_sim_tool(&why);
    if (!tool) throw Error("--backend=sim: " + why, 2);
    return {"sim", tool, ""};
  }
  if (b == "auto") {
    // Hardware counters where they work (a CPU with its own event table),
    // else the simulator wherever it is installed and can run the program.
    const HardwareProbe hp = probe_perf_hardware();
    if (!o.sim_only && hp.ok && hp.table_works && hp.table_id != "generic") {
      return {"perf", std::nullopt, ""};
    }
    const std::string no_hw = hp.ok ? "no event table for " + hp.cpu : hp.reason;
    std::optional<SimTool> tool;
    if (!sanitizer.empty()) {
      why = "the program is built with " + sanitizer + ", which cannot run under Valgrind";
    } else if (kSanitizedBuild) {
      why = "this rprof's runtime is built with sanitizers (RPROF_SANITIZE), which "
            "cannot run under Valgrind";
    } else {
      tool = find_sim_tool(&why);
    }
    if (tool) {
      return {"sim", tool,
              no_hw + "; counting by simulation (--backend=sim: a native run for "
              "times, a Valgrind run for counts; --backend=time for timing only)"};
    }
    if (o.sim_only) throw Error("--sim-only: " + why, 2);
    return {"time", std::nullopt,
            no_hw + ", and the simulator cannot count this run (" + why +
                "); timing only"};
  }
  throw Error("unknown backend '" + b + "' (use auto, time, sim, perf, papi or likwid)", 2);
}

RunInfo run_info(const std::vector<std::string>& command, const std::string& backend,
                 const LaunchResult& r) {
  RunInfo run;
  run.command = command;
  run.backend = backend;
  run.wall_time_s = r.wall_time_s;
  run.user_time_s = r.user_time_s;
  run.system_time_s = r.system_time_s;
  run.exit_code = r.exit_code;
  run.signal = r.signal;
  return run;
}

// One run of the app with the handshake environment; the profile of its raw
// files, with notes on what is missing.
Profile run_once(const LaunchSpec& spec, const std::string& raw_dir,
                 const std::string& backend, LaunchResult* result) {
  *result = launch(spec);
  std::vector<std::string> notes;
  const std::vector<RawProfile> raws = collect_raw(raw_dir, notes);
  Profile p = aggregate(raws, run_info(spec.argv, backend, *result));
  p.notes.insert(p.notes.begin(), notes.begin(), notes.end());
  if (raws.empty()) {
    p.notes.push_back(
        "no marker data: the program has no rprof markers, is not linked with "
        "the rprof runtime, or died before writing its profile; only the whole "
        "program was measured");
  }
  if (result->signal != 0) {
    p.notes.push_back("the app was killed by signal " + std::to_string(result->signal) +
                      "; regions it completed are kept, open ones are marked incomplete");
  }
  return p;
}

std::string outcome(const LaunchResult& r) {
  return r.signal != 0 ? "was killed by signal " + std::to_string(r.signal)
                       : "exited with status " + std::to_string(r.exit_code);
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
  app.add_option("--backend", o.backend,
                 "time: timing only; sim: counts by simulation under Valgrind "
                 "(FLOPs by precision and vector width, FMA = 2 FLOPs; bytes at "
                 "L1, L2, LLC and DRAM from a simulated cache hierarchy), times "
                 "from a separate native run; perf (Linux perf_event), papi, likwid: "
                 "hardware counters (`rprof doctor` says which work here); auto "
                 "(default): hardware counters where they work, else sim, else time");
  app.add_flag("--sim-only", o.sim_only,
               "sim: skip the native run (times are then the simulator's, "
               "far slower than native)");
  app.add_option("--sim-cache", o.sim_cache,
                 "sim: cache geometry overrides, LEVEL=SIZE[:WAYS[:LINE]],... with "
                 "LEVEL l1, l2 (private per thread) or llc (shared); SIZE in bytes "
                 "with K/M/G (binary) suffixes; e.g. llc=1M:16 or "
                 "l1=32K:8:64,l2=1M:8:64,llc=8M:16:64. Default: this machine's "
                 "caches (sysfs; the effective sizes of its machine file where "
                 "measured)");
  app.add_option("--events", o.events,
                 "hardware backends: count these events instead of the CPU's table "
                 "(a,b counted together; a,b;c,d = two groups, one run each; perf: "
                 "page-faults, cycles, libpfm4 names, rNNNN)");
  app.add_flag("--perf-multiplex", o.perf_multiplex,
               "perf: one run with all event groups multiplexed (counts scaled by "
               "enabled/running) instead of one run per group");
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
      "cannot be run; 1 or 2 for rprof's own errors (1 also when the simulated\n"
      "run of --backend=sim failed, e.g. on AVX-512 code).");
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

  // Fail on a program that cannot run before anything is created.
  const std::string program = resolve_program(o.app.front());
  const BackendChoice backend = resolve_backend(o, program);
  const bool sim = backend.sim.has_value();
  std::optional<HwRunPlan> hw;  // hardware counters: decided (or refused) before running
  if (is_hardware_backend(backend.name)) {
    hw = plan_hardware_run({backend.name, split_events(o.events), o.perf_multiplex});
  } else if (!o.events.empty() || o.perf_multiplex) {
    throw Error("--events and --perf-multiplex need --backend=perf, papi or likwid", 2);
  }
  if (!sim && !o.sim_cache.empty()) {
    throw Error("--sim-cache applies to --backend=sim only", 2);
  }
  SimCaches caches;
  if (sim) {  // a bad --sim-cache fails before anything is created, run or measured
    caches = sim_caches_from_topology(detect_topology());
    apply_sim_cache_spec(caches, o.sim_cache);
    check_sim_caches(caches);
  }
  const std::string out_dir = make_output_dir(o.output, o.app.front());
  if (!backend.notice.empty()) std::cerr << "rprof: " << backend.notice << "\n";
  // The simulated caches take the machine file's effective sizes, so the
  // machine is measured (once, cached) BEFORE the simulated run: the first
  // run and every later one simulate the same geometry and give the same
  // counts. A broken machine file costs the roofline, never the run.
  std::optional<MachineChoice> machine_choice;
  auto load_machine = [&] {
    if (machine_choice) return;
    try {
      machine_choice = find_machine(o.machine_file, /*may_calibrate=*/true);
    } catch (const Error& e) {
      std::cerr << "rprof: warning: " << e.what() << "; the report has no roofline\n";
      machine_choice = MachineChoice{};
      machine_choice->notes.push_back(std::string("no roofline: ") + e.what());
    }
  };
  if (sim) {
    load_machine();
    caches = sim_caches_from_topology(detect_topology());
    if (machine_choice->machine) {
      apply_machine_caches(caches, *machine_choice->machine, machine_choice->file);
    }
    apply_sim_cache_spec(caches, o.sim_cache);
    check_sim_caches(caches);
  }

  Profile p;
  LaunchResult result;
  const bool native = !(sim && o.sim_only);
  if (native) {
    const std::string raw_dir = out_dir + "/raw";
    if (!fs::create_directory(raw_dir)) throw Error("cannot create " + raw_dir);
    fs::permissions(raw_dir, fs::perms::owner_all, fs::perm_options::replace);
    LaunchSpec spec;
    spec.argv = o.app;
    spec.env[RPROF_ENV_OUTPUT_DIR] = raw_dir;
    spec.env[RPROF_ENV_BACKEND] = sim ? "time" : backend.name;
    p = hw ? run_hardware_passes(*hw, spec, raw_dir, &result)
           : run_once(spec, raw_dir, backend.name, &result);
  }
  std::string sim_problem;
  // A timed run stopped from outside (Ctrl-C, a batch system's SIGTERM) means
  // stop: no second, far slower run.
  const bool interrupted = native && (result.signal == SIGINT || result.signal == SIGTERM ||
                                      result.signal == SIGHUP || result.signal == SIGQUIT ||
                                      result.signal == SIGKILL);
  if (sim && interrupted) {
    p.notes.push_back("the timed run was stopped by signal " + std::to_string(result.signal) +
                      ", so the counted (simulated) run was skipped: no counts");
  } else if (sim) {
    // Keep the second run's output off the terminal: the user saw it once.
    const SimRunFiles files = sim_run_files(out_dir, native);
    LaunchResult sr;
    Profile counted = run_once(sim_launch_spec(*backend.sim, caches, o.app, files),
                               files.raw_dir, "sim", &sr);
    sim_problem = diagnose_sim_run(sr, read_sim_logs(files.dir), o.app.front());
    if (native) {
      p = join_timed_and_counted(std::move(p), counted);
      if (sr.exit_code != result.exit_code || sr.signal != result.signal) {
        p.notes.push_back("the program " + outcome(result) + " when timed but " +
                          outcome(sr) + " when counted (see sim/valgrind.<pid>.log)");
      }
      p.notes.push_back(
          "times from a native run; counts from a second run under rprof's "
          "Valgrind tool (its output is in sim/)");
    } else {
      p = std::move(counted);
      result = sr;
      p.notes.push_back(
          "--sim-only: times were measured under the simulator, many times "
          "slower than native; use them only to compare regions");
    }
    set_program_counters(p, read_sim_totals(files.dir));
    p.notes.push_back(
        "counts by simulation: FMA = 2 FLOPs, one per lane, by precision and "
        "vector width; bytes.l1 = the program's loads and stores; bytes.l2/llc/"
        "dram = lines moved into (read) and written back out of (write) the "
        "simulated " + describe_sim_caches(caches) +
        "; the markers' own instructions are not counted");
    if (!sim_problem.empty()) p.notes.push_back("the simulated run failed: " + sim_problem);
  }

  // The roofline needs ceilings only when some region has FLOP counts; a
  // broken machine file costs the roofline, never the profile of the run.
  if (profile_has_roofline_data(p)) load_machine();
  if (machine_choice) {
    o.report.machine_file = machine_choice->file;
    o.report.machine_notes = machine_choice->notes;
    o.report.machine = machine_choice->machine ? &*machine_choice->machine : nullptr;
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
  if (!sim_problem.empty()) {
    std::cerr << "rprof: " << sim_problem << "\n";
    return native && result.shell_status() != 0 ? result.shell_status() : 1;
  }
  return result.shell_status();
}

}  // namespace rprof
