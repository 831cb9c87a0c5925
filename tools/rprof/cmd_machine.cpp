// rprof machine: measure this machine's ceilings (or --show the saved ones).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "machine/calibrate.h"
#include "machine/ert_file.h"
#include "machine/machine_file.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/machine_access.h"
#include "tools/rprof/machine_text.h"

namespace rprof {
namespace {

// A one-line progress bar on stderr, only when stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar() : on_(isatty(STDERR_FILENO) == 1) {}
  void update(double frac, const std::string& what) {
    if (!on_) return;
    const int width = 30;
    const int full = static_cast<int>(frac * width + 0.5);
    std::fprintf(stderr, "\r\033[K[%s%s] %3d%%  %s", std::string(static_cast<size_t>(full), '#').c_str(),
                 std::string(static_cast<size_t>(width - full), '-').c_str(),
                 static_cast<int>(frac * 100 + 0.5), what.c_str());
    if (frac >= 1.0) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  bool on_;
};

std::vector<int> parse_int_list(const std::string& text, const char* what) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t pos = 0;
      const int v = std::stoi(item, &pos);
      if (pos != item.size() || v < 1) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw Error(std::string(what) + ": '" + item + "' is not a positive integer", 2);
    }
  }
  return out;
}

// --show: the saved file, as a table or (--json) the file itself.
int show_machine(const std::string& file, bool json) {
  const Machine m = load_machine_file(file);
  if (json) {
    std::cout << read_file(file);
  } else {
    print_machine(m, file, std::cout);
  }
  return 0;
}

// --sizes 32kB,1MB,...: bytes per item (kB/MB/GB = 1000s, KiB/MiB/GiB = 1024s).
std::vector<uint64_t> parse_sizes(const std::string& text) {
  std::vector<uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const uint64_t v = parse_size(item);
    if (v == 0) throw Error("--sizes: '" + item + "' is not a size (e.g. 32kB, 1MiB)", 2);
    out.push_back(v);
  }
  return out;
}

// --threads for the ERT import and export: one count (0: not given).
int one_thread_count(const std::string& threads, const char* what) {
  if (threads.empty()) return 0;
  const std::vector<int> t = parse_int_list(threads, "--threads");
  if (t.size() != 1) throw Error(std::string("--threads: give one thread count with ") + what, 2);
  return t.front();
}

}  // namespace

