// The calibration's parts that can be checked without timing anything:
// effective sizes from a synthetic sweep, sweep sizes, working sets per
// level, kernels that compute what they claim, the pointer chase's cycle.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "machine/buffer.h"
#include "machine/calibrate.h"
#include "machine/chase.h"
#include "machine/flop_kernels.h"
#include "machine/fp_latency.h"
#include "machine/latency_ladder.h"
#include "machine/measure.h"
#include "machine/recalibration.h"
#include "machine/stream_kernels.h"
#include "machine/sweep.h"

using namespace rprof;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

// Plateaus: 200 GB/s in L1 (to 32 KiB), 100 in L2 (to 1 MiB), 50 in L3 up
// to `l3_edge`, then 10 (memory).
std::vector<SweepPoint> staircase(uint64_t l3_edge) {
  std::vector<SweepPoint> pts;
  for (uint64_t s : sweep_sizes(4 * kKiB, 512 * kMiB, 2, 4096)) {
    double g = 10;
    if (s <= 32 * kKiB) g = 200;
    else if (s <= 1 * kMiB) g = 100;
    else if (s <= l3_edge) g = 50;
    pts.push_back({s, g, 0});
  }
  return pts;
}

}  // namespace

TEST_CASE("sweep sizes: geometric, rounded, increasing") {
  const auto s = sweep_sizes(4096, 1 << 20, 2, 64);
  REQUIRE(s.size() == 17);  // 8 octaves, 2 per octave, both ends
  CHECK(s.front() == 4096);
  CHECK(s.back() == (1u << 20));
  CHECK(s[2] == 8192);
  for (size_t i = 1; i < s.size(); ++i) CHECK(s[i] > s[i - 1]);
  CHECK(sweep_sizes(0, 10, 2, 1).empty());
}

TEST_CASE("effective capacities: where bandwidth drops, even far below sysfs") {
  const std::vector<uint64_t> reported = {32 * kKiB, 1 * kMiB, 300 * kMiB};
  // An L3 that sysfs calls 300 MiB but holds only 16 MiB.
  const auto eff = effective_capacities(reported, staircase(16 * kMiB));
  REQUIRE(eff.size() == 3);
  CHECK(eff[0] == 32 * kKiB);
  CHECK(eff[1] == 1 * kMiB);
  CHECK(eff[2] == 16 * kMiB);
  // A flat curve after L2: no L3 edge can be placed.
  auto flat = staircase(16 * kMiB);
  for (SweepPoint& p : flat) {
    if (p.bytes > 1 * kMiB) p.gbs = 50;
  }
  const auto eff2 = effective_capacities(reported, flat);
  CHECK(eff2[1] == 1 * kMiB);
  CHECK(eff2[2] == 0);
  CHECK(effective_capacities(reported, {}).size() == 3);
}

TEST_CASE("working sets: inside each level, shared LLC split, no LLC window") {
  LevelSizes s;
  s.l1 = 32 * kKiB;
  s.l2 = 1 * kMiB;
  s.llc = 16 * kMiB;
  s.llc_shared_cpus = 2;
  s.has_l2 = s.has_llc = true;
  CHECK(working_set_per_thread(s, Boundary::kL1, 1, 0) == 16 * kKiB);
  const uint64_t l2 = working_set_per_thread(s, Boundary::kL2, 1, 0);
  CHECK(l2 > s.l1);
  CHECK(l2 < s.l2);
  const uint64_t llc1 = working_set_per_thread(s, Boundary::kLLC, 1, 0);
  CHECK(llc1 == 4 * kMiB);
  const uint64_t llc2 = working_set_per_thread(s, Boundary::kLLC, 2, 0);
  CHECK(2 * llc2 > 2 * s.l2);
  CHECK(2 * llc2 < s.llc);
  CHECK(working_set_per_thread(s, Boundary::kDRAM, 2, 512 * kMiB) == 256 * kMiB);
  s.llc = 3 * kMiB;  // L2s together hold nearly as much as the LLC
  CHECK(working_set_per_thread(s, Boundary::kLLC, 2, 0) == 0);
}

