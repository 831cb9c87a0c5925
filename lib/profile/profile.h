// The profile model the tool reports from: regions identified by their path
// (names from the outermost open region), aggregated over the threads and
// processes of one run. Times in seconds; counters by backend name.
//
// Aggregation conventions (also in docs/profile-schema.md):
// - calls, counters, declared work, thread_time_s, cpu_time_s and run_delay_s
//   are summed
//   over threads;
// - time_s and exclusive_time_s are the maximum over threads (the elapsed time
//   of the slowest thread), so parallel regions are not counted N times;
// - a region is complete when no instance was still open at the flush.
#ifndef RPROF_PROFILE_PROFILE_H_
#define RPROF_PROFILE_PROFILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/shared_text.h"
#include "profile/counter_map.h"
#include "profile/raw_profile.h"

namespace rprof {

inline constexpr int kProfileSchemaVersion = 1;
// Name of the synthetic region the launcher measures for the whole program.
inline constexpr const char* kProgramRegion = "[program]";

struct ThreadRow {
  std::string host;
  int64_t pid = 0;
  int64_t rank = -1;
  uint32_t thread = 0;  // index within its process, in order of first marker
  int64_t tid = 0;
  uint64_t calls = 0;
  double time_s = 0;
  double exclusive_time_s = 0;
  CounterMap counters;
  double cpu_time_s = 0;  // thread CPU time, inclusive (when has_cpu_time)
  double run_delay_s = 0;  // runnable, waiting for a CPU, inclusive (has_run_delay)
};

// Spread of a region's time over threads or processes: load imbalance is
// max / mean - 1 (0 when balanced; 0.25 = the slowest is 25% above the mean).
struct Spread {
  size_t count = 0;
  double min_s = 0;
  double mean_s = 0;
  double max_s = 0;
  double imbalance() const { return mean_s > 0 ? max_s / mean_s - 1 : 0; }
};

// --repeat N: a region's inclusive time (time_s's convention: the maximum over
// threads) in each of the N timed runs of the program, as min, median (the
// middle one; the mean of the middle two for even N) and max. The spread is
// (max - min) / median, relative: 0.05 = the runs' times lie within 5% of the
// median. runs == 0: the run was not repeated.
struct RepeatTimes {
  size_t runs = 0;
  double min_s = 0;
  double median_s = 0;
  double max_s = 0;
  double spread() const { return median_s > 0 ? (max_s - min_s) / median_s : 0; }
  // From the region's time in each run (none: runs == 0).
  static RepeatTimes of(std::vector<double> times);
};

struct Region {
  std::string name;
  std::vector<std::string> path;  // outermost first; path.back() == name
  uint64_t calls = 0;
  double time_s = 0;            // inclusive, max over threads
  double exclusive_time_s = 0;  // max over threads
  double thread_time_s = 0;     // inclusive, summed over threads
  // CPU time of the threads in the region (CLOCK_THREAD_CPUTIME_ID), inclusive,
  // summed over threads; per thread in ThreadRow::cpu_time_s. Beside
  // thread_time_s it says how much of the threads' time was on a CPU (sleep,
  // I/O, locks and blocking calls are not). has_cpu_time: measured (the
  // runtime records it with every backend; function regions and older
  // profiles have none).
  double cpu_time_s = 0;
  bool has_cpu_time = false;
  // Of the threads' time off a CPU, the part they were runnable and waiting
  // for one (the kernel's run delay, /proc/thread-self/schedstat), inclusive,
  // summed over threads; per thread in ThreadRow::run_delay_s. The rest of
  // thread_time_s - cpu_time_s is off the CPU by the threads' choice (sleep,
  // I/O, locks). has_run_delay: measured (beside the CPU time, where the
  // kernel offers it).
  double run_delay_s = 0;
  bool has_run_delay = false;
  bool complete = true;
  uint64_t open_calls = 0;
  double open_time_s = 0;       // elapsed time of open instances at the flush
  uint64_t work_calls = 0;      // declared work (rprof_work): FMA = 2 FLOPs
  double work_flops = 0;
  double work_bytes = 0;
  CounterMap counters;            // inclusive, summed over threads
  CounterMap exclusive_counters;  // summed over threads
  std::vector<ThreadRow> threads;
  // Function regions (the function view, profile/function_view.h): the code
  // they stand for. Empty for marked regions and [program].
  // SharedText: most regions have none of these (an empty text is a pointer).
  SharedText fn_object;     // ELF file
  SharedText fn_symbol;     // raw (mangled) symbol, "" when none covers the code
  SharedText fn_source;     // "file:line" of its entry, "" without debug info
  CounterMap fn_inclusive;  // with its callees (counters are its self counts)
  // How its time was measured: with cpu-clock sampling (fn_sampled), the
  // self samples that hit it, the sampling period and the threads it can
  // have run on (those with a sample in it, or with none: every sampled
  // thread of the run); else estimated from the simulated work.
  bool fn_sampled = false;
  uint64_t fn_samples = 0;
  double fn_period_s = 0;   // CPU seconds per sample
  unsigned fn_threads = 0;
  // --repeat N: its time over the N timed runs (time_s is the first run's,
  // the one the counts come from).
  RepeatTimes repeat;

