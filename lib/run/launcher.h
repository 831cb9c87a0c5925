// Starting the profiled application: output directory, path resolution,
// fork/exec with the handshake environment, waiting with signal forwarding.
#ifndef RPROF_RUN_LAUNCHER_H_
#define RPROF_RUN_LAUNCHER_H_

#include <map>
#include <string>
#include <vector>

#include "profile/function_times.h"
#include "runtime/handshake.h"
#include "sampling/sampling_period.h"

namespace rprof {

struct LaunchSpec {
  std::vector<std::string> argv;           // argv[0] as the user typed it
  std::map<std::string, std::string> env;  // added to the inherited environment
  std::vector<std::string> wrapper;        // e.g. valgrind and its options
  std::string stdout_path;                 // when set, the app's stdout goes there
  std::string stderr_path;                 // when set, the app's stderr goes there
  // When >= 0, an fd of rprof the app gets as its stdin (run/run_input.h:
  // every run of a plan reads the same bytes).
  int stdin_fd = -1;
  // Sample the app (all its threads and children) with the cpu-clock
  // software event and attribute the samples to functions
  // (LaunchResult::functions).
  bool sample_functions = false;
  // Its period, ns of CPU time per sample and thread (--sample-period).
  uint64_t sample_period_ns = kSamplingPeriodNs;
  // Keep the app's initial stack where it is from run to run: the paths
  // that move with -o, the working directory and rprof's pid are padded to
  // fixed lengths (fixed_stack_environment). The sim backend asks for it:
  // its simulated caches see the stack's addresses.
  bool fixed_stack = false;
};

struct LaunchResult {
  int exit_code = 0;   // when the app exited
  int signal = 0;      // when a signal killed it
  int pid = 0;         // the app's process id (the first image of it)
  double wall_time_s = 0;
  double user_time_s = 0;
  double system_time_s = 0;
  FunctionTimes functions;  // when spec.sample_functions
  // The run was stopped from outside: SIGINT, SIGTERM, SIGHUP or SIGQUIT
  // reached rprof while the app ran (Ctrl-C, a batch system's SIGTERM), or
  // another signal rprof forwarded (SIGUSR1, ...) killed the app.
  int stopped_by = 0;
  // rprof's own exit code for this outcome: the app's code, or 128 + signal.
  int shell_status() const { return signal != 0 ? 128 + signal : exit_code; }
};

// Resolves argv[0] like a shell (PATH when it has no '/'). Throws Error with
// exit code 127 (not found) or 126 (found but not executable).
std::string resolve_program(const std::string& name);

// Creates the output directory: `requested` (created with mode 0700 if absent;
// refused if it exists and is not empty, but see `replace`), or, when empty, a fresh directory
// ./rprof-<app>-<random> (mkdtemp, mode 0700). Returns its absolute path.
// With `replace` (--force), an existing `requested` that is an rprof output
// directory (every entry one rprof writes: profile.json, raw/, ...) is
// emptied and reused; anything else there is refused, naming what is not
// rprof's.
std::string make_output_dir(const std::string& requested, const std::string& app,
                            bool replace = false);

// Called once at rprof's start: an inherited SIGCHLD = SIG_IGN would make
// the kernel reap the app before rprof can wait for it, so rprof takes
// SIG_DFL and gives the app the inherited disposition back before exec.
void take_over_sigchld();

// Variables whose values move with the output path, the working directory
// or rprof's pid, padded by fixed_stack_environment.
inline constexpr const char* kFixedStackPaths[] = {RPROF_ENV_OUTPUT_DIR, RPROF_ENV_TABLES_DIR,
                                                   "PWD", "OLDPWD"};
// Their padded length: each is a directory path padded with trailing '/' to
// this many bytes (to the next multiple of it when longer: two paths on
// either side of a multiple then still move the stack).
inline constexpr size_t kFixedStackPathBytes = 1024;

// The environment the app gets: `base` (environ's form, null-terminated)
// with spec.env set on it as setenv() would (a name it holds keeps its
// place, a new one goes at the end), RPROF_PRELOAD_PROGRAM cleared unless
// the spec sets it and, with spec.fixed_stack, kFixedStackPaths padded.
//
// Why padding: the kernel (and Valgrind, for the program it runs) copies
// argv and the environment strings to the top of the initial stack, so
// their lengths set every stack address of the program. The simulated
// caches index sets by address, so a longer -o path alone moves counts by
// a line here and there. Padding each moving value in place, not one
// variable for the total, keeps the start of every string fixed too
// (ld.so and libc read the first bytes of each at start-up). A directory
// path with trailing slashes names the same directory.
std::vector<std::string> fixed_stack_environment(const LaunchSpec& spec, char** base);

// Runs the program and waits for it. The app is killed (SIGKILL) when rprof
// dies (PR_SET_PDEATHSIG, kept through Valgrind's exec of its tool). While
// waiting, every catchable signal a process sends to rprof (kill -USR1
// <rprof pid>) is forwarded to the app, and SIGTERM, SIGHUP and SIGALRM
// whoever sent them; those the terminal sends (Ctrl-C, a window resize)
// reach the app directly and are not sent twice. SIGCHLD and the job-control
// signals (SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT) keep their actions. So rprof
// always lives to write the report and remove its private directories. A
// launcher-only variable the user's environment still holds from an earlier
// run (RPROF_PRELOAD_PROGRAM) is cleared unless the spec sets it.
LaunchResult launch(const LaunchSpec& spec);

}  // namespace rprof

#endif  // RPROF_RUN_LAUNCHER_H_
