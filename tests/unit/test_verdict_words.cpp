// The words of verdicts (report/verdict_words): what a kind plus its numbers
// reads as. The verdicts themselves (which kind, which numbers) are tested in
// test_classify and test_memory_view; these pin the sentences.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "report/verdict_words.h"

using namespace rprof;

TEST_CASE("verdict words: memory-bound at a boundary, its direction at and below the roof") {
  Verdict v;
  v.bound = Bound::kMemory;
  v.boundary = Boundary::kDRAM;
  v.fraction = 0.8;
  v.at_roof = true;
  v.kind = VerdictKind::kMemory;
  MemoryEvidence e;
  e.boundary = Boundary::kDRAM;
  e.intensity = 0.5;
  e.ridge = 5;
  e.gflops = 8;
  e.bound = 10;
  e.bandwidth_gbs = 20;
  e.source = RoofSource{StreamMix::kTriad, SharedText("4 KiB"), true, 0.25};
  v.numbers = e;
  CHECK(verdict_summary(v) ==
        "memory-bound at DRAM (intensity 0.5 FLOP/byte < ridge 5): 80% of the bandwidth roof "
        "(8 of 10 GFLOP/s; 20 GB/s x 0.5 FLOP/byte; triad kernel's read rate, 4 KiB pages / "
        "(1 - 25% written))");
  CHECK(verdict_direction(v) ==
        "at the bandwidth roof: move fewer bytes across DRAM: fuse loops over the same data, "
        "block for the cache, use smaller types; more FLOP/s alone will not help");
  v.at_roof = false;
  CHECK(verdict_direction(v).rfind("move fewer bytes across DRAM", 0) == 0);
  // A time known only from above: "at least", and the fraction unknown.
  e.lower_bound = true;
  e.source = RoofSource{};
  v.numbers = e;
  v.fraction = 0.004;
  CHECK(verdict_summary(v) ==
        "memory-bound at DRAM (intensity 0.5 FLOP/byte < ridge 5): at least 0.4% of the "
        "bandwidth roof (>= 8 of 10 GFLOP/s; 20 GB/s x 0.5 FLOP/byte; load kernel)");
  CHECK(verdict_direction(v) ==
        "how far below its roof it runs is unknown (its time is only bounded): run more work "
        "in it for a measured rate; its intensity says bytes across DRAM limit it");
  // Counted at L1 only: the summary names what was not measured.
  v.unmeasured_below_l1 = true;
  CHECK_THAT(verdict_summary(v),
             Catch::EndsWith("; L2, LLC and DRAM were not measured (traffic counted at L1 only) "
                             "and may be what limits it: count them (the sim backend, or inst "
                             "with --sample)"));
}

TEST_CASE("verdict words: below every roof ends with the likely limit, or says none was named") {
  Verdict v;
  v.bound = Bound::kBelowRoofs;
  v.kind = VerdictKind::kBelowRoofs;
  BelowRoofsEvidence e;
  e.fraction = 0.12;
  e.threshold = 0.5;
  e.gflops = 12;
  e.bound = 100;
  e.compute_limited = true;
  e.roof = {Precision::kDP, Width::k256, FlopMix::kFma, 100};
  e.boundary = Boundary::kDRAM;
  e.intensity = 50;
  e.ridge = 5;
  v.numbers = e;
  const std::string head =
      "below every roof: 12 GFLOP/s is 12% of the lowest bound 100 GFLOP/s (the DP 256-bit fma "
      "roof; intensity 50 FLOP/byte at DRAM, ridge 5), under 50% at every boundary; likely "
      "limit: ";
  CHECK(verdict_summary(v) ==
        head + "the counts name no cause (branches, synchronization, the front end?)");
  CHECK(likely_limit_text(v.likely_limit).empty());
  v.likely_limit.kind = LimitKind::kLowVectorization;
  v.likely_limit.vector_share = 0;
  v.likely_limit.low_vector_share = 0.5;
  CHECK(likely_limit_text(v.likely_limit) ==
        "low vectorization: 0% of FP instructions packed (< 50%)");
  CHECK(verdict_summary(v) == head + likely_limit_text(v.likely_limit));
  CHECK_THAT(verdict_direction(v),
             Catch::StartsWith("no roof limits it: work on the likely limit"));
  // The bandwidth view's head.
  e = {};
  e.bandwidth_view = true;
  e.fraction = 0.028;
  e.threshold = 0.1;
  e.gbs = 0.56;
  e.roof_gbs = 20;
  e.boundary = Boundary::kDRAM;
  v.numbers = e;
  v.likely_limit = {};
  v.likely_limit.kind = LimitKind::kNonFp;
  CHECK(verdict_summary(v) ==
        "below every roof (no FLOP roofline: bandwidth view): at most 3% of a bandwidth roof "
        "(0.56 GB/s of 20 GB/s at DRAM), under 10%; likely limit: not memory and not floating "
        "point: no FLOPs and far below every bandwidth roof, so integer, branch or other non-FP "
        "work sets its time (no roof measures it)");
}

