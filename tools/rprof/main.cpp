// rprof: a roofline profiler. `rprof ./app` runs and reports; subcommands
// handle saved profiles and the machine.
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "common/error.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

int cmd_help(const Args& args);

const std::vector<Command> kCommands = {
    {"report", "re-render a saved profile (text, json, csv, svg, html)", cmd_report},
    {"plot", "draw the roofline chart of a saved profile (SVG)", cmd_plot},
    {"diff", "compare two runs region by region (time, FLOPs, bytes, intensity)", cmd_diff},
    {"merge", "merge raw profiles from several nodes or runs", cmd_merge},
    {"machine", "measure this machine's ceilings (peaks, bandwidths, latencies)", cmd_machine},
    {"lab", "the Roofline lab: bound, ridge and limit for I, B and P", cmd_lab},
    {"doctor", "which counting backends work here, and why not", cmd_doctor},
    {"help", "this list, or the help of one subcommand", cmd_help},
};

void print_overview() {
  std::cout << "rprof " << kVersion << ": a roofline profiler for C and C++\n\n"
            << "Usage:\n"
            << "  rprof [options] [--] ./app [args...]   run the app, report its regions\n";
  for (const Command& c : kCommands) {
    std::cout << "  rprof " << c.name << std::string(33 - std::strlen(c.name), ' ')
              << c.summary << "\n";
  }
  std::cout << "\nrprof --help: the run options; rprof <subcommand> --help: its options.\n";
}

int cmd_help(const Args& args) {
  if (args.size() < 2 || args[1] == "--help" || args[1] == "-h") {
    print_overview();
    return 0;
  }
  for (const Command& c : kCommands) {
    if (args[1] == c.name) return c.run({std::string("rprof ") + c.name, "--help"});
  }
  throw Error("no subcommand '" + args[1] + "' (rprof help lists them)", 2);
}

}  // namespace

const std::vector<Command>& commands() { return kCommands; }

}  // namespace rprof

int main(int argc, char** argv) {
  using rprof::Args;
  try {
    if (argc < 2) {
      rprof::cmd_help({"rprof help"});
      return 2;
    }
    const std::string first = argv[1];
    for (const rprof::Command& c : rprof::commands()) {
      if (first == c.name) {
        Args args = {std::string("rprof ") + c.name};
        args.insert(args.end(), argv + 2, argv + argc);
        return c.run(args);
      }
    }
    if (first == "--help" || first == "-h") {
      rprof::cmd_help({"rprof help"});
      std::cout << "\n";
    }
    return rprof::cmd_run(Args(argv, argv + argc));
  } catch (const rprof::Error& e) {
    std::cerr << "rprof: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::filesystem::filesystem_error& e) {
    // What the operation was, on which path, and the errno text: one line.
    const std::string path = e.path1().string();
    std::cerr << "rprof: " << (path.empty() ? "" : path + ": ") << e.code().message() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rprof: internal error: " << e.what() << "\n";
    return 1;
  }
}
