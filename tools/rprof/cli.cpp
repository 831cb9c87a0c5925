#include "tools/rprof/cli.h"

#include <iostream>

#include "common/error.h"

namespace rprof {

bool parse_cli(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return false;
  } catch (const CLI::Success&) {  // --version and similar: already printed
    return false;
  } catch (const CLI::ParseError& e) {
    throw Error(std::string(e.what()) + " (see " + app.get_name() + " --help)", 2);
  }
  return true;
}

}  // namespace rprof