TEST_CASE("latency working sets: 8x the level above, at most half the level") {
  LevelSizes s;
  s.l1 = 48 * kKiB;  // the Zen 5: L1d 48 KiB, L2 1 MiB, L3 32 MiB
  s.l2 = 1 * kMiB;
  s.llc = 32 * kMiB;
  s.llc_shared_cpus = 8;
  s.has_l2 = s.has_llc = true;
  CHECK(latency_working_set_per_thread(s, Boundary::kL1, 1, 0) == 24 * kKiB);
  CHECK(latency_working_set_per_thread(s, Boundary::kL2, 1, 0) == 384 * kKiB);
  CHECK(latency_working_set_per_thread(s, Boundary::kLLC, 1, 0) == 8 * kMiB);
  // 4 threads sharing the LLC: 4 L2s (4 MiB) x 8 is more than half of it.
  CHECK(latency_working_set_per_thread(s, Boundary::kLLC, 4, 0) == 16 * kMiB / 4);
  CHECK(latency_working_set_per_thread(s, Boundary::kDRAM, 2, 512 * kMiB) == 256 * kMiB);
  // An L2 barely larger than the L1: the geometric mean, inside both.
  s.l2 = 128 * kKiB;
  const uint64_t l2 = latency_working_set_per_thread(s, Boundary::kL2, 1, 0);
  CHECK(l2 > s.l1);
  CHECK(l2 < s.l2);
  // No window inside the LLC.
  s.l2 = 1 * kMiB;
  s.llc = 3 * kMiB;
  CHECK(latency_working_set_per_thread(s, Boundary::kLLC, 2, 0) == 0);
}

TEST_CASE("latency ladder: a note for each step out of order") {
  CeilingSet set;
  set.latency = {{"L1", 1.0, 0, {}}, {"L2", 4.0, 0, {}}, {"L3", 145, 0, {}}, {"DRAM", 173, 0, {}}};
  CHECK(latency_ladder_note(set).empty());
  set.latency[2].ns = 195;  // the LLC as slow as DRAM or slower
  const std::string note = latency_ladder_note(set);
  CHECK_THAT(note, Catch::Contains("DRAM 173 ns is not above L3 195 ns") &&
                       Catch::Contains("recalibrate"));
  set.latency[1].ns = 0.5;
  CHECK_THAT(latency_ladder_note(set), Catch::Contains("L2 0.5 ns is not above L1 1 ns"));
  set.latency = {{"DRAM", 80, 0, {}}};
  CHECK(latency_ladder_note(set).empty());
}

TEST_CASE("stream kernels compute what they claim") {
  const size_t n = 256;  // arrays must be 64-byte aligned (aligned vector loads)
  Buffer buf(6 * n * sizeof(double));
  double *a = buf.doubles(), *b = a + n, *c = b + n, *d = c + n, *dst = d + n, *z = dst + n;
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = static_cast<double>(i);
    c[i] = 2;
    d[i] = 1;
    dst[i] = -1;
    z[i] = 0;
  }
  for (StreamMix mix : kStreamMixes) REQUIRE(n % stream_kernel(mix).granule == 0);
  double* triad[4] = {a, b, c, d};
  stream_kernel(StreamMix::kTriad).run(triad, n, 3);
  for (size_t i = 0; i < n; ++i) CHECK(a[i] == 2.0 * static_cast<double>(i) + 1);
  double* copy[2] = {b, dst};
  stream_kernel(StreamMix::kCopy).run(copy, n, 1);
  CHECK(std::memcmp(dst, b, n * sizeof(double)) == 0);
  double* load[1] = {z};
  CHECK(stream_kernel(StreamMix::kLoad).run(load, n, 2) == 0);  // OR of zero bits
  const StreamKernel t = stream_kernel(StreamMix::kTriad);
  CHECK(t.explicit_bytes_per_elem() == 32);
  CHECK(t.traffic_bytes_per_elem() == 40);
}

