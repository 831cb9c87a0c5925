// The verdicts each recorded machine's geometry implies (tests/fixtures/
// machines: Zen 4 desktop, Skylake-SP, Sapphire Rapids, a cloud VM whose
// sysfs shows its host's 480 MiB L3 but whose effective LLC is 24 MiB).
//
// Each run reads the recorded machine through RPROF_SYSROOT and its machine
// file, so the simulated caches are that machine's (as reported, the VM's
// LLC at its machine file's effective size), and every working set below is derived from them: a
// triad 3x the LLC streams from DRAM, one between L2 and LLC is bound at the
// LLC, one in half the L2 at the L2; a pointer chase 4x the LLC is
// latency-bound at DRAM; a store-only stream 3x the LLC moves twice its
// declared bytes (write-allocate). Counts are the simulator's (exact for the
// geometry); times are this host's native run, against the recorded
// ceilings, so only what does not depend on this host's speed is asserted,
// except the chase, which is also sized past this host's own largest cache.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

struct Geometry {
  uint64_t l1 = 0, l2 = 0, llc = 0;  // the simulated sizes
};

Geometry geometry(const std::string& machine) {
  const json m = load_json(machine_file(machine));
  Geometry g;
  int last = 0;
  for (const json& c : m["caches"]) last = std::max(last, c["level"].get<int>());
  for (const json& c : m["caches"]) {
    // The simulated size: the reported one unless the machine file's
    // effective size differs by more than 4x (kCacheContradictionFactor).
    const uint64_t eff = c["effective_bytes"].get<uint64_t>();
    const uint64_t rep = c["reported_bytes"].get<uint64_t>();
    const uint64_t bytes = eff > 0 && (rep > 4 * eff || eff > 4 * rep) ? eff : rep;
    const int level = c["level"].get<int>();
    if (level == 1) g.l1 = bytes;
    if (level == 2) g.l2 = bytes;
    if (level == last) g.llc = bytes;
  }
  REQUIRE(g.l1 > 0);
  REQUIRE(g.l2 > g.l1);
  REQUIRE(g.llc > g.l2);
  return g;
}

struct Run {
  json region;
  json verdict;
  std::string notes;
};

