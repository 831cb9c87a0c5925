// The subcommands of `rprof`. Each takes its own argv (argv[0] is
// "rprof <name>") and returns the process exit code, or -N: rprof ends by
// signal N, as the program it ran did (main); errors are thrown as
// rprof::Error and printed by main.
#ifndef RPROF_TOOLS_RPROF_COMMANDS_H_
#define RPROF_TOOLS_RPROF_COMMANDS_H_

#include <string>
#include <vector>

namespace rprof {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

int cmd_run(const Args& args);     // rprof [options] [--] ./app args...
int cmd_report(const Args& args);  // rprof report DIR|FILE
int cmd_merge(const Args& args);   // rprof merge DIR|FILE...
int cmd_machine(const Args& args); // rprof machine [--quick|--full] [--show]
int cmd_lab(const Args& args);     // rprof lab --intensity I --bandwidth B [--peak P]
int cmd_doctor(const Args& args);  // rprof doctor [--json]
int cmd_plot(const Args& args);    // rprof plot PROFILE -o roofline.svg
int cmd_diff(const Args& args);    // rprof diff BEFORE AFTER
int cmd_cc(const Args& args);      // rprof cc [--] COMPILER ARGS...
int cmd_check(const Args& args);   // rprof check RUN [--rules FILE] [--baseline OLD]
int cmd_validate(const Args& args);  // rprof validate ./app | --hardware H --exact E

// Every subcommand, in the order `rprof --help` lists them.
const std::vector<Command>& commands();

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_COMMANDS_H_