TEST_CASE("stream kernels: every ISA variant this CPU runs computes the same") {
  const size_t n = 64;  // a multiple of every variant's granule (32 at 512 bits)
  Buffer buf(14 * n * sizeof(double));
  double *a = buf.doubles(), *b = a + n, *c = b + n, *d = c + n, *dst = d + n, *z = dst + n;
  double* eight[8];
  for (int j = 0; j < 8; ++j) eight[j] = z + (static_cast<size_t>(j) + 1) * n;
  for (StreamMix mix : kStreamMixes) {
    const std::vector<StreamKernel> ks = stream_kernel_variants(mix);
    REQUIRE_FALSE(ks.empty());
    CHECK(std::string(ks.back().isa) == "sse2");  // every x86-64 CPU has it
    CHECK(std::string(ks.front().isa) == stream_kernel(mix).isa);
    for (const StreamKernel& k : ks) {
      INFO(stream_key(mix) << " " << k.isa);
      REQUIRE(n % k.granule == 0);
      for (size_t i = 0; i < n; ++i) {
        a[i] = 0;
        b[i] = static_cast<double>(i);
        c[i] = 3;
        d[i] = 0.5;
        dst[i] = -1;
        z[i] = 0;
        for (double* e : eight) e[i] = 0;
      }
      switch (mix) {
        case StreamMix::kTriad: {
          double* arr[4] = {a, b, c, d};
          k.run(arr, n, 2);
          for (size_t i = 0; i < n; ++i) CHECK(a[i] == 3.0 * static_cast<double>(i) + 0.5);
          break;
        }
        case StreamMix::kCopy:
        case StreamMix::kNtCopy: {
          double* arr[2] = {b, dst};
          k.run(arr, n, 1);
          CHECK(std::memcmp(dst, b, n * sizeof(double)) == 0);
          break;
        }
        case StreamMix::kUpdate: {  // a[i] = 1.0 * a[i], read and written back
          double* arr[1] = {b};
          k.run(arr, n, 3);
          for (size_t i = 0; i < n; ++i) CHECK(b[i] == static_cast<double>(i));
          break;
        }
        case StreamMix::kDaxpy: {  // y[i] = 1.0 * x[i] + y[i]
          double* arr[2] = {c, b};
          k.run(arr, n, 2);
          for (size_t i = 0; i < n; ++i) CHECK(b[i] == static_cast<double>(i) + 6);
          break;
        }
        case StreamMix::kStreams: {
          CHECK(k.run(eight, n, 2) == 0);  // OR of zero bits
          eight[7][n - 1] = 1.0;           // the last vector of the last array is read too
          CHECK(k.run(eight, n, 1) > 0);
          break;
        }
        case StreamMix::kLoad: {
          double* zeros[1] = {z};
          CHECK(k.run(zeros, n, 3) == 0);  // OR of zero bits
          z[n - 1] = 1.0;                  // 0x3ff0000000000000: two non-zero bytes
          CHECK(k.run(zeros, n, 1) > 0);   // the last vector is read too
          break;
        }
      }
    }
  }
}

TEST_CASE("stream kernels: bytes per element and read shares by convention") {
  struct Row {
    StreamMix mix;
    double explicit_bytes, traffic_bytes, read_share_l1, read_share_below;
  };
  // Write-allocate only where a store goes to a line not read first.
  const Row rows[] = {{StreamMix::kLoad, 8, 8, 1, 1},
                      {StreamMix::kCopy, 16, 24, 0.5, 2.0 / 3},
                      {StreamMix::kTriad, 32, 40, 0.75, 0.8},
                      {StreamMix::kUpdate, 16, 16, 0.5, 0.5},
                      {StreamMix::kDaxpy, 24, 24, 2.0 / 3, 2.0 / 3},
                      {StreamMix::kStreams, 64, 64, 1, 1},
                      {StreamMix::kNtCopy, 16, 16, 0.5, 0.5}};
  for (const Row& r : rows) {
    INFO(stream_key(r.mix));
    const StreamKernel k = stream_kernel(r.mix);
    CHECK(k.explicit_bytes_per_elem() == r.explicit_bytes);
    CHECK(k.traffic_bytes_per_elem() == r.traffic_bytes);
    CHECK(read_share(r.mix, true) == Approx(r.read_share_l1));
    CHECK(read_share(r.mix, false) == Approx(r.read_share_below));
    StreamMix back = StreamMix::kLoad;
    REQUIRE(parse_stream_mix(stream_key(r.mix), back));
    CHECK(back == r.mix);
  }
  CHECK(bypasses_caches(StreamMix::kNtCopy));
  CHECK_FALSE(bypasses_caches(StreamMix::kCopy));
}

TEST_CASE("fp chains: one per operation and precision, FMA where the CPU has it") {
  const auto ks = fp_chain_kernels();
  REQUIRE(ks.size() >= 4);
  for (const FpChainKernel& k : ks) {
    INFO(precision_name(k.precision) << " " << fp_op_key(k.op));
    CHECK(std::isfinite(k.run(100)));
    FpOp back = FpOp::kAdd;
    REQUIRE(parse_fp_op(fp_op_key(k.op), back));
    CHECK(back == k.op);
  }
  const bool fma = __builtin_cpu_supports("fma");
  CHECK(ks.size() == (fma ? 6u : 4u));
}

