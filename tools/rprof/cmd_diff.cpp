// rprof diff BEFORE AFTER: two runs region by region (matched by path).
#include <iostream>

#include "profile/profile_json.h"
#include "report/diff_report.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/report_setup.h"

namespace rprof {

int cmd_diff(const Args& args) {
  CLI::App app("Compare two runs region by region (matched by path): change in time, FLOPs, "
               "bytes per boundary, intensity, GFLOP/s, bound and verdict; regions found in "
               "one run only are listed. Each run is an output directory or profile file.",
               "rprof diff");
  std::string before_path, after_path, format = "text", machine_file;
  app.add_option("before", before_path, "the run before the change")->required();
  app.add_option("after", after_path, "the run after the change")->required();
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--machine", machine_file,
                 "machine file for bounds (default: $RPROF_MACHINE_FILE, else the cached "
                 "one for this CPU; without one the bounds are left out)");
  if (!parse_cli(app, args)) return 0;
  const Profile before = load_profile(before_path);
  const Profile after = load_profile(after_path);
  const MachineChoice machine = load_report_machine({&before, &after}, machine_file);
  const ProfileDiff d = diff_profiles(analyze(before, machine_source(machine)),
                                      analyze(after, machine_source(machine)));
  const DiffRun a{before_path, &before}, b{after_path, &after};
  if (format == "json") {
    std::cout << diff_to_json(d, a, b).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    write_diff_text(d, a, b, std::cout);
  }
  return 0;
}

}  // namespace rprof
