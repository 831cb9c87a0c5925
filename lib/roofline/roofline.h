// The roofline model. Units and conventions, stated in every output:
// FLOPs with FMA = 2, GFLOP/s = 1e9 FLOP/s, GB = 1e9 bytes, intensity in
// FLOP/byte at a named boundary (L1 = core<->L1, L2 = L1<->L2, LLC =
// L2<->LLC, DRAM = LLC<->DRAM), ceilings measured with a stated thread count.
//
//   bound at boundary b   P_b = min(P_peak, B_b * I_b)
//   ridge                 I*_b = P_peak / B_b
//   limiting boundary     the b with the lowest B_b * I_b
//   fraction of the roof  achieved GFLOP/s / min over b of P_b
#ifndef RPROF_ROOFLINE_ROOFLINE_H_
#define RPROF_ROOFLINE_ROOFLINE_H_

#include <optional>
#include <string>
#include <vector>

#include "common/shared_text.h"
#include "machine/machine.h"
#include "profile/metrics.h"

namespace rprof {

// min(peak, bandwidth * intensity): GFLOP/s from GFLOP/s, GB/s, FLOP/byte.
double attainable_gflops(double peak_gflops, double bandwidth_gbs, double intensity);
// peak / bandwidth: FLOP/byte.
double ridge_intensity(double peak_gflops, double bandwidth_gbs);

// One point of the lab: a fixed compute ceiling and one bandwidth.
struct LabPoint {
  double peak_gflops = 0, bandwidth_gbs = 0, intensity = 0;
  double bandwidth_roof = 0;  // B * I, GFLOP/s
  double bound = 0;           // min(P, B * I), GFLOP/s
  double ridge = 0;           // P / B, FLOP/byte
  bool memory_limited = false;  // I < ridge (at the ridge both roofs meet)
  double fraction_of_peak = 0;  // bound / P
};
// Throws Error (exit 2) unless all three are finite and > 0.
LabPoint lab_point(double peak_gflops, double bandwidth_gbs, double intensity);

struct ComputeRoof {
  Precision precision = Precision::kDP;
  Width width = Width::kScalar;
  FlopMix mix = FlopMix::kFma;
  double gflops = 0;
  std::string label() const;  // "DP 512-bit fma" / "DP scalar addmul"
};

struct BoundaryRoof {
  Boundary boundary = Boundary::kDRAM;
  double bytes = 0;  // crossing the boundary, all threads
  bool approximate = false;
  SharedText source;         // where the bytes came from, when known (Traffic::source)
  double intensity = 0;      // FLOP/byte
  double bandwidth_gbs = 0;  // the machine's ceiling for this region's mix (MixRoof)
  StreamMix kernel = StreamMix::kLoad;  // the kernel that set it
  std::string pages;                    // the page size it ran on ("" unrecorded)
  double write_share = 0;               // written / all bytes at this boundary
  bool read_limited = false;            // the best read rate / (1 - write_share)
  double best_gbs = 0;                  // the best of any kernel (any mix)
  StreamMix best_kernel = StreamMix::kLoad;
  double bandwidth_roof = 0;  // B * I, GFLOP/s
  double bound = 0;           // min(roof, B * I), GFLOP/s
  double ridge = 0;           // roof / B, FLOP/byte
  bool memory_limited = false;
  double fraction = 0;  // achieved / bound
};

// A time known only from above: a function region that no cpu-clock sample
// hit ran for less than one sampling period on each thread that could have
// run it (docs/functions.md). Rates computed with max_time_s are lower bounds.
struct TimeBound {
  double max_time_s = 0;  // period_s x threads, CPU seconds
  double period_s = 0;    // CPU seconds per sample
  unsigned threads = 1;
  std::optional<double> min_gflops;    // FLOPs / max_time_s / 1e9, with FLOP counts
  std::optional<double> min_dram_gbs;  // DRAM bytes / max_time_s / 1e9, with DRAM bytes > 0
};

struct RegionRoofline {
  bool valid = false;
  // time_s is an upper bound (TimeBound): gflops and fraction are lower bounds.
  bool lower_bound = false;
  // time_s is a function's sampled time of too few samples (the analysis'
  // SampleStats): gflops and fraction are shown marked, never judged.
  bool uncertain = false;
  SharedText why_not;  // when !valid
  double flops = 0, time_s = 0, gflops = 0;
  int threads = 1;          // threads that ran the region
  int ceiling_threads = 1;  // thread count of the ceilings used
  ComputeRoof roof;         // follows the region's precision and width
  ComputeRoof full_roof;    // the widest, best roof of that precision
  // The FMA share of the FP instructions at the roof's precision and width
  // (FLOPs / (FP instructions x lanes) - 1: FMA = 2 FLOPs per lane), when
  // instruction counts exist; and why the roof's operation mix was chosen.
  std::optional<double> fma_share;
  SharedText roof_why;
  std::vector<BoundaryRoof> boundaries;  // measured traffic with a ceiling
  std::optional<Boundary> limiting;      // lowest bandwidth bound
  bool compute_limited = false;          // roof <= every bandwidth bound
  double bound = 0;                      // GFLOP/s
  double fraction = 0;                   // gflops / bound
  std::vector<SharedText> notes;         // the same few texts in most regions

  const BoundaryRoof* at(Boundary b) const;
};

// At or below this FMA share a region is held against the add/mul roof (it
// executed no FMA), at or above 1 - this against the FMA-only roof; between,
// against the best measured mix. Rounding room for a few stray instructions.
inline constexpr double kFmaShareTolerance = 0.02;

// The FMA share of a region's FP instructions of precision p and width w:
// FLOPs / (instructions x lanes) - 1, clamped to [0, 1]; nullopt without
// instruction counts.
std::optional<double> fma_share(const Metrics& m, Precision p, Width w);

// The roofline of a region: metrics from its counters, its elapsed time
// (seconds, slowest thread) and how many threads ran it.
RegionRoofline region_roofline(const Metrics& m, double time_s, int threads,
                               const Machine& machine);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_ROOFLINE_H_