TEST_CASE("flop kernels: the CPU's ISAs, FMA = 2 FLOPs, finite results") {
  const auto ks = flop_kernels();
  REQUIRE_FALSE(ks.empty());
  bool has512 = false, scalar_dp_fma = false;
  for (const FlopKernel& k : ks) {
    INFO(k.description);
    const double lane = lanes(k.precision, k.width);
    if (k.mix == FlopMix::kFma) CHECK(k.flops_per_iter == 24 * lane);
    if (k.mix == FlopMix::kAddMul) CHECK(k.flops_per_iter == 24 * lane);
    const double v = k.run(1000, 1.0);
    CHECK(std::isfinite(v));
    CHECK(v > 0);
    has512 |= k.width == Width::k512;
    scalar_dp_fma |= k.width == Width::kScalar && k.precision == Precision::kDP &&
                     k.mix == FlopMix::kFma;
  }
  CHECK(has512 == static_cast<bool>(__builtin_cpu_supports("avx512f")));
  CHECK(scalar_dp_fma == static_cast<bool>(__builtin_cpu_supports("fma")));
}

TEST_CASE("pointer chase: one cycle through every line") {
  const size_t line = 64, lines = 1000;
  Buffer buf(lines * line);
  build_chase(buf.data(), lines * line, line, 42);
  std::set<void*> seen;
  void* p = buf.data();
  for (size_t i = 0; i < lines; ++i) {
    seen.insert(p);
    p = run_chase(p, 1);
  }
  CHECK(p == buf.data());  // back at the start after exactly `lines` steps
  CHECK(seen.size() == lines);
  CHECK(run_chase(buf.data(), lines * 3) == buf.data());
  CHECK(run_add_chain(10) == 80);
}

TEST_CASE("ceilings never fall with more threads: a disturbed one takes the fewer threads'") {
  Machine m;
  CeilingSet one, two;
  one.threads = 1;
  two.threads = 2;
  one.peaks.push_back({Precision::kDP, Width::kScalar, FlopMix::kAddMul, "x86-64", 4.5, {}});
  one.peaks.push_back({Precision::kDP, Width::k256, FlopMix::kFma, "avx2", 28.5, {}});
  // A busy machine descheduled the 2-thread team for one kernel (measured
  // 0.0101 GFLOP/s against 4.5 with one thread); the other doubled.
  two.peaks.push_back({Precision::kDP, Width::kScalar, FlopMix::kAddMul, "x86-64", 0.0101, {}});
  two.peaks.push_back({Precision::kDP, Width::k256, FlopMix::kFma, "avx2", 56.0, {}});
  one.bandwidth.push_back({Boundary::kDRAM, StreamMix::kCopy, 8.3, 12.45, {}});
  two.bandwidth.push_back({Boundary::kDRAM, StreamMix::kCopy, 2.0, 3.0, {}});
  m.ceilings = {two, one};  // any order
  const std::string note = keep_ceilings_monotonic(m);
  REQUIRE(m.ceilings.size() == 2);
  REQUIRE(m.ceilings[1].threads == 2);
  const CeilingSet& t2 = m.ceilings[1];
  CHECK(t2.peak(Precision::kDP, Width::kScalar, FlopMix::kAddMul)->gflops == 4.5);
  CHECK(t2.peak(Precision::kDP, Width::k256, FlopMix::kFma)->gflops == 56.0);  // kept
  CHECK(t2.bandwidth[0].gbs == 8.3);
  CHECK(t2.bandwidth[0].traffic_gbs == 12.45);
  CHECK(m.ceilings[0].peak(Precision::kDP, Width::kScalar, FlopMix::kAddMul)->gflops == 4.5);
  CHECK_THAT(note, Catch::StartsWith("disturbed ceilings: DP scalar"));
  CHECK_THAT(note, Catch::Contains("(2 threads) 0.0101 GFLOP/s below 4.5 with 1 thread"));
  CHECK_THAT(note, Catch::Contains("DRAM copy (2 threads) 2 GB/s below 8.3 with 1 thread"));
  // Nothing to raise: no note.
  CHECK(keep_ceilings_monotonic(m).empty());
}