Run run_on(const std::string& machine, const std::vector<std::string>& app,
           const std::string& region) {
  std::vector<std::string> args = {"--backend=sim", "-q"};
  args.insert(args.end(), app.begin(), app.end());
  const RunResult r = run_rprof_on_cpu(args, region, machine_env(machine));
  INFO(machine << ": " << r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  Run out;
  out.region = find_region(p, region);
  REQUIRE(out.region.is_object());
  REQUIRE(out.region.contains("verdict"));
  out.verdict = out.region["verdict"];
  for (const json& n : p["notes"]) out.notes += n.get<std::string>() + "\n";
  return out;
}

bool has_flag(const json& v, const std::string& name) {
  for (const json& f : v["flags"]) {
    if (f["name"] == name) return true;
  }
  return false;
}

double counter(const json& region, const std::string& name) {
  const json& c = region["counters"];
  return c.contains(name) ? c[name].get<double>() : 0.0;
}

std::string n_of(uint64_t n) { return std::to_string(n); }

// Line misses in flight per thread at DRAM (the memory view, Little's law).
double dram_in_flight(const json& region) {
  for (const json& b : region["memory"]["boundaries"]) {
    if (b["boundary"] == "dram" && b.contains("misses_in_flight_per_thread")) {
      return b["misses_in_flight_per_thread"].get<double>();
    }
  }
  FAIL("no misses in flight at DRAM in " << region["memory"].dump());
  return 0;
}

// A triad whose counts put its lowest bound at `boundary` (the recorded
// roofs and the simulated bytes: no time involved) is memory-bound there.
// Its rate is this host's: a host several times slower than the recorded
// machine (a loaded 2-core VM) takes it under a tenth of that roof, where
// the rule calls it below every roof, or latency-bound there when its line
// misses in flight fall in Little's law's band; either is accepted then.
void check_bound_at(const Run& r, const std::string& boundary) {
  CHECK(r.region["roofline"]["limited_by"] == "memory");
  CHECK(r.region["roofline"]["limiting_boundary"] == boundary);
  const double fraction = r.verdict["fraction_of_roof"].get<double>();
  if (fraction < 0.10 &&
      (r.verdict["bound"] == "below-roofs" || has_flag(r.verdict, "latency-bound"))) {
    WARN("this host ran the triad at " << 100 * fraction << "% of the recorded " << boundary
                                       << " roof: " << r.verdict["summary"]);
    return;
  }
  CHECK(r.verdict["bound"] == "memory");
  CHECK(r.verdict["boundary"] == boundary);
}

void check_machine(const std::string& machine) {
#if defined(RPROF_TEST_SANITIZED)
  skip_test("samples built with sanitizers cannot run under Valgrind (the sim backend)");
#endif
  // The triads are the AVX2+FMA build: scalar code at L2 is bound by its
  // instruction rate on these cores, not by the L2 (the first seed's point).
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    skip_test("this CPU runs no AVX2+FMA code (the triad_avx2 sample)");
  }
  if (!std::ifstream(sample("triad_avx2"))) skip_test("triad_avx2 not built (no -mavx2 -mfma)");
  const Geometry g = geometry(machine);
  INFO("machine " << machine << ": L1 " << g.l1 << " B, L2 " << g.l2 << " B, LLC " << g.llc
                  << " B (effective)");

  // Triad a = b + s*c, 3 arrays of 8-byte doubles: footprint 24n bytes.
  const uint64_t n_dram = 3 * g.llc / 24;
  const Run dram = run_on(machine, {sample("triad_avx2"), n_of(n_dram), "2"}, "triad");
  INFO(dram.verdict.dump());
  // The rate is this host's, the roof the recorded machine's: under
  // below_bandwidth_roofs (10%) of it the rule calls it below every roof (a
  // 2-core VM streams one thread at about 7 GB/s); otherwise memory-bound.
  // A stream keeps many misses in flight (bandwidth x latency / 64 B: some
  // 40 at the recorded roofs); a host that streams several times slower
  // than the recorded machine (a loaded 2-core VM: 1.5 GB/s against a
  // recorded 24 GB/s) puts it in the latency band of Little's law (0.25 to
  // 2.5 misses in flight per thread, the recorded latency against this
  // host's time), and the rule then calls it latency-bound at DRAM. The
  // verdict is checked against the rule at the numbers measured.
  const double dram_fraction = dram.verdict["fraction_of_roof"].get<double>();
  const double in_flight = dram_in_flight(dram.region);
  const bool in_band = in_flight >= 0.25 && in_flight <= 2.5 && dram_fraction < 0.5;
  CHECK(has_flag(dram.verdict, "latency-bound") == in_band);
  if (in_band) {
    WARN(machine << ": this host streamed at " << 100 * dram_fraction
                 << "% of the recorded DRAM roof, " << in_flight
                 << " misses in flight: latency-bound by the rule");
    CHECK(dram.verdict["bound"] == "memory");
    CHECK(dram.verdict["boundary"] == "dram");
  } else if (dram_fraction < 0.10) {
    std::printf("note: %s: this host reaches under 10%% of the recorded DRAM roof: "
                "expecting below-roofs\n", machine.c_str());
    CHECK(dram.verdict["bound"] == "below-roofs");
  } else {
    CHECK(dram.verdict["bound"] == "memory");
    CHECK(dram.verdict["boundary"] == "dram");
  }
  // Every sweep streams from DRAM: at least the 24n bytes of the arrays read
  // or written per call (write-allocate adds 8n), within 10%.
  CHECK(counter(dram.region, "bytes.dram.read") + counter(dram.region, "bytes.dram.write") >=
        0.9 * 2 * 24 * static_cast<double>(n_dram));
  // The simulated caches are the recorded machine's as reported; only the
  // cloud VM's LLC (sysfs: 480 MiB) takes the machine file's effective 24 MiB.
  const bool replaced =
      dram.notes.find("effective size from the machine file " + machine_file(machine)) !=
      std::string::npos;
  CHECK(replaced == (machine == "cloud-vm-480m"));
  CHECK(dram.notes.find("RPROF_SYSROOT=" + machine_root(machine)) != std::string::npos);

  // Between L2 and LLC (their geometric mean), swept 10 times: the LLC.
  const uint64_t fp_llc = static_cast<uint64_t>(std::sqrt(double(g.l2) * double(g.llc)));
  const Run llc = run_on(machine, {sample("triad_avx2"), n_of(fp_llc / 24), "10"}, "triad");
  INFO(llc.verdict.dump());
  check_bound_at(llc, "llc");

  // Half the L2, swept 40 times: the L2.
  const Run l2 = run_on(machine, {sample("triad_avx2"), n_of(g.l2 / 2 / 24), "40"}, "triad");
  INFO(l2.verdict.dump());
  check_bound_at(l2, "l2");

  // A pointer chase over 4x the LLC (and 4x this host's largest cache, so
  // the native run that times it waits on DRAM too): one miss at a time.
  const uint64_t chase_bytes = 4 * std::max(g.llc, host_largest_cache());
  const Run chase = run_on(machine, {sample("chase"), n_of(chase_bytes / 64), "200000"}, "chase");
  INFO(chase.verdict.dump());
  // The native run's time is this host's; the verdict holds it against the
  // recorded machine's DRAM latency (Little's law, misses in flight between
  // 0.25 and 2.5). Where a miss costs this host several times that latency
  // (a VM: nested page walks over a working set far beyond the TLB's reach;
  // measured here: 280 ns against the recorded 78 ns, 0.27 misses in flight
  // in one run and 0.21 in the next), the recorded latency explains under a
  // quarter of the time, and the verdict is below every roof with latency
  // named as the likely limit: the same conclusion from the band's other
  // side. Either is accepted; any other verdict fails.
  if (chase.verdict["bound"] == "below-roofs") {
    WARN(machine << ": this host's DRAM misses cost far more than the recorded machine's "
                    "latency: the chase is below every roof, latency named as its limit");
    REQUIRE(chase.verdict["likely_limit"].is_string());
    // Latency named: lines in flight against the latency, or loads missing
    // the caches (latency/irregular access).
    const json& limit = chase.verdict["numbers"]["likely_limit"];
    CHECK((limit["kind"] == "latency" || limit["kind"] == "irregular" ||
           limit["kind"] == "irregular-no-flops"));
    CHECK_FALSE(has_flag(chase.verdict, "latency-bound"));
  } else {
    CHECK(chase.verdict["bound"] == "memory");
    CHECK(chase.verdict["boundary"] == "dram");
    REQUIRE(has_flag(chase.verdict, "latency-bound"));
    for (const json& f : chase.verdict["flags"]) {
      if (f["name"] == "latency-bound") {
        // Little's law's numbers: misses in flight from misses x latency / time.
        CHECK(f["numbers"]["in_flight"].get<double>() > 0);
        CHECK(f["numbers"]["line_misses"].get<double>() > 0);
        CHECK(f["numbers"]["latency_ns"].get<double>() > 0);
      }
    }
  }
  // The stream gets a far larger share of its roof than the chase: on an
  // idle host about bandwidth x latency / 64 B (some 30x); a margin of 4x
  // for a shared host where the stream suffers more from other processes.
  // Only where this host streamed at a tenth of the roof or more, out of the
  // latency band: a loaded host (another test on the other core) slows the
  // stream far more than the chase (measured: 4.3% against 1.1%).
  if (!in_band && dram_fraction >= 0.10) {
    CHECK(dram_fraction > 4 * chase.verdict["fraction_of_roof"].get<double>());
  }

  // Store-only stream 3x the LLC: each stored line is read first
  // (write-allocate) and written back: 2x the declared 8 bytes per element.
  const Run store = run_on(machine, {sample("store_stream"), n_of(3 * g.llc / 8), "2"}, "store");
  INFO(store.verdict.dump());
  REQUIRE(has_flag(store.verdict, "traffic-above-ideal"));
  for (const json& f : store.verdict["flags"]) {
    if (f["name"] != "traffic-above-ideal") continue;
    CHECK(f["kind"] == "traffic-write-allocate");
    CHECK(f["numbers"]["ratio"].get<double>() == Approx(2.0).epsilon(0.1));
  }
}

}  // namespace

TEST_CASE("recorded machine zen4-desktop (L2 1 MiB and LLC 32 MiB): verdicts from its geometry") {
  check_machine("zen4-desktop");
}

TEST_CASE("recorded machine skylake-sp (L2 1 MiB and LLC 27.5 MiB 11-way): verdicts from its geometry") {
  check_machine("skylake-sp");
}

TEST_CASE("recorded machine sapphire-rapids (L2 2 MiB and LLC 105 MiB): verdicts from its geometry") {
  check_machine("sapphire-rapids");
}

TEST_CASE("recorded machine cloud-vm-480m (sysfs LLC 480 MiB but 24 MiB effective): verdicts from its geometry") {
  check_machine("cloud-vm-480m");
}
