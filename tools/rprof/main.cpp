// rprof: a roofline profiler. `rprof ./app` runs and reports; subcommands
// handle saved profiles and the machine.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "common/error.h"
#include "common/fs.h"
#include "run/launcher.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

int cmd_help(const Args& args);

const std::vector<Command> kCommands = {
    {"report", "re-render a saved profile (text, json, csv, svg, html, caliper)", cmd_report},
    {"plot", "draw the roofline chart of a saved profile (SVG)", cmd_plot},
    {"diff", "compare two runs region by region (time, FLOPs, bytes, intensity)", cmd_diff},
    {"check", "gate a run in CI: rules per region, regressions against a baseline", cmd_check},
    {"merge", "merge raw profiles from several nodes or runs", cmd_merge},
    {"machine", "measure this machine's ceilings (peaks, bandwidths, latencies)", cmd_machine},
    {"lab", "the Roofline lab: bound, ridge and limit for I, B and P", cmd_lab},
    {"cc", "compile and link with rprof's GCC plugin: counts at near-native speed", cmd_cc},
    {"doctor", "which counting backends work here, and why not", cmd_doctor},
    {"validate", "check hardware counters against exact (sim) counts on one program", cmd_validate},
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
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  const std::string near = nearest_word(args[1], names);
  throw Error("no subcommand '" + args[1] + "'" +
                  (near.empty() ? "" : "; did you mean '" + near + "'?") +
                  " (rprof help lists them)",
              2);
}

}  // namespace

const std::vector<Command>& commands() { return kCommands; }

// A closed fd 0, 1 or 2 gets /dev/null, close-on-exec: no file rprof opens
// (a pipe, a log, a report) lands there and is then written by the program as
// its stdout, and the program still starts with that fd closed, as it would
// without rprof (run/launcher.cpp keeps its redirections off such an fd).
void hold_closed_std_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int got = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (got >= 0 && got != fd) close(got);  // a lower fd was closed too: loop fills it
  }
}

// What rprof wrote on stdout must have reached it: a full disk or /dev/full
// gives a one-line error and exit 1, never a silent short report.
int finish_stdout(int status) {
  // A write that failed earlier left the stream's error flags and its errno
  // (the report's writer makes no system call after it); else the flush says.
  int err = errno;
  if (std::ferror(stdout) == 0 && std::cout) {
    errno = 0;
    std::cout.flush();
    if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0 && std::cout) return status;
    err = errno;
  }
  std::cerr << "rprof: cannot write to stdout: "
            << (err != 0 ? std::strerror(err) : "a write failed") << " (the output is incomplete)\n";
  return status != 0 ? status : 1;
}

// rprof ends as the program it ran ended: killed by the same signal, so a
// shell sees it as it would natively (bash ends a loop at Ctrl-C only when
// its child died by SIGINT). The signal's default action is put back and it
// is unblocked before it is raised; rprof writes no core file of its own (the
// program's was written where its limits allow). Returns only where the
// signal cannot end rprof: its default action does not kill (SIGCHLD,
// SIGWINCH, a stop, ...) or glibc keeps it for itself.
void end_by_signal(int sig) {
  switch (sig) {
    case SIGCHLD:
    case SIGCONT:
    case SIGURG:
    case SIGWINCH:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
      return;
    default:
      if (sig <= 0 || sig >= NSIG) return;
  }
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  if (sig != SIGKILL && sigaction(sig, &dfl, nullptr) != 0) return;
  // A core file needs a dumpable process and a core size limit (a piped
  // core_pattern ignores the limit, not the dumpable flag).
  rlimit core{};
  if (getrlimit(RLIMIT_CORE, &core) == 0) {
    core.rlim_cur = 0;
    setrlimit(RLIMIT_CORE, &core);
  }
  prctl(PR_SET_DUMPABLE, 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

}  // namespace rprof

namespace {

int run_command(int argc, char** argv) {
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
    try {
      return rprof::cmd_run(Args(argv, argv + argc));
    } catch (const rprof::Error& e) {
      // "rprof reprot run": no program of that name; a subcommand was meant.
      if (e.exit_code() != 127 || first.find('/') != std::string::npos) throw;
      std::vector<std::string> names;
      for (const rprof::Command& c : rprof::commands()) names.emplace_back(c.name);
      const std::string near = rprof::nearest_word(first, names);
      if (near.empty()) throw;
      throw rprof::Error(std::string(e.what()) + "; did you mean the subcommand 'rprof " + near +
                             "'? (rprof help lists them)",
                         127);
    }
  } catch (const rprof::Error& e) {
    std::cerr << "rprof: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::filesystem::filesystem_error& e) {
    // What the operation was, on which path, and the errno text: one line.
    const std::string path = e.path1().string();
    std::cerr << "rprof: " << (path.empty() ? "" : rprof::printable(path) + ": ")
              << e.code().message() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rprof: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  rprof::hold_closed_std_fds();
  // rprof waits for the program: an inherited SIGCHLD = SIG_IGN would make
  // the kernel reap it unseen (the program gets the inherited one back).
  rprof::take_over_sigchld();
  const int status = rprof::finish_stdout(run_command(argc, argv));
  if (status >= 0) return status;
  rprof::end_by_signal(-status);
  return 128 - status;
}
