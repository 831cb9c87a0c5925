#include "machine/calibrate_plan.h"

#include <algorithm>
#include <cmath>

namespace rprof {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

}  // namespace

Plan plan_for(CalibrationMode m) {
  Plan p;
  switch (m) {
    case CalibrationMode::kTiny:
      p.peak = p.bw = p.sweep = p.lat = p.clock = {0.002, 2};
      p.per_octave = 1;
      p.dram_min = 32 * kMiB, p.dram_max = 64 * kMiB, p.chase_max = 32 * kMiB;
      p.dram_warm_s = 0.005, p.chase_warm_max_s = 0.02;
      break;
    case CalibrationMode::kQuick:
      // Short repetitions: on a busy machine a short one is more likely to run
      // undisturbed, and disturbed ones are repeated (measure.h).
      p.peak = {0.005, 5}, p.bw = {0.01, 5}, p.sweep = {0.004, 3}, p.lat = {0.01, 3};
      p.clock = {0.005, 5};
      p.per_octave = 2;
      p.dram_min = 128 * kMiB, p.dram_max = 1024 * kMiB, p.chase_max = 256 * kMiB;
      p.dram_warm_s = 0.1, p.chase_warm_max_s = 0.3;
      break;
    case CalibrationMode::kFull:
      p.peak = {0.01, 15, 60}, p.bw = {0.03, 11, 44}, p.sweep = {0.01, 7}, p.lat = {0.05, 5};
      p.clock = {0.01, 11};
      p.per_octave = 4;
      p.dram_min = 512 * kMiB, p.dram_max = 4096 * kMiB, p.chase_max = 1024 * kMiB;
      p.latency_all_sets = true;
      p.dram_warm_s = 0.25, p.chase_warm_max_s = 1;
      break;
  }
  return p;
}

uint64_t geomean(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(std::sqrt(static_cast<double>(a) * static_cast<double>(b)));
}

const char* mode_name(CalibrationMode m) {
  switch (m) {
    case CalibrationMode::kTiny: return "tiny";
    case CalibrationMode::kFull: return "full";
    default: return "quick";
  }
}

uint64_t working_set_per_thread(const LevelSizes& s, Boundary b, int threads,
                                uint64_t dram_total) {
  const uint64_t t = static_cast<uint64_t>(std::max(1, threads));
  switch (b) {
    case Boundary::kL1: return s.l1 / 2;
    case Boundary::kL2: return geomean(s.l1, s.l2);
    case Boundary::kLLC: {
      // Threads sharing one LLC split it; the total must lie between their
      // L2 caches together and the LLC.
      const uint64_t k = std::min<uint64_t>(t, static_cast<uint64_t>(s.llc_shared_cpus));
      const uint64_t lo = s.l2 * k, hi = s.llc;
      if (hi < 2 * lo) return 0;
      return geomean(lo, hi) / k;
    }
    default: return dram_total / t;
  }
}

uint64_t latency_working_set_per_thread(const LevelSizes& s, Boundary b, int threads,
                                        uint64_t dram_total) {
  // A random chase over W bytes above a faster level of C bytes hits that
  // level about C / W of the time: 8x the level above keeps that to 1/8,
  // and half the level keeps the chase inside it.
  constexpr uint64_t kBeyond = 8;
  const uint64_t t = static_cast<uint64_t>(std::max(1, threads));
  switch (b) {
    case Boundary::kL2:
      return s.l2 / 2 >= 2 * s.l1 ? std::min(kBeyond * s.l1, s.l2 / 2) : geomean(s.l1, s.l2);
    case Boundary::kLLC: {
      const uint64_t k = std::min<uint64_t>(t, static_cast<uint64_t>(s.llc_shared_cpus));
      const uint64_t lo = s.l2 * k, hi = s.llc;
      if (hi < 2 * lo) return 0;
      return std::min(kBeyond * lo, hi / 2) / k;
    }
    default: return working_set_per_thread(s, b, threads, dram_total);
  }
}

}  // namespace rprof