int cmd_machine(const Args& args) {
  CLI::App app(
      "Measure this machine's ceilings: peak FLOP/s per precision and vector width, "
      "bandwidth at each memory boundary, effective cache sizes and load latency, for "
      "1 thread and for all CPUs. The result is cached (keyed by CPU and CPU count) "
      "and used by rprof's roofline.",
      "rprof machine");
  bool quick = false, full = false, tiny = false, show = false, json = false, huge = false;
  std::string output, machine_file, threads, sizes;
  app.add_flag("--quick", quick, "short calibration, under 20 s (the default)");
  app.add_flag("--full", full, "longer repetitions, a finer sweep, more thread counts");
  app.add_flag("--tiny", tiny,
               "for tests only: a few ms per figure; the ceilings are rough and are not "
               "meant for a roofline");
  app.add_flag("--huge-pages", huge,
               "run on transparent huge pages (MADV_HUGEPAGE) instead of the pages the "
               "system gives ordinary programs");
  CLI::Option* show_opt =
      app.add_flag("--show", show, "print the saved machine file instead of measuring");
  app.add_flag("--json", json, "with --show: print the file itself (JSON)");
  app.add_option("-o,--output", output, "write the machine file here instead of the cache");
  app.add_option("--machine", machine_file, "with --show or --export: the machine file to read");
  app.add_option("--threads", threads, "thread counts to measure, e.g. 1,2 (default: 1 and all CPUs)");
  app.add_option("--sizes", sizes,
                 "extra working sets for load/copy/triad, e.g. 32kB,1MB,64MB,2GB "
                 "(kB/MB/GB = 1000s, KiB/MiB/GiB = 1024s), stored as sweeps");
  std::vector<std::string> export_args;
  std::string import_ert;
  CLI::Option* export_opt = app.add_option("--export", export_args,
                 "FORMAT FILE: write the machine file's ceilings in another tool's format: "
                 "ert (the Empirical Roofline Toolkit's roofline.json; the set of --threads, "
                 "default the most threads; --machine FILE chooses the machine file)")
      ->expected(2);
  CLI::Option* import_opt = app.add_option("--import-ert", import_ert,
                 "read an ERT roofline.json as this machine's ceilings (for --threads N "
                 "threads, default the file's OPENMP_THREADS) and write a machine file "
                 "(--output, default the cache)");
  export_opt->excludes(import_opt)->excludes(show_opt);
  import_opt->excludes(show_opt);
  app.footer("Cache: $XDG_CACHE_HOME/rprof (default ~/.cache/rprof). File format: "
             "docs/machine-file.md.");
  if (!parse_cli(app, args)) return 0;
  if (static_cast<int>(quick) + static_cast<int>(full) + static_cast<int>(tiny) > 1) {
    throw Error("choose one of --quick, --full and --tiny", 2);
  }

  if (!export_args.empty()) {
    if (export_args[0] != "ert") {
      throw Error("--export: unknown format '" + export_args[0] + "' (use: --export ert FILE)", 2);
    }
    const std::string file = machine_file_path(machine_file);
    const Machine m = load_machine_file(file);
    const int t = one_thread_count(threads, "--export");
    write_file_atomic(export_args[1], machine_to_ert(m, t).dump(3) + "\n");
    std::cerr << "rprof: ERT roofline.json written to " << export_args[1] << " (from " << file
              << ")\n";
    return 0;
  }
  if (!import_ert.empty()) {
    const int t = one_thread_count(threads, "--import-ert");
    const Machine m = machine_from_ert(import_ert, detect_topology(), t);
    const std::string file = output.empty() ? machine_file_path("") : output;
    check_can_write(file);
    save_machine_file(m, file);
    print_machine(m, file, std::cout);
    std::cerr << "rprof: machine file written to " << file << " (ceilings from " << import_ert
              << ")\n";
    return 0;
  }

  if (show) {
    const bool named = !machine_file.empty() || !output.empty();
    const std::string file = machine_file_path(!machine_file.empty() ? machine_file : output);
    // The cached file for this CPU: plain `rprof machine` creates it (a
    // named file keeps the --output hint of load_machine_file).
    if (!named && access(file.c_str(), F_OK) != 0) {
      throw Error("no machine file for this CPU yet (" + file +
                      "); measure one with: rprof machine",
                  1);
    }
    return show_machine(file, json);
  }

  CalibrationOptions opt;
  opt.mode = full ? CalibrationMode::kFull : tiny ? CalibrationMode::kTiny
                                                  : CalibrationMode::kQuick;
  opt.rprof_version = kVersion;
  opt.huge_pages = huge;
  if (!threads.empty()) opt.threads = parse_int_list(threads, "--threads");
  if (!sizes.empty()) opt.sizes = parse_sizes(sizes);
  ProgressBar bar;
  opt.progress = [&](double f, const std::string& what) { bar.update(f, what); };
  const std::string file = output.empty() ? machine_file_path("") : output;
  check_can_write(file);  // before the seconds of measuring, not after
  // The file this calibration replaces, to show how far its figures moved.
  std::optional<Machine> previous;
  std::string unreadable;
  if (access(file.c_str(), F_OK) == 0) {
    try {
      previous = load_machine_file(file);
    } catch (const std::exception& e) {
      unreadable = e.what();
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Machine m = calibrate(opt);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  save_machine_file(m, file);
  print_machine(m, file, std::cout);
  if (previous) {
    print_recalibration(compare_calibrations(*previous, m), *previous, m, std::cout);
  } else if (!unreadable.empty()) {
    std::cout << "\nAgainst the previous calibration: not compared, the file it replaced could "
                 "not be read ("
              << unreadable << ")\n";
  }
  std::cerr << "rprof: machine file written to " << file << " (" << std::fixed;
  std::cerr.precision(1);
  std::cerr << secs << " s)\n";
  return 0;
}

}  // namespace rprof