TEST_CASE("verdict words: waiting, with and without a run delay") {
  Verdict v;
  v.bound = Bound::kWaiting;
  v.kind = VerdictKind::kWaiting;
  WaitingEvidence e;
  e.cpu_share = 0.0005;
  e.cpu_s = 0.01;
  e.wall_s = 20;
  e.threads = 1;
  e.runnable = 0.0005;
  e.max_cpu_share = 0.5;
  v.numbers = e;
  CHECK(verdict_summary(v) ==
        "waiting: its threads were on a CPU for 0.05% of their time (CPU/wall 0.0005 = 0.01 s "
        "CPU / 20 s wall, 1 thread; below 0.5): sleep, I/O, locks, blocking communication or "
        "more runnable threads than free CPUs (no run delay was measured to tell them apart) "
        "set its time, not a roof");
  e.has_run_delay = true;
  e.cpu_share = 0.2;
  e.cpu_s = 4;
  e.run_delay_share = 0.2;
  e.run_delay_s = 4;
  e.runnable = 0.4;
  v.numbers = e;
  CHECK(verdict_summary(v) ==
        "waiting: its threads were off the CPU by their own choice for 60% of their time (12 s "
        "of 20 s wall, 1 thread): on a CPU 20% (4 s), runnable but not running 20% (4 s run "
        "delay); runnable 0.4 of the time, below 0.5: sleep, I/O, locks or blocking "
        "communication set its time, not a roof");
  CHECK_THAT(verdict_direction(v), Catch::StartsWith("shorten or overlap the wait"));
  // Just below the threshold, the value is printed as it compared: below it
  // as printed, never "50%" or "0.5" beside "below 0.5".
  e.has_run_delay = false;
  e.cpu_share = 0.4996;
  e.cpu_s = 9.99;
  e.runnable = 0.4996;
  v.numbers = e;
  CHECK_THAT(verdict_summary(v),
             Catch::StartsWith("waiting: its threads were on a CPU for 49.96% of their time "
                               "(CPU/wall 0.4996 = 9.99 s CPU / 20 s wall, 1 thread; below 0.5)"));
  e.has_run_delay = true;
  e.cpu_share = 0.3;
  e.run_delay_share = 0.1996;
  e.runnable = 0.4996;
  v.numbers = e;
  CHECK_THAT(verdict_summary(v), Catch::Contains("runnable 0.4996 of the time, below 0.5"));
}

TEST_CASE("verdict words: uncertain times and the no-verdict kind") {
  Verdict v;
  CHECK(verdict_summary(v).empty());
  CHECK(verdict_direction(v).empty());
  v.kind = VerdictKind::kUncertainSamples;
  UncertainEvidence e;
  e.samples = 4;
  e.relative_error = 0.5;
  e.min_samples = 100;
  v.numbers = e;
  const std::string few =
      "uncertain: 4 cpu-clock samples (±50%, below 100): no bound claimed; its counts and "
      "intensity are exact";
  CHECK(verdict_summary(v) == few);
  CHECK(verdict_direction(v).empty());
  CHECK(flag_reason(VerdictFlag(FlagKind::kTooShortSamples, e)) == few);
  v.kind = VerdictKind::kUncertainNoSample;
  e = {};
  e.max_time_s = 0.002;
  e.min_gflops = 1;
  v.numbers = e;
  CHECK(verdict_summary(v) ==
        "uncertain: no cpu-clock sample hit it (time < 0.002 s, >= 1 GFLOP/s): no bound "
        "claimed; its counts and intensity are exact");
  v.kind = VerdictKind::kNoRoofline;
  v.numbers = NoRooflineEvidence{};
  CHECK(verdict_summary(v) == "no roofline: no FLOP counts or machine ceilings");
  CHECK_THAT(verdict_direction(v), Catch::Contains("--backend=sim"));
}