  size_t depth() const { return path.size() - 1; }
  // Over the threads that ran the region (inclusive time of each).
  Spread thread_spread() const;
  // Over processes (ranks): each process's time is its slowest thread's.
  Spread process_spread() const;
  // The most processes that ran it on one host (1 for a single process; 0
  // without thread rows): ranks on one node, or forked children.
  int processes_on_one_host() const;
  bool is_program() const { return path.size() == 1 && name == kProgramRegion; }
  bool is_function() const { return !fn_object.empty() || !fn_symbol.empty(); }
};

struct MarkerError {
  std::string kind;      // mismatched_end, end_without_begin, empty_name, ...
  std::string expected;  // the open region, when it matters
  std::string got;       // the name passed to the marker
  uint64_t count = 0;
  int64_t pid = 0;
  uint32_t thread = 0;
};

struct RunInfo {
  std::vector<std::string> command;
  std::string backend;
  std::string host;
  int64_t start_unix_s = 0;
  double wall_time_s = 0;      // measured by the launcher (0 if unknown)
  double user_time_s = 0;      // CPU time of the app and its children
  double system_time_s = 0;
  int exit_code = 0;           // the app's exit status, when it exited
  int signal = 0;              // the signal that killed the app, or 0
  int processes = 0;           // raw profiles merged
  int world_size = -1;         // MPI ranks the job had, -1 when not MPI
  std::vector<int> missing_ranks;  // ranks that left no profile
  int threads = 0;             // threads that ran markers
  int repeat = 0;              // --repeat N: timed runs of the program (0: one, not repeated)
  // Traffic below L1 from a cache model that simulates each process with
  // caches of its own (the sim backend, inst's --sample), not the hardware.
  bool per_process_cache_model = false;
  // A run of rprof's own that failed (the sim backend's counted run), for
  // people; every writer's header names it. Nothing it counted is reported.
  std::string failure;
};

struct Profile {
  int schema_version = kProfileSchemaVersion;
  RunInfo run;
  std::vector<std::string> counters;  // union of counter names, sorted
  std::vector<Region> regions;        // tree order; siblings by time, longest first
  std::vector<MarkerError> errors;
  std::vector<std::string> notes;     // things the reader should know

  const Region* find(const std::vector<std::string>& path) const;
};

// Merges raw profiles (one per process) into regions. `run` supplies what the
// launcher measured; the synthetic [program] region is added when
// run.wall_time_s > 0.
Profile aggregate(const std::vector<RawProfile>& raws, RunInfo run);

// Sorts regions into tree order, siblings by inclusive time (longest first).
void sort_tree(std::vector<Region>& regions);

// "a/b/c" for people; names are shown as they are.
std::string path_string(const std::vector<std::string>& path);

}  // namespace rprof

#endif  // RPROF_PROFILE_PROFILE_H_
