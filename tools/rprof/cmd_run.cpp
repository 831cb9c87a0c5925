// rprof [options] [--] ./app args...: run, collect, report.
//
// The command line and what is printed; the run itself is the backend
// driver's plan (run/registry.h, run/pipeline.h): with --backend=sim a native
// run for times and a simulated one for counts, with hardware counters one
// run per event group.
#include <malloc.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/elf_file.h"
#include "common/error.h"
#include "common/fs.h"
#include "report/output_dir.h"
#include "report/reporter.h"
#include "run/launcher.h"
#include "run/pipeline.h"
#include "run/progress_line.h"
#include "run/registry.h"
#include "sampling/sampling_period.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/machine_access.h"
#include "tools/rprof/marker_apis.h"
#include "tools/rprof/report_setup.h"

namespace rprof {
namespace {

struct RunOptions {
  std::string output;
  bool force = false;  // --force: replace the -o directory of an earlier run
  std::string backend = "auto";
  std::string format = "text";
  bool quiet = false;
  bool sim_only = false;
  std::string sim_cache;
  std::string cache_sample;  // --sample
  std::string machine_file;
  std::string events;  // hardware backends: --events, comma-separated
  bool perf_multiplex = false;
  std::string functions;  // --functions[=N], "" when not given
  std::string sample_period;  // --sample-period, "" when not given
  std::string repeat;         // --repeat N, "" when not given
  ReportOptions report;
  std::vector<std::string> app;
};

void add_run_options(CLI::App& app, RunOptions& o) {
  app.add_option("-o,--output", o.output,
                 "output directory (created, mode 0700; default ./rprof-<app>-<random>)");
  app.add_flag("--force", o.force,
               "replace the -o directory when it is an earlier run's (it holds only what "
               "rprof writes: profile.json, raw/, ...); anything else is refused");
  app.add_option("--backend", o.backend, backend_help());
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
  app.add_option("--sample", o.cache_sample,
                 "inst: traffic below L1 from rprof's cache model fed by the program's own "
                 "memory accesses: a RATE (share of cache sets simulated, every access to "
                 "their lines, 1 in a power of two, e.g. 2%, 0.02 or 1/64 = 1 in 64: estimates "
                 "with a 95% "
                 "interval), full (every access: the sim backend's model, exact for the "
                 "instrumented code) or off; default 1 in 64. "
                 "Geometry as for sim (--sim-cache). perf: the same model fills the "
                 "boundaries the PMU counts no traffic at, for such a program with markers");
  app.add_option("--events", o.events,
                 "hardware backends: count these events instead of the CPU's table "
                 "(a,b counted together; a,b;c,d = two groups, one run each; perf: "
                 "page-faults, cycles, libpfm4 names, rNNNN)");
  app.add_flag("--perf-multiplex", o.perf_multiplex,
               "perf: one run with all event groups multiplexed (counts scaled by "
               "enabled/running) instead of one run per group");
  app.add_flag("--functions{20}", o.functions,
               "sim: per-function view, --functions[=N]: FLOPs and bytes of every function "
               "(self counts, by symbol, file:line with debug info), the hottest N (default "
               "20) as regions with roofline and verdict, under the innermost marked region; "
               "times from a native run sampled with cpu-clock. inst: every function with "
               "loops and every loop nest a region, also outside the marked regions (N "
               "ignored; times from clock reads at entry and exit). On by default for a "
               "program without markers run with the sim or inst backend");
  app.add_option("--sample-period", o.sample_period,
                 "function view: CPU time per cpu-clock sample and thread, a time (250us, "
                 "1ms) or a rate (4kHz); default 250us (a 50 ms function gets about 200 "
                 "samples); raised to 1 / kernel.perf_event_max_sample_rate when faster");
  app.add_option("--repeat", o.repeat,
                 "time the program N times (counts once, from the first timed run): each "
                 "region's time min, median and spread = (max - min) / median over the N "
                 "runs; rprof check --baseline uses the spread as its tolerance");
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
      "Exit status: rprof ends as the app did, after writing the profile: with\n"
      "its exit status, or killed by the same signal N (a shell shows 128+N; no\n"
      "core file of rprof's); 126/127 when it cannot be run; 1 or 2 for rprof's\n"
      "own errors (1 also when the counted run of --backend=sim failed, e.g. on\n"
      "AVX-512 code: the note says why, the app's own status is in profile.json);\n"
      "killed by signal N when SIGINT, SIGTERM, ... (N) stopped a run of\n"
      "--backend=sim (the profile holds what ran before). Signals sent to rprof\n"
      "while the app runs are forwarded to it.");
  app.prefix_command();
}

// False after --help or --version; throws Error for bad usage.
bool parse_run_options(const Args& args, RunOptions& o) {
  CLI::App app(
      "Run a program and report its marked regions: time, and with counting "
      "backends FLOPs and bytes per memory boundary.\n"
      "Everything after the first non-option argument (or after --) is the "
      "program and its arguments.",
      "rprof");
  add_run_options(app, o);
  if (!parse_cli(app, args)) return false;
  o.app = app.remaining();
  if (!o.app.empty() && o.app.front() == "--") {
    o.app.erase(o.app.begin());
  } else if (!o.app.empty() && o.app.front().size() > 1 && o.app.front()[0] == '-') {
    const std::string near = suggest_option(app, o.app.front());
    throw Error("unknown option " + o.app.front() +
                    (near.empty() ? "" : " (did you mean " + near + "?)") +
                    " (see rprof --help; use -- before a program whose name starts with '-')",
                2);
  }
  if (o.app.empty()) throw Error("no program to run (usage: rprof [options] [--] ./app args...)", 2);
  return true;
}

// --functions=N: N, or a one-line error.
size_t functions_count(const std::string& arg) {
  constexpr unsigned long kMax = 100000;
  char* end = nullptr;
  errno = 0;
  const unsigned long n = std::strtoul(arg.c_str(), &end, 10);
  if (arg.empty() || arg[0] == '-' || *end != '\0' || errno != 0 || n < 1 || n > kMax) {
    throw Error("--functions=" + arg + ": N must be a whole number from 1 to " +
                    std::to_string(kMax) + " (the functions shown as regions)",
                2);
  }
  return n;
}

bool is_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

bool links_librprof(const std::string& path) {
  for (const std::string& n : elf_needed(path)) {
    if (n.rfind("librprof", 0) == 0) return true;
  }
  return false;
}

// The OpenMP runtime `program` links, when its teams' work cannot be put in
// the region open on the starting thread (docs/openmp.md, "What is not
// attributed"): a note says so beside the regions, never silently.
void note_openmp_attribution(const std::string& program, Profile& p) {
  if (!is_elf(program) || p.regions.size() <= 1) return;
  for (const std::string& n : elf_needed(program)) {
    const bool llvm = n.rfind("libomp.", 0) == 0 || n.rfind("libiomp5", 0) == 0;
    const char* tool = std::getenv("OMP_TOOL");
    if (llvm && tool != nullptr && std::strcmp(tool, "disabled") == 0) {
      p.notes.push_back("OpenMP: OMP_TOOL=disabled turns off the OMPT interface of " + n +
                        ", through which rprof learns its teams: the work of a parallel "
                        "region's team threads is not in the region open on the thread that "
                        "started it (each such region lists its starting thread only)");
    } else if (n.rfind("libnvomp", 0) == 0 || n.rfind("libpgmp", 0) == 0 ||
               n.rfind("libxlsmp", 0) == 0 || n.rfind("libcraymp", 0) == 0) {
      p.notes.push_back("OpenMP: " + n + " is neither GCC's libgomp nor LLVM's libomp (OMPT), "
                        "the runtimes rprof follows: the work of a parallel region's team "
                        "threads is not in the region open on the thread that started it");
    }
  }
}

// True when `program` is an ELF file that links no marker library (no
// librprof: rprof's markers, the Fortran module; no LIKWID/PAPI), nor does
// any ELF file among its arguments (`mpirun -np 2 ./app`).
bool has_no_markers(const std::string& program, const std::vector<std::string>& argv,
                    const std::vector<MarkerApiUse>& apis) {
  if (!apis.empty() || !is_elf(program) || links_librprof(program)) return false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].find('/') != std::string::npos && is_elf(argv[i]) && links_librprof(argv[i])) {
      return false;
    }
  }
  return true;
}

