// The memory view of a region: the bandwidth it achieved at each boundary
// against that boundary's measured bandwidth roof, and the misses it kept in
// flight (Little's law). Every region that moves bytes gets one, with or
// without FLOPs; for a region without FLOPs it is the whole verdict.
//
// Units and conventions: GB/s with GB = 1e9 bytes, bytes of all threads over
// the region's time (slowest thread); a boundary is named after the level it
// leads into (L1 = core<->L1, L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM);
// the roof is the machine's ceiling for the region's thread count (the nearest
// measured set, as the FLOP roofline picks it), counting the bytes that cross
// that boundary (write-allocate included below L1).
//
//   achieved bandwidth   B_b = bytes_b / time / 1e9
//   fraction of the roof f_b = B_b / roof_b   (also the share of the region's
//                              time the boundary's bytes need at its roof)
//   limiting boundary    the b with the highest f_b
//   lines in flight      n_b = (read_bytes_b / line) x latency_b / time / threads
#ifndef RPROF_ROOFLINE_MEMORY_VIEW_H_
#define RPROF_ROOFLINE_MEMORY_VIEW_H_

#include <optional>
#include <string>
#include <vector>

#include "common/shared_text.h"
#include "machine/machine.h"
#include "profile/metrics.h"

namespace rprof {

struct BoundaryBandwidth {
  Boundary boundary = Boundary::kDRAM;
  double bytes = 0;  // crossing the boundary, all threads
  bool approximate = false;
  double gbs = 0;       // achieved, GB/s
  double roof_gbs = 0;  // the measured ceiling for this mix, GB/s (0 = none; MixRoof)
  StreamMix kernel = StreamMix::kLoad;  // the kernel that set it
  std::string pages;                    // its page size ("" unrecorded)
  double write_share = 0;               // written / all bytes at this boundary
  bool read_limited = false;            // roof = the best read rate / (1 - write_share)
  double best_gbs = 0;                  // the best of any kernel (any mix)
  StreamMix best_kernel = StreamMix::kLoad;
  std::string best_pages;
  double read_gbs = 0;                  // the best read rate of any kernel
  StreamMix read_kernel = StreamMix::kLoad;
  double fraction = 0;  // gbs / roof_gbs (0 without a roof)
  // The same boundary's roof in STREAM's convention (explicit loads and
  // stores, no write-allocate read; the best kernel by that count), beside
  // roof_gbs, which counts write-allocate below L1 as the region's bytes do.
  double stream_roof_gbs = 0;
  StreamMix stream_kernel = StreamMix::kLoad;
  // Little's law, below L1 only (at L1 the bytes are load and store
  // instructions, not line misses).
  double line_misses = 0;           // read bytes / line size
  std::optional<double> latency_ns;  // the measured load latency behind it
  std::optional<double> in_flight;   // line misses in flight per thread
  // in_flight above kMaxLinesInFlightPerCore: more than a core can track, so
  // the latency behind it (or the time) is wrong; never reported as fact.
  bool in_flight_implausible = false;
};

// The most line misses one core keeps in flight below L1, with room for
// prefetches: above the miss-tracking queues of current x86 cores (Intel:
// 10-16 L1 fill buffers, a 32-entry (Skylake) to 48-entry (Golden Cove) L2
// superqueue, Intel 64 and IA-32 Architectures Optimization Reference
// Manual; AMD Zen 3/4: 24 L1 miss address buffers and an L2 miss queue of
// the same order as Intel's, AMD Software Optimization Guide for family
// 19h). Little's law above it means the latency behind the boundary (or the
// region's time) is wrong, so it is flagged, never reported as fact.
inline constexpr double kMaxLinesInFlightPerCore = 64;

struct MemoryView {
  bool valid = false;
  // time_s is an upper bound (TimeBound): GB/s, fractions and misses in
  // flight are lower bounds.
  bool lower_bound = false;
  // time_s is a function's sampled time of too few samples: rates and
  // fractions are shown marked, never judged.
  bool uncertain = false;
  SharedText why_not;  // when !valid
  double time_s = 0;
  int threads = 1;
  int ceiling_threads = 1;
  int line_bytes = 64;
  std::vector<BoundaryBandwidth> boundaries;  // measured bytes > 0, L1 first
  std::optional<Boundary> limiting;           // highest fraction of its roof
  double fraction = 0;                        // at the limiting boundary
  // The boundary below L1 with the highest fraction: where Little's law is
  // read (the limiting one unless that is L1).
  std::optional<Boundary> latency_boundary;

  const BoundaryBandwidth* at(Boundary b) const;
};

// The view of a region: its metrics, elapsed time (s, slowest thread) and
// thread count, against the machine's ceilings.
MemoryView memory_view(const Metrics& m, double time_s, int threads, const Machine& machine);

// The measured load latency (ns) behind boundary b: misses across DRAM wait
// for DRAM, across LLC for L3, ... From the set for `threads`, else 1 thread.
std::optional<double> latency_behind(const Machine& m, Boundary b, int threads);

// The machine's cache line (bytes), 64 when unknown.
int line_bytes_of(const Machine* m);

// Average line misses in flight per thread by Little's law: misses * latency
// / (time * threads). nullopt when the latency is unknown.
std::optional<double> misses_in_flight(double line_misses, double latency_ns,
                                       double time_s, int threads);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_MEMORY_VIEW_H_
