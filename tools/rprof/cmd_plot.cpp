// rprof plot PROFILE -o roofline.svg: the roofline chart of a saved profile.
#include <iostream>

#include "common/error.h"
#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/svg_chart.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/machine_access.h"
#include "tools/rprof/report_setup.h"

namespace rprof {

int cmd_plot(const Args& args) {
  CLI::App app("Draw the roofline chart of a saved profile as one self-contained SVG file: "
               "log-log axes (FLOP/byte, GFLOP/s), the machine's compute and bandwidth "
               "ceilings, and each region as one dot per memory boundary.",
               "rprof plot");
  std::string path, output = "roofline.svg", machine_file;
  app.add_option("profile", path, "output directory or profile file")->required();
  app.add_option("-o,--output", output, "SVG file to write, - for stdout (default roofline.svg)");
  app.add_option("--machine", machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the "
                 "cached one for this CPU; never measured here)");
  if (!parse_cli(app, args)) return 0;
  const Profile p = load_profile(path);
  if (!profile_has_roofline_data(p)) {
    throw Error(path + ": no region has FLOP counts (backend " +
                (p.run.backend.empty() ? std::string("time") : p.run.backend) +
                "), so there is no roofline to draw; profile with a counting backend, "
                "e.g. rprof --backend=sim ./app");
  }
  const MachineChoice machine = load_report_machine({&p}, machine_file);
  const std::string svg =
      render_svg(build_chart_model(analyze(p, machine_source(machine))), /*standalone=*/true);
  if (output == "-") {
    std::cout << svg;
    return 0;
  }
  write_file_atomic(output, svg);
  std::cerr << "rprof: roofline chart written to " << output << "\n";
  return 0;
}

}  // namespace rprof