RunRequest run_request(const RunOptions& o, const std::string& program) {
  RunRequest r;
  r.app = o.app;
  r.program = program;
  r.events = o.events;
  r.multiplex = o.perf_multiplex;
  r.sim_only = o.sim_only;
  r.sim_cache = o.sim_cache;
  r.cache_sample = o.cache_sample;
  if (!o.functions.empty()) r.functions = functions_count(o.functions);
  if (!o.sample_period.empty()) r.sample_period_ns = parse_sample_period(o.sample_period);
  return r;
}

// rprof's status for how the app ended: its exit code, or -N when signal N
// killed it (rprof then ends by N, commands.h).
int app_ending(const LaunchResult& r) { return r.signal != 0 ? -r.signal : r.exit_code; }

// The report files in out_dir and the report on stdout; returns rprof's
// status (commands.h).
int write_reports(RunOptions& o, const std::string& out_dir, const Profile& p,
                  const std::function<void()>& load_machine,
                  std::optional<MachineChoice>& machine_choice, const RunOutcome& run) {
  const std::string& sim_problem = run.problem;
  const LaunchResult& result = run.result;
  // Ceilings only when some region has FLOP or byte counts (the roofline, the
  // memory view); a broken machine file costs them, never the profile of the run.
  if (profile_needs_machine(p)) load_machine();
  const Analysis analysis =
      analyze(p, machine_choice ? machine_source(*machine_choice) : MachineSource{});
  const std::string files = write_output_files(out_dir, analysis, o.format == "csv");
  if (!o.quiet) {
    std::cout.flush();
    make_reporter(o.format)->write(analysis, o.report, std::cout);
    std::cout.flush();
  }
  std::cerr << "rprof: profile written to " << printable(out_dir) << " (" << files << "; open "
            << printable(out_dir) << "/report.html)\n";
  if (run.stopped != 0) {
    std::cerr << "rprof: stopped by signal " << run.stopped
              << ": the profile holds what ran before the stop\n";
    return -run.stopped;
  }
  if (!sim_problem.empty()) {
    std::cerr << "rprof: " << sim_problem << "\n";
    return run.native && result.shell_status() != 0 ? app_ending(result) : 1;
  }
  return app_ending(result);
}

