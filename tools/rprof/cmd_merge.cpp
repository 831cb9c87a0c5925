// rprof merge DIR|FILE...: merges raw profiles gathered from several runs or
// nodes (e.g. each node's output directory of one MPI job) into one profile.
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/output_dir.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "run/launcher.h"
#include "tools/rprof/report_setup.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

// Raw profile files named by one argument: a raw file, a directory of raw
// files, or an rprof output directory (its raw/ folder).
std::vector<std::string> raw_files_of(const std::string& arg) {
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return {arg};
  if (!fs::is_directory(arg, ec)) {
    const std::string problem = not_regular_file(arg);  // a device or FIFO: never read
    if (!problem.empty()) {
      throw Error(arg + ": " + problem + ", not an rprof raw profile or a directory of them");
    }
    throw Error(arg + ": no such file or directory");
  }
  std::vector<std::string> files = list_raw_profiles(arg);
  if (files.empty() && fs::is_directory(fs::path(arg) / "raw", ec)) {
    files = list_raw_profiles((fs::path(arg) / "raw").string());
  }
  if (files.empty()) {
    throw Error(arg + ": no raw profiles (rprof-raw.*.json) in it or in its raw/ folder");
  }
  return files;
}

}  // namespace

int cmd_merge(const Args& args) {
  CLI::App app("Merge raw profiles from several directories (e.g. one per node of an "
               "MPI job) into one profile: per region summed counts, and min/mean/max "
               "time over processes.",
               "rprof merge");
  std::vector<std::string> inputs;
  std::string output;
  std::string format = "text";
  app.add_option("inputs", inputs, "output directories, raw-profile directories or files")
      ->required();
  app.add_option("-o,--output", output, "directory for the merged profile (created)");
  app.add_option("--format", format, "report printed on stdout: text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  std::string machine_file;
  app.add_option("--machine", machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the "
                 "cached one for this CPU; never measured here)");
  if (!parse_cli(app, args)) return 0;

  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const std::string& in : inputs) {
    for (const std::string& f : raw_files_of(in)) {
      const std::string canon = fs::weakly_canonical(f).string();
      if (seen.insert(canon).second) files.push_back(f);  // the same file once
    }
  }
  const std::vector<RawProfile> raws = read_raw_profiles(files, nullptr);
  // Two files from the same host and pid would double count one process.
  std::set<std::pair<std::string, int64_t>> processes;
  for (const RawProfile& r : raws) {
    if (!processes.insert({r.host, r.pid}).second) {
      throw Error(r.file + ": a second profile of process " + std::to_string(r.pid) +
                  " on " + r.host + "; merge each run's profiles once");
    }
  }
  Profile p = aggregate(raws, RunInfo{});
  // The same analysis and files as `rprof ./app`: roofline and verdicts
  // against this machine's file (never calibrated here).
  const MachineChoice machine = load_report_machine({&p}, machine_file);
  const Analysis a = analyze(p, machine_source(machine));
  if (!output.empty()) {
    const std::string dir = make_output_dir(output, "merge");
    const std::string written = write_output_files(dir, a, format == "csv");
    std::cerr << "rprof: merged profile of " << raws.size() << " processes written to "
              << dir << " (" << written << "; open " << dir << "/report.html)\n";
  }
  make_reporter(format)->write(a, {}, std::cout);
  return 0;
}

}  // namespace rprof
