// rprof merge DIR|FILE...: merges the output directories (or raw profiles) of
// several runs or nodes (e.g. each node's output directory of one MPI job)
// into one profile, every pass as the run merged it (run/merge_dirs.h).
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/output_dir.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "run/launcher.h"
#include "run/merge_dirs.h"
#include "tools/rprof/report_setup.h"

namespace rprof {

int cmd_merge(const Args& args) {
  CLI::App app("Merge the output directories of several runs (e.g. one per node of an "
               "MPI job) into one profile: every counter the runs had (simulated, "
               "hardware event groups), per region summed over processes, and min/mean/max "
               "time over processes.",
               "rprof merge");
  std::vector<std::string> inputs;
  std::string output;
  std::string format = "text";
  app.add_option("inputs", inputs, "output directories, raw-profile directories or files")
      ->required();
  app.add_option("-o,--output", output, "directory for the merged profile (created)");
  bool force = false;
  app.add_flag("--force", force,
               "replace the -o directory when it is an rprof output directory (not one of "
               "the inputs)");
  app.add_option("--format", format, "report printed on stdout: text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  std::string machine_file;
  app.add_option("--machine", machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the "
                 "cached one for this CPU; never measured here)");
  if (!parse_cli(app, args)) return 0;

  // Each input's passes (timed, simulated, event groups) merged as the run
  // merged them, over the processes of every input.
  Profile p = merge_output_dirs(inputs);
  // The same analysis and files as `rprof ./app`: roofline and verdicts
  // against this machine's file (never calibrated here).
  const MachineChoice machine = load_report_machine({&p}, machine_file);
  const Analysis a = analyze(p, machine_source(machine));
  if (!output.empty()) {
    if (force) {
      // Its raw profiles would be gone: what was measured is never removed.
      namespace stdfs = std::filesystem;
      std::error_code ec;
      for (const std::string& in : inputs) {
        const stdfs::path parent = stdfs::path(in).parent_path();
        if (stdfs::equivalent(in, output, ec) ||
            stdfs::equivalent(parent.empty() ? stdfs::path(".") : parent, output, ec)) {
          throw Error("--force: the output directory " + printable(output) +
                          " is an input of this merge; choose another -o",
                      2);
        }
      }
    }
    const std::string dir = make_output_dir(output, "merge", force);
    const std::string written = write_output_files(dir, a, format == "csv");
    std::cerr << "rprof: merged profile of " << p.run.processes << " processes written to "
              << dir << " (" << written << "; open " << dir << "/report.html)\n";
  }
  make_reporter(format)->write(a, {}, std::cout);
  return 0;
}

}  // namespace rprof