TEST_CASE("flag words: busy machine, latency from each view, traffic by cause") {
  const VerdictFlag busy(FlagKind::kBusyMachine, BusyEvidence{0.5, 10, 20, 1, 0.1, 10, 20});
  CHECK(std::string(busy.name()) == "busy-machine");
  CHECK(flag_reason(busy) ==
        "the machine was busy: 50% of the time runnable, not running (10 s run delay of 20 s "
        "wall, 1 thread; at or above 10%): its rates are read against its running time, 10 s "
        "of its 20 s (the slowest thread's wall minus run delay)");
  // A tiny fraction of the bandwidth roof keeps two digits from the bandwidth
  // view, a whole percent from the FLOP roofline's.
  const LatencyFlagEvidence lat{Boundary::kDRAM, 0.004, 1.2, 1.2e7, 100, 1, 2, 0.25, 2.5};
  const std::string tail =
      " of the DRAM bandwidth roof with 1.2 line misses in flight per thread (Little's law: "
      "1.2e+07 misses x 100 ns / 1 s / 2 threads; between 0.25, misses that explain the time, "
      "and 2.5): waiting on one miss at a time";
  CHECK(flag_reason(VerdictFlag(FlagKind::kLatencyBoundView, lat)) == "0.4%" + tail);
  CHECK(flag_reason(VerdictFlag(FlagKind::kLatencyBound, lat)) == "0%" + tail);
  CHECK(flag_direction(VerdictFlag(FlagKind::kLatencyBound, lat)) !=
        flag_direction(VerdictFlag(FlagKind::kLatencyBoundView, lat)));
  const TrafficFlagEvidence t{Boundary::kDRAM, 2000, 1000, 2, false};
  CHECK(flag_reason(VerdictFlag(FlagKind::kTrafficWriteAllocate, t)) ==
        "2e+03 bytes measured at DRAM vs 1e+03 declared: 2.00x the ideal");
  CHECK_THAT(flag_direction(VerdictFlag(FlagKind::kTrafficWriteAllocate, t)),
             Catch::StartsWith("likely write-allocate"));
  CHECK_THAT(flag_direction(VerdictFlag(FlagKind::kTrafficPoorReuse, t)),
             Catch::StartsWith("likely poor reuse"));
  const VectorFlagEvidence w{1.0, 0.5, Width::k256, Width::k512};
  CHECK(flag_reason(VerdictFlag(FlagKind::kLowVectorWidth, w)) ==
        "widest FP instructions are 256-bit; this CPU offers 512-bit");
}

TEST_CASE("flag words: ranks, not threads, where the threads are ranks") {
  // Two ranks of one thread: "ranks"; four threads of two ranks: both.
  const VerdictFlag ranks(FlagKind::kRankImbalance, ImbalanceEvidence{0.6, 1.0, 2, 0.4, 2});
  CHECK(flag_reason(ranks) ==
        "rank times range 0.6-1 s over 2 ranks (processes, one thread each): the fastest waits "
        "40% of the slowest's time");
  const VerdictFlag mixed(FlagKind::kRankImbalance, ImbalanceEvidence{0.6, 1.0, 4, 0.4, 2});
  CHECK(flag_reason(mixed) ==
        "thread times range 0.6-1 s over 4 threads of 2 ranks (processes): the fastest waits 40% "
        "of the slowest's time");
  CHECK_THAT(flag_direction(ranks), Catch::Contains("between the ranks"));
  CHECK(flag_reason(VerdictFlag(FlagKind::kOwnCache, OwnCacheEvidence{4})) ==
        "4 processes ran it on one host, each simulated with caches of its own, the LLC "
        "included, where on the machine they share one");
}

TEST_CASE("flag words: every flag kind has a reason and a direction, under its flag's name") {
  const std::vector<VerdictFlag> flags = {
      {FlagKind::kLatencyBound, LatencyFlagEvidence{}},
      {FlagKind::kLatencyBoundView, LatencyFlagEvidence{}},
      {FlagKind::kLowVectorShare, VectorFlagEvidence{}},
      {FlagKind::kLowVectorWidth, VectorFlagEvidence{}},
      {FlagKind::kTrafficWriteAllocate, TrafficFlagEvidence{}},
      {FlagKind::kTrafficPoorReuse, TrafficFlagEvidence{}},
      {FlagKind::kAboveBandwidthRoof, AboveRoofEvidence{}},
      {FlagKind::kAboveComputeRoof, AboveRoofEvidence{}},
      {FlagKind::kTooShortSamples, UncertainEvidence{}},
      {FlagKind::kTooShortNoSample, NoSampleFlagEvidence{}},
      {FlagKind::kTooShortSelfTime, ShortFlagEvidence{}},
      {FlagKind::kTooShortMarkers, ShortFlagEvidence{}},
      {FlagKind::kLoadImbalance, ImbalanceEvidence{}},
      {FlagKind::kUnderutilized, UnderutilizedEvidence{}},
      {FlagKind::kBusyMachine, BusyEvidence{}},
      {FlagKind::kImplausibleLatency, LatencyFlagEvidence{}},
      {FlagKind::kRankImbalance, ImbalanceEvidence{}},
      {FlagKind::kOwnCache, OwnCacheEvidence{}},
  };
  std::set<std::string> reasons;
  for (const VerdictFlag& f : flags) {
    INFO(flag_kind_key(f.kind));
    CHECK(f.name() == std::string(flag_key(flag_of(f.kind))));
    CHECK_FALSE(flag_reason(f).empty());
    CHECK_FALSE(flag_direction(f).empty());
    reasons.insert(flag_reason(f) + " -> " + flag_direction(f));
  }
  CHECK(reasons.size() == flags.size());  // one sentence form per kind
}
