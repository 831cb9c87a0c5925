// rprof report DIR|FILE: re-renders a saved profile.
#include <iostream>
#include <sstream>

#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/report_setup.h"

namespace rprof {

int cmd_report(const Args& args) {
  CLI::App app("Re-render a saved profile: an rprof output directory, its "
               "profile.json, or a raw profile (rprof-raw.*.json).",
               "rprof report");
  std::string path, output;
  std::string format = "text";
  ReportOptions opt;
  app.add_option("profile", path, "output directory or profile file")->required();
  app.add_option("--format", format,
                 "text, json, csv, svg (the roofline chart) or html (the self-contained "
                 "report with the chart and the Roofline lab) or caliper (Caliper's "
                 "json-split layout, for Hatchet and Thicket)")
      ->check(CLI::IsMember({"text", "json", "csv", "svg", "html", "caliper"}));
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  app.add_flag("--threads", opt.show_threads, "per-thread rows in the text report");
  std::string machine_file;
  app.add_option("--boundary", opt.boundary,
                 "roofline boundary in the text report: l1, l2, llc, dram or all "
                 "(default: each region's limiting one)")
      ->check(CLI::IsMember({"l1", "l2", "llc", "dram", "all"}));
  app.add_option("--machine", machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the "
                 "cached one for this CPU; never measured here)");
  if (!parse_cli(app, args)) return 0;
  const Profile p = load_profile(path);
  const MachineChoice machine = load_report_machine({&p}, machine_file);
  const Analysis a = analyze(p, machine_source(machine));
  if (output.empty()) {
    make_reporter(format)->write(a, opt, std::cout);
    return 0;
  }
  std::ostringstream text;
  make_reporter(format)->write(a, opt, text);
  write_file_atomic(output, text.str());
  std::cerr << "rprof: " << format << " report written to " << output << "\n";
  return 0;
}

}  // namespace rprof