// --repeat N: 1 to 1000 timed runs; throws Error (exit 2) for anything else.
size_t parse_repeat(const std::string& text) {
  size_t v = 0;
  bool ok = !text.empty() && text.size() <= 4;
  for (char c : text) {
    if (c < '0' || c > '9') ok = false;
  }
  if (ok) v = static_cast<size_t>(std::stoul(text));
  if (!ok || v < 1 || v > 1000) {
    throw Error("--repeat expects a number of timed runs from 1 to 1000, not '" + text + "'", 2);
  }
  return v;
}

}  // namespace

int cmd_run(const Args& args) {
  RunOptions o;
  if (!parse_run_options(args, o)) return 0;
  // Fail on a program that cannot run before anything is created.
  const size_t repeat = o.repeat.empty() ? 1 : parse_repeat(o.repeat);
  const std::string program = resolve_program(o.app.front());
  RunRequest request = run_request(o, program);
  // A broken machine file costs the roofline, never the run.
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
  request.machine = [&] {
    load_machine();
    const auto& m = machine_choice->machine;
    return MachineRef{m ? &*m : nullptr, machine_choice->file};
  };
  DriverChoice backend = choose_driver(o.backend, request);
  const std::vector<MarkerApiUse> marker_apis = detect_marker_apis(program, o.app);
  const bool by_function = backend.driver->counts_functions();
  if (request.functions > 0 && !by_function) {
    throw Error(std::string("--functions needs a backend that counts per function (") +
                    function_backends() + "), not " + backend.driver->name(),
                2);
  }
  // A program without markers would report one [program] row: it gets the
  // function view instead.
  bool functions_by_default = false;
  if (o.functions.empty() && by_function && has_no_markers(program, o.app, marker_apis)) {
    request.functions = 20;
    functions_by_default = true;
  }
  if (request.sample_period_ns > 0 && request.functions == 0) {
    throw Error("--sample-period sets the function view's sampling: use it with --functions "
                "(sim backend) or on a program without markers",
                2);
  }
  RunPlan plan = backend.driver->plan(request);  // refuses before anything is created
  if (repeat > 1 && plan.timed_pass >= plan.passes.size()) {
    throw Error("--repeat needs a timed native run (not with --sim-only)", 2);
  }
  plan.repeat = repeat;
  // Launch-environment additions that are no backend's go into plan.env here:
  // LIKWID / PAPI marker programs get rprof's drop-in preloaded.
  preload_marker_shims(marker_apis, plan.env);
  const std::string out_dir = make_output_dir(o.output, o.app.front(), o.force);
  plan.progress_line = !o.quiet && progress_line_wanted();
  if (!backend.notice.empty()) std::cerr << "rprof: " << backend.notice << "\n";
  RunOutcome run = run_plan(*backend.driver, plan, out_dir, [](const std::string& m) {
    std::cerr << "rprof: " << m << "\n";
  });
  note_marker_apis(marker_apis, run.profile);
  note_openmp_attribution(program, run.profile);
  if (functions_by_default) {
    run.profile.notes.push_back(backend.driver->function_view_note());
  }
  // What the runs' raw profiles held is free now but resident in holes
  // between the profile's allocations; the analysis' large arrays are mapped
  // afresh, so the holes would only add to the peak (100,000 regions: 30 MB).
  ::malloc_trim(0);
  return write_reports(o, out_dir, run.profile, load_machine, machine_choice, run);
}

}  // namespace rprof
