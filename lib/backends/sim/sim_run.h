// Running a program under rprof's Valgrind tool (the `sim` backend): finding
// the tool, the command line, and reading what the run left behind.
//
// The tool is found without any setting: relative to this rprof executable
// (/proc/self/exe), in the build tree (<build>/bin/rprof ->
// <build>/libexec/rprof/valgrind) or an installation (<prefix>/bin/rprof ->
// <prefix>/<libexecdir>/rprof/valgrind). RPROF_SIM_LIBDIR overrides both. That
// directory is a complete VALGRIND_LIB: the tool plus links to the system
// Valgrind's run-time files.
#ifndef RPROF_BACKENDS_SIM_SIM_RUN_H_
#define RPROF_BACKENDS_SIM_SIM_RUN_H_

#include <optional>
#include <string>
#include <vector>

#include "profile/function_view.h"
#include "profile/profile.h"
#include "run/launcher.h"
#include "backends/sim/sim_config.h"

namespace rprof {

struct SimTool {
  std::string valgrind;  // the valgrind launcher program
  std::string libdir;    // VALGRIND_LIB holding rprof-sim-amd64-linux
};

// The tool of this rprof, or nullopt with a one-line reason in *why and what
// to do in *fix. The one search of the tool: runs and `rprof doctor` use it.
std::optional<SimTool> find_sim_tool(std::string* why, std::string* fix = nullptr);

// Where one sim run writes: <out>/sim/ holds Valgrind's log and the tool's
// totals, one of each per process (valgrind.<pid>.log, totals.<pid>.txt:
// child processes are simulated too), and the app's stdout.txt/stderr.txt;
// raw profiles go to <out>/raw-sim.
struct SimRunFiles {
  std::string dir;
  std::string raw_dir;
  // Patterns with %p, as Valgrind expands them (a '%' of dir written %%).
  std::string log;
  std::string totals;
  std::string functions;  // the tool's per-function table
  std::string app_stdout;  // set when the app's output is kept out of the terminal
  std::string app_stderr;
};
SimRunFiles sim_run_files(const std::string& out_dir, bool capture_app_output);

// Threads alive at once that Valgrind runs (--max-threads; its default is
// 500). Valgrind zeroes a slot per thread at start, about 7 kB each (36 MB
// resident at 500, 47 MB at 2,000, 105 MB at 10,000, valgrind --tool=none
// /bin/true), in every process it traces: 4,096 keeps that near 30 MB more.
inline constexpr int kSimMaxThreads = 4096;

// valgrind --tool=rprof-sim ... app args, with the handshake environment;
// with `functions`, the tool also counts per function (functions.*.txt).
LaunchSpec sim_launch_spec(const SimTool& tool, const SimCaches& caches,
                           const std::vector<std::string>& app, const SimRunFiles& files,
                           bool functions = false);

// The tool's per-function tables (functions.*.txt of dir), summed over
// processes. Throws Error on a malformed file or one over the size cap.
FunctionTable read_sim_functions(const std::string& dir);
// One table's text (exposed for tests).
void parse_sim_functions(const std::string& text, const std::string& file, FunctionTable& into);

// The tool's whole-run totals ("name value" lines in totals.*.txt of dir),
// summed over processes; empty if there are none.
CounterMap read_sim_totals(const std::string& dir);
// Whether dir holds any of the simulator's totals.*.txt.
bool has_sim_totals(const std::string& dir);
// Valgrind's logs (valgrind.*.log of dir), concatenated.
std::string read_sim_logs(const std::string& dir);
// Those logs as a user finds them in the output directory
// ("sim/valgrind.4242.log", comma-separated), or "no Valgrind log in sim/".
std::string sim_log_names(const std::string& dir);

// The sanitizer a program was built with ("AddressSanitizer", ...), or "":
// such programs cannot run under Valgrind. Looks for the sanitizer's init
// symbol in the executable.
std::string sanitizer_of(const std::string& program_path);

// True when Valgrind's log shows it stopped at an EVEX-encoded (AVX-512)
// instruction ("unhandled instruction bytes: 0x62 ...").
bool log_shows_avx512(const std::string& log_text);
// What to do about a program with AVX-512 code (address: where the scan
// found it, "" when Valgrind's log did): `rprof cc`, a build without it.
std::string avx512_advice(const std::string& program, const std::string& address);

// What went wrong in a sim run, for people (one line, the cause with its
// reason: Valgrind's own failure, an option it rejected, a program it cannot
// run, a load failure under LD_BIND_NOW, a signal), or "" when the run ended
// as the program wanted. `log_text` is Valgrind's log, `stderr_text` the
// run's stderr (Valgrind's messages before its log is open, the loader's),
// `log_names` where the log is (sim_log_names).
std::string diagnose_sim_run(const LaunchResult& result, const std::string& log_text,
                             const std::string& stderr_text, const std::string& program,
                             const std::string& log_names);

}  // namespace rprof

#endif  // RPROF_BACKENDS_SIM_SIM_RUN_H_
