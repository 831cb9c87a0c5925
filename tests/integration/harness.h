// Helpers for integration tests: run the built `rprof` (or any command),
// capture exit status, stdout and stderr, and load the profile it wrote.
#ifndef RPROF_TESTS_INTEGRATION_HARNESS_H_
#define RPROF_TESTS_INTEGRATION_HARNESS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "skip.h"

namespace rprof::test {

struct RunResult {
  int status = -1;     // exit code, or 128 + signal
  std::string out;     // stdout
  std::string err;     // stderr
  std::string dir;     // output directory passed with -o (when run_rprof made one)
};

// Runs argv (no shell), with extra environment "K=V" entries.
//
// Hermetic by default: HOME and XDG_CACHE_HOME point into the test's work
// directory (the user's cache is never read or written), and the machine is
// the recorded one of default_machine() (RPROF_SYSROOT and
// RPROF_MACHINE_FILE), so nothing depends on this machine's caches and
// nothing calibrates it. `env` entries override these; a test that measures
// the real machine passes real_machine_env().
RunResult run_command(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env = {});

// The recorded machines of tests/fixtures/machines (zen4-desktop,
// skylake-sp, sapphire-rapids, cloud-vm-480m): each one's substitute root
// (proc/, sys/) and machine file.
std::string default_machine();  // "zen4-desktop"
std::string machine_root(const std::string& name);
std::string machine_file(const std::string& name);
// RPROF_SYSROOT and RPROF_MACHINE_FILE for a recorded machine.
std::vector<std::string> machine_env(const std::string& name);
// This machine, uncalibrated: no RPROF_SYSROOT, no machine file (calibration
// tests only; the cache they fill is the test's own HOME).
std::vector<std::string> real_machine_env();
// The largest cache this host's sysfs reports (never a recorded machine's);
// 32 MiB when unknown. For working sets that must miss natively too.
uint64_t host_largest_cache();

// Runs `rprof <args...>` (a subcommand: report, lab, plot, ...).
RunResult run_tool(const std::vector<std::string>& args,
                   const std::vector<std::string>& env = {});

// Runs `rprof -o <fresh dir> <args...>` and returns the result with .dir set.
RunResult run_rprof(const std::vector<std::string>& args,
                    const std::vector<std::string>& env = {});

// run_rprof for a program built never to wait (no sleep, I/O or locks): while
// the region's verdict is "waiting" (this host gave its threads under half a
// CPU: a busy or shared host, not the program; the verdict is right about that
// run), the run is reported on stderr and made again, up to `tries` runs. The
// last run is returned whatever it says, so a host that stays that busy, or a
// CPU clock read wrong, still fails the caller's checks.
RunResult run_rprof_on_cpu(const std::vector<std::string>& args, const std::string& region,
                           const std::vector<std::string>& env = {}, int tries = 4);

// `mpirun` for 2 ranks of `app` on this host, whatever host it is: as root
// (--allow-run-as-root), on 2 cores or fewer (--oversubscribe), no binding,
// the ranks talking through shared memory only (btl self,vader, pml ob1: no
// probing of network devices a VM may half-have). A job still running after
// kMpiTimeLimitS is ended by mpirun itself, which prints the ranks' states and
// their stack traces (a gstack of the harness's, over gdb, when gdb exists).
constexpr int kMpiTimeLimitS = 60;
std::vector<std::string> mpirun_np2(const std::vector<std::string>& app);

// run_rprof for a command that starts with mpirun_np2: a job that reached
// mpirun's time limit is reported (on stderr, with mpirun's report) and run once
// more; its second run's result is returned whatever it is. Open MPI's own
// start-up and shared-memory hangs are rare and not rprof's; a hang that
// comes back is a failure with the report in the log.
RunResult run_rprof_mpi(const std::vector<std::string>& args,
                        const std::vector<std::string>& env = {});

// A fresh empty directory under the test binary dir (removed at exit).
std::string fresh_dir(const std::string& tag);
// A path for a directory that does not exist yet (for rprof -o).
std::string fresh_path(const std::string& tag);

nlohmann::json load_json(const std::string& path);
// The region of profile.json with this path ("a/b"), or null json.
nlohmann::json find_region(const nlohmann::json& profile, const std::string& path);

std::string sample(const std::string& name);  // path of a built sample
// "LD_PRELOAD=" and the library, through a link where its path holds a space
// (LD_PRELOAD splits at spaces: run/preload.h).
std::string preload_env(const std::string& lib);
// `text` quoted for sh ('...', with each ' as '\''): paths may hold spaces.
std::string shell_quote(const std::string& text);
std::string read_text(const std::string& path);
// A text report with its wrapped lines joined (a newline and the indentation
// after it become one space), for checks of whole sentences.
std::string unwrapped(const std::string& text);

}  // namespace rprof::test

#endif  // RPROF_TESTS_INTEGRATION_HARNESS_H_
