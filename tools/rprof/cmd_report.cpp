// rprof report DIR|FILE: re-renders a saved profile.
#include <iostream>

#include "profile/profile_json.h"
#include "report/reporter.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"

namespace rprof {

int cmd_report(const Args& args) {
  CLI::App app("Re-render a saved profile: an rprof output directory, its "
               "profile.json, or a raw profile (rprof-raw.*.json).",
               "rprof report");
  std::string path;
  std::string format = "text";
  ReportOptions opt;
  app.add_option("profile", path, "output directory or profile file")->required();
  app.add_option("--format", format, "text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  app.add_flag("--threads", opt.show_threads, "per-thread rows in the text report");
  if (!parse_cli(app, args)) return 0;
  const Profile p = load_profile(path);
  make_reporter(format)->write(p, opt, std::cout);
  return 0;
}

}  // namespace rprof
