// The inst backend's cache simulation, runtime side: the memory accesses an
// instrumented program passes while its countdown is negative
// (inst_counters.h) feed rprof's cache model (common/cache_model.h) in the
// program's own process: private L1 and L2 per thread, one shared LLC, the
// sim backend's model and geometry.
//
// Sampled (RPROF_INST_SAMPLE_ENV "rate=R,..."): SMARTS-style systematic
// sampling by accesses. Each thread alternates a skip (the countdown: no
// call, native speed) with a detailed window: `warm` accesses that only
// update the caches (their counts are dropped: cold-start bias), then
// `window` measured accesses. Skips are drawn uniformly in [0.5, 1.5] times
// their mean (so windows never lock onto a loop's period) from a generator
// seeded by `seed` and the thread's ordinal: a run is reproducible. The
// caches keep their state across skips (stale, not cold).
//
// A sampling unit is a window's measured accesses between two reads of the
// counters (a region's entry or exit cuts a window in two): per thread the
// runtime keeps sums over units, read as counters with the others and so
// attributed to regions the same way; the estimator (profile/metrics.cpp)
// turns them into each boundary's bytes (a ratio to the exact L1 bytes) and
// its 95% confidence interval:
//   sample.units          number of units
//   sample.l1             bytes of the measured accesses (x, summed)
//   sample.l1.sq          sum of x^2, x in 64-byte units
//   sample.B.read/.write  bytes crossing boundary B (l2, llc, dram) in units
//   sample.B.sq           sum of y^2, y = B's read + write in 64-byte units
//   sample.B.xy           sum of x * y, both in 64-byte units
//   sample.B.cold         bytes of B's reads that filled a free way of the
//                         level above B in the model: misses the model
//                         cannot tell from hits of the real cache (its cold
//                         start, common/cache_model.h), the estimate's bound
//                         on its cold-start bias
//
// Full ("full"): every access is simulated and counted; the counts are the
// bytes themselves (bytes.l2.read ... bytes.dram.write), no interval.
#ifndef RPROF_BACKENDS_INST_INST_SAMPLE_H_
#define RPROF_BACKENDS_INST_INST_SAMPLE_H_

#include <cstdint>
#include <string>

namespace rprof {
namespace inst {

// Set by the inst driver for the run: "off", "full", or
// "rate=R,window=M,warm=W,seed=S" (R in (0, 1]: the share of accesses
// simulated, warm-up included).
inline constexpr const char* kSampleEnv = "RPROF_INST_SAMPLE";
// The geometry: "L1SIZE:WAYS:LINE,L2SIZE:WAYS:LINE,LLCSIZE:WAYS:LINE" (bytes).
inline constexpr const char* kCachesEnv = "RPROF_INST_CACHES";

// The counters the model adds in each mode (sample_num_counters()), for the
// tool side's budget of counter slots (runtime/backend.h kMaxCounters).
inline constexpr int kSampledCounters = 18;
inline constexpr int kFullCounters = 6;

// The counters the model adds to the backend's (0 when off), and their names.
int sample_num_counters();
const char* sample_counter_name(int i);

// The calling thread's first contact (its counter array, where the
// countdown is): starts its schedule. Cheap after the first call.
void sample_thread_start(unsigned long long* program_counters);

// Ends the calling thread's current unit and writes its sums
// (sample_num_counters() values).
void sample_read(uint64_t* out);

// The calling thread's counter array of the instrumented program
// (rprof_inst_attach's accessor), or null when no instrumented program
// attached: for a backend other than inst that runs the model (perf, where
// the PMU counts no traffic at a boundary).
unsigned long long* program_counters();

// One access, from the program's run-time object.
void sample_access(const void* addr, unsigned long bytes, int is_store);

// Parses kSampleEnv's and kCachesEnv's values; false with *why (one line)
// when they are not valid. Exposed for tests.
struct SampleSettings {
  enum Mode { kOff, kFull, kSampled } mode = kOff;
  double rate = 0;
  uint64_t window = 0;  // measured accesses per window
  uint64_t warm = 0;    // warm-up accesses before them
  uint64_t seed = 1;
  uint64_t size[3] = {};  // L1, L2, LLC: bytes, ways, line
  unsigned ways[3] = {};
  unsigned line[3] = {};
};
bool parse_sample_settings(const char* sample, const char* caches, SampleSettings* out,
                           std::string* why);

}  // namespace inst
}  // namespace rprof

#endif  // RPROF_BACKENDS_INST_INST_SAMPLE_H_
