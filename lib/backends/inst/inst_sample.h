// The inst backend's cache simulation, runtime side: the memory accesses an
// instrumented program passes under its set filter (inst_counters.h,
// RPROF_INST_SET_BITS) feed rprof's cache model (common/cache_model.h) in the
// program's own process: private L1 and L2 per thread, one shared LLC, the
// sim backend's model and geometry.
//
// Sampled (kSampleEnv "sets=F,sel=C,unit=U"): set sampling. Only the lines
// whose number is C modulo F are simulated, all of them, all the time, in
// caches of 1/F the sets of each level (same ways, same line): a line n of
// the sample is line n / F of the small caches, whose set is n / F modulo
// sets / F. Where every level's set count is a multiple of F and the set is
// the line number modulo the set count, as in the model, the small caches
// hold exactly what the full model's sets C, C + F, ... hold (elsewhere, an
// effective size from the machine file, they have sets / F sets, rounded
// down: 1/F of the cache fed 1/F of the lines, an approximation): the
// sample's traffic is exact for those sets, with no warm-up and no cold
// start, and the rest is scaled from it. The filter costs the program a
// bit test per access; the model sees 1/F of the lines.
//
// What one class cannot show is how the traffic spreads over the others: a
// kernel whose L1 misses pile onto a few L1 sets (a 4 KiB row stride) puts
// them in the sample or not, by the choice of C (the L1 in the sample is 1
// set in F). So a second class rotates (its bits in the filter): every 4th
// epoch (2 units' worth of the program's L1 bytes, F x 8 bytes an access),
// the lines d modulo F of the next class d in a stride over the F - 1
// others are simulated too, in an L1 of their own that starts cold. An LRU
// set holds the last `ways` distinct lines referenced in it, whatever came
// before: once full, its outcomes are the full model's, and before, its
// hits are (the line is among the most recent); only a miss in a set not
// yet full is uncertain (the line may have been there before the epoch), at
// most `ways` of them per set and epoch: counted apart, as "unsure". The L2
// boundary only (an L2 or an LLC would need far longer to fill). The sums,
// prefixed sample.aux. (units, l1, l1.sq, l2.read, l2.write, l2.sq, l2.xy,
// l2.unsure, and classes: the rotating epochs begun), give the estimator
// the L2 boundary's ratio over many classes (profile/metrics.cpp).
//
// A sampling unit is U simulated accesses between two reads of the counters
// (a region's entry or exit cuts one): per thread the runtime keeps sums over
// units, read as counters with the others and so attributed to regions the
// same way; the estimator (profile/metrics.cpp) turns them into each
// boundary's bytes (a ratio to the exact L1 bytes) and its 95% confidence
// interval:
//   sample.units          number of units
//   sample.l1             bytes of the sampled lines' accesses (x, summed)
//   sample.l1.sq          sum of x^2, x in 64-byte units
//   sample.B.read/.write  bytes crossing boundary B (l2, llc, dram) in units
//   sample.B.sq           sum of y^2, y = B's read + write in 64-byte units
//   sample.B.xy           sum of x * y, both in 64-byte units
//   sample.l1.all         F times sample.l1: all L1 bytes as the sample
//                         estimates them (against the exact L1 bytes: how
//                         representative the sampled lines' accesses are)
//
// Full ("full"): every access is simulated and counted; the counts are the
// bytes themselves (bytes.l2.read ... bytes.dram.write), no interval.
#ifndef RPROF_BACKENDS_INST_INST_SAMPLE_H_
#define RPROF_BACKENDS_INST_INST_SAMPLE_H_

#include <cstdint>
#include <string>

namespace rprof {
namespace inst {

// Set by the inst driver for the run: "off", "full", or "sets=F,sel=C,unit=U"
// (F a power of two >= 2, at most every level's set count, C < F, U > 0;
// sel and unit optional: 1 and kDefaultUnit).
inline constexpr const char* kSampleEnv = "RPROF_INST_SAMPLE";
// The geometry: "L1SIZE:WAYS:LINE,L2SIZE:WAYS:LINE,LLCSIZE:WAYS:LINE" (bytes).
inline constexpr const char* kCachesEnv = "RPROF_INST_CACHES";

// The counters the model adds in each mode (sample_num_counters()), for the
// tool side's budget of counter slots (runtime/backend.h kMaxCounters).
inline constexpr int kSampledCounters = 25;
// Simulated accesses per sampling unit by default.
inline constexpr uint64_t kDefaultUnit = 1024;
inline constexpr int kFullCounters = 6;

// The counters the model adds to the backend's (0 when off), and their names.
int sample_num_counters();
const char* sample_counter_name(int i);

// The calling thread's first contact (its counter array, where the set
// filter is): sets the filter. Cheap after the first call.
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
  uint64_t sets = 1;  // F: 1 in F lines simulated
  uint64_t sel = 1;   // C: the lines C modulo F
  uint64_t unit = kDefaultUnit;
  uint64_t size[3] = {};  // L1, L2, LLC: bytes, ways, line
  unsigned ways[3] = {};
  unsigned line[3] = {};
};
bool parse_sample_settings(const char* sample, const char* caches, SampleSettings* out,
                           std::string* why);

}  // namespace inst
}  // namespace rprof

#endif  // RPROF_BACKENDS_INST_INST_SAMPLE_H_
