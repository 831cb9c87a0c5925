// `rprof machine`: measures this machine's ceilings. Order: core clock, a
// working-set sweep (effective cache sizes), then for each thread count the
// peak FLOP/s of every kernel, bandwidth at each boundary for load, copy and
// triad, and load-to-use latency per level.
#ifndef RPROF_MACHINE_CALIBRATE_H_
#define RPROF_MACHINE_CALIBRATE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "machine/machine.h"

namespace rprof {

enum class CalibrationMode {
  kTiny,   // tests only: a few ms per figure, ceilings are rough
  kQuick,  // default: under 20 s on a 2-core machine
  kFull,   // longer repetitions, finer sweep, more thread counts
};

const char* mode_name(CalibrationMode m);

struct CalibrationOptions {
  CalibrationMode mode = CalibrationMode::kQuick;
  // Thread counts to measure; empty = 1 and all allowed CPUs (full mode adds
  // the powers of two between).
  std::vector<int> threads;
  // Extra total working sets (bytes) at which load, copy and triad are
  // measured for every thread count and stored as sweeps (for comparisons
  // with other tools at fixed sizes).
  std::vector<uint64_t> sizes;
  // Ask for transparent huge pages (MADV_HUGEPAGE) instead of the pages the
  // system gives ordinary programs.
  bool huge_pages = false;
  std::string rprof_version;
  // Called with the fraction done (0..1) and what runs now; may be empty.
  std::function<void(double, const std::string&)> progress;
};

Machine calibrate(const CalibrationOptions& opt);

// More threads can always do what fewer did (the others idle): a peak or a
// bandwidth measured below the same kernel's with fewer threads was disturbed
// (a busy machine descheduled the team). Each such ceiling takes the fewer
// threads' figure; returns the note that says which ("" when none).
std::string keep_ceilings_monotonic(Machine& m);

// The kernel's transparent huge page policy: "always", "madvise", "never".
std::string thp_policy();

// Working set per thread (bytes) used for the bandwidth and latency of a
// boundary with `threads` threads; exposed for tests and docs.
struct LevelSizes {
  uint64_t l1 = 0, l2 = 0, llc = 0;  // effective when measured, else reported
  int llc_shared_cpus = 1;
  bool has_l2 = false, has_llc = false;
};
uint64_t working_set_per_thread(const LevelSizes& s, Boundary b, int threads,
                                uint64_t dram_total);
// The pointer chase's working set per thread for the load latency behind a
// boundary: inside that level and well beyond the one above (8x it, at most
// half the level), so the chase measures that level's latency; 0 when no
// set fits (threads' L2s together fill the LLC).
uint64_t latency_working_set_per_thread(const LevelSizes& s, Boundary b, int threads,
                                        uint64_t dram_total);

}  // namespace rprof

#endif  // RPROF_MACHINE_CALIBRATE_H_