TEST_CASE("warm-up: runs until two successive runs agree after the minimum, or gives up") {
  using Step = WarmUp::Step;
  // A DRAM stream ramping up (fabric clocks): 14, 12, 10.5, 10.2 ms.
  WarmUp ramp(0.02, 0.2);
  CHECK(ramp.add(0.014) == Step::kMore);
  CHECK(ramp.add(0.012) == Step::kMore);
  CHECK(ramp.add(0.0105) == Step::kMore);    // 12.5 % faster than the run before
  CHECK(ramp.add(0.0102) == Step::kAgreed);  // within kSettled (3 %)
  // Two agreeing runs before the minimum: more (a chase settles only after
  // its working set went round, measure_latency).
  WarmUp early(0.05, 0.2);
  CHECK(early.add(0.01) == Step::kMore);
  CHECK(early.add(0.01) == Step::kMore);  // 20 ms < 50 ms
  CHECK(early.add(0.01) == Step::kMore);
  CHECK(early.add(0.01) == Step::kMore);
  CHECK(early.add(0.01) == Step::kAgreed);  // 50 ms, and agrees
  // Never settling: gives up at the cap.
  WarmUp drift(0, 0.05);
  CHECK(drift.add(0.02) == Step::kMore);
  CHECK(drift.add(0.016) == Step::kMore);
  CHECK(drift.add(0.013) == Step::kMore);     // 49 ms < 50
  CHECK(drift.add(0.0105) == Step::kGaveUp);  // 59.5 ms, still 19 % apart
  // A run of no length (a broken clock) gives up rather than spin.
  WarmUp broken(0.05, 1);
  CHECK(broken.add(0) == Step::kGaveUp);
}

TEST_CASE("recalibration: every figure both files hold, how far it moved, the largest") {
  Machine before;
  before.cpu = {"AuthenticAMD", 26, 2, 1, "AMD EPYC", true, true, true, true, true};
  before.logical_cpus = 2;
  CeilingSet one;
  one.threads = 1;
  one.peaks.push_back({Precision::kDP, Width::k256, FlopMix::kFma, "avx2,fma", 68.0, {}});
  one.bandwidth.push_back({Boundary::kDRAM, StreamMix::kCopy, 40.0, 60.0, {}});
  one.bandwidth.push_back({Boundary::kLLC, StreamMix::kLoad, 120.0, 120.0, {}});
  one.latency.push_back({"L3", 139.0, 583, {}});
  before.ceilings = {one};
  Machine after = before;
  CeilingSet& a = after.ceilings[0];
  a.peaks[0].gflops = 69.0;    // +1.5 %
  a.bandwidth[0].gbs = 46.0;   // +15 %
  a.bandwidth[1].gbs = 117.0;  // -2.5 %
  a.latency[0].ns = 12.5;      // -91 %
  CeilingSet two = a;          // only in the new file: not compared
  two.threads = 2;
  after.ceilings.push_back(two);
  const Recalibration r = compare_calibrations(before, after);
  REQUIRE(r.comparable);
  using Kind = FigureChange::Kind;
  CHECK(r.figures.size() == 4);
  CHECK(r.count(Kind::kBandwidth) == 2);
  CHECK(r.count(Kind::kPeak) == 1);
  CHECK(r.count(Kind::kLatency) == 1);
  CHECK(r.within_aim(Kind::kBandwidth) == 1);  // LLC -2.5 %; DRAM +15 % beyond 5 %
  CHECK(r.within_aim(Kind::kPeak) == 1);
  CHECK(r.within_aim(Kind::kLatency) == 0);
  const FigureChange* bw = r.largest(Kind::kBandwidth);
  REQUIRE(bw != nullptr);
  CHECK(bw->figure == "DRAM copy (1 thread)");
  CHECK(bw->unit == "GB/s");
  CHECK(bw->change() == Approx(0.15));
  CHECK(r.largest(Kind::kLatency)->change() == Approx(12.5 / 139.0 - 1));
  CHECK(r.largest(Kind::kPeak)->figure == "peak DP 256 fma (1 thread)");
  // Another CPU or CPU count: not compared, and why.
  Machine other = before;
  other.cpu.model_name = "Intel Xeon";
  const Recalibration o = compare_calibrations(other, after);
  CHECK_FALSE(o.comparable);
  CHECK(o.figures.empty());
  CHECK_THAT(o.why_not, Catch::Contains("another CPU (Intel Xeon)"));
  other = before;
  other.logical_cpus = 4;
  CHECK_THAT(compare_calibrations(other, after).why_not, Catch::Contains("4 logical CPUs, not 2"));
}
