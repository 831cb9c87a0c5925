// A synthetic machine with round numbers, for roofline and machine-file tests.
#ifndef RPROF_TESTS_UNIT_MACHINE_FIXTURE_H_
#define RPROF_TESTS_UNIT_MACHINE_FIXTURE_H_

#include "machine/machine.h"

namespace rprof::test {

// 1 thread: DP peaks scalar 10 / 256-bit 40 / 512-bit 80 (FMA), SP twice
// that; bandwidth (explicit loads+stores) L1 400, L2 200, LLC 100, DRAM 20
// GB/s for load; triad 10 % lower, so the traffic figure (x 5/4) wins below L1.
// 2 threads: everything doubled.
inline Machine synthetic_machine() {
  Machine m;
  m.mode = "quick";
  m.created_unix_s = 1700000000;
  m.cpu.vendor = "GenuineIntel";
  m.cpu.family = 6;
  m.cpu.model = 207;
  m.cpu.model_name = "Test CPU";
  m.cpu.sse2 = m.cpu.avx = m.cpu.avx2 = m.cpu.fma = m.cpu.avx512f = true;
  m.logical_cpus = 2;
  m.clock_ghz = 2.5;
  m.caches = {{1, 49152, 45000, 12, 64, 1}, {2, 2097152, 1500000, 16, 64, 1},
              {3, 314572800, 60000000, 15, 64, 2}};
  for (int t : {1, 2}) {
    CeilingSet s;
    s.threads = t;
    s.cpus = t == 1 ? std::vector<int>{0} : std::vector<int>{0, 1};
    const double k = t;
    const std::pair<Width, double> dp[] = {
        {Width::kScalar, 10}, {Width::k256, 40}, {Width::k512, 80}};
    for (auto [w, g] : dp) {
      for (Precision p : {Precision::kDP, Precision::kSP}) {
        const double f = (p == Precision::kSP ? 2 : 1) * k;
        PeakCeiling fma{p, w, FlopMix::kFma, "avx512f", g * f, {}};
        fma.how.kernel = "fma";
        fma.how.threads = t;
        fma.how.repetitions = 3;
        fma.how.best = fma.gflops;
        PeakCeiling am{p, w, FlopMix::kAddMul, "avx512f", g * f / 2, {}};
        am.how = fma.how;
        s.peaks.push_back(fma);
        s.peaks.push_back(am);
      }
    }
    const std::pair<Boundary, double> bw[] = {{Boundary::kL1, 400},
                                              {Boundary::kL2, 200},
                                              {Boundary::kLLC, 100},
                                              {Boundary::kDRAM, 20}};
    for (auto [b, g] : bw) {
      BandwidthCeiling load{b, StreamMix::kLoad, g * k, g * k, {}};
      load.how.kernel = "load";
      load.how.working_set_bytes = 1000;
      load.how.threads = t;
      BandwidthCeiling triad{b, StreamMix::kTriad, 0.9 * g * k, 0.9 * g * k * 1.25, {}};
      triad.how = load.how;
      s.bandwidth.push_back(load);
      s.bandwidth.push_back(triad);
    }
    s.latency.push_back({"L1", 1.2, 3, {}});
    s.latency.back().how.kernel = "chase";
    m.ceilings.push_back(s);
  }
  m.sweeps.push_back({StreamMix::kLoad, 1, "capacity", {{4096, 400, 0.01}, {1 << 30, 20, 0.02}}});
  m.notes.push_back("synthetic");
  return m;
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_UNIT_MACHINE_FIXTURE_H_
