// The memory view's verdicts for code without FLOPs (issue 13), counted by
// the sim backend on the recorded default machine (its reported cache sizes,
// which its machine file does not contradict, size every working set; times are this host's
// native run against the recorded ceilings). Counts are asserted from the
// simulator; of the timing only what does not depend on this host's speed:
// a dependent chase is latency-bound, 8 interleaved chains keep several
// times as many misses in flight, streams are memory-bound and not
// latency-bound. Chases are sized past this host's own largest cache too, so
// the native run that times them waits on DRAM.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

// The recorded machine's simulated LLC (bytes).
uint64_t llc_bytes() {
  const json m = load_json(machine_file(default_machine()));
  int last = 0;
  uint64_t llc = 0;
  for (const json& c : m["caches"]) last = std::max(last, c["level"].get<int>());
  for (const json& c : m["caches"]) {
    if (c["level"].get<int>() != last) continue;
    // Simulated as reported unless the effective size differs by more than 4x.
    const uint64_t eff = c["effective_bytes"].get<uint64_t>();
    const uint64_t rep = c["reported_bytes"].get<uint64_t>();
    llc = eff > 0 && (rep > 4 * eff || eff > 4 * rep) ? eff : rep;
  }
  REQUIRE(llc > 0);
  return llc;
}

json region_of(const std::vector<std::string>& app, const std::string& name,
               std::string* dir = nullptr) {
  std::vector<std::string> args = {"--backend=sim", "-q"};
  args.insert(args.end(), app.begin(), app.end());
  const RunResult r = run_rprof_on_cpu(args, name);
  INFO(r.err);
  REQUIRE(r.status == 0);
  if (dir != nullptr) *dir = r.dir;
  const json reg = find_region(load_json(r.dir + "/profile.json"), name);
  REQUIRE(reg.is_object());
  INFO(reg.dump(2));
  REQUIRE(reg.contains("verdict"));
  REQUIRE(reg.contains("memory"));
  REQUIRE(reg["memory"]["available"] == true);
  CHECK_FALSE((reg.contains("roofline") && reg["roofline"]["available"] == true));
  return reg;
}

bool has_flag(const json& v, const std::string& name) {
  for (const json& f : v["flags"]) {
    if (f["name"] == name) return true;
  }
  return false;
}

const json& boundary(const json& reg, const std::string& b) {
  for (const json& x : reg["memory"]["boundaries"]) {
    if (x["boundary"] == b) return x;
  }
  FAIL("no boundary " << b << " in " << reg["memory"].dump());
  throw;
}

double counter(const json& reg, const std::string& name) {
  const json& c = reg["counters"];
  return c.contains(name) ? c[name].get<double>() : 0.0;
}

std::string n_of(uint64_t n) { return std::to_string(n); }

}  // namespace

TEST_CASE("integer pointer chase: latency-bound at DRAM, 8 independent chains keep several times more misses in flight") {
  const uint64_t nodes = 4 * std::max(llc_bytes(), host_largest_cache()) / 64;
  const uint64_t steps = 200000;
  const json chase = region_of({sample("chase_int"), n_of(nodes), n_of(steps)}, "chase_int");
  const json& v = chase["verdict"];
  INFO(v.dump());
  if (v["bound"] == "below-roofs") {
    // The recorded machine's DRAM latency against this host's time: a host
    // whose misses cost more (page walks, a busy or virtual machine) puts
    // the chase under the band's 0.25 misses in flight (measured here:
    // 0.27-0.33). Then it is below every roof with the misses named.
    WARN("this host's DRAM misses cost more than the recorded machine's latency: the chase "
         "is below every roof, latency named as its limit");
    REQUIRE(v["likely_limit"].is_string());
    CHECK(v["numbers"]["likely_limit"]["kind"] == "irregular-no-flops");
  } else {
    CHECK(v["bound"] == "memory");
    CHECK(v["boundary"] == "dram");
    CHECK(has_flag(v, "latency-bound"));
    CHECK(v["kind"] == "latency-view");
    CHECK(v["numbers"]["boundary"] == "dram");
  }
  // No FLOPs; two 8-byte loads per step (value, next; the markers add at
  // most a few), and almost every step misses one 64-byte line (the cycle is
  // 4x the LLC).
  CHECK(counter(chase, "bytes.l1.read") >= 16 * double(steps));
  CHECK(counter(chase, "bytes.l1.read") <= 16 * double(steps) + 64);
  const json& dram = boundary(chase, "dram");
  CHECK(counter(chase, "bytes.dram.read") >= 0.7 * 64 * double(steps));
  CHECK(counter(chase, "bytes.dram.read") <= 1.1 * 64 * double(steps));
  CHECK(dram["misses_in_flight_per_thread"].get<double>() <= 2.5);
  CHECK(dram["fraction_of_roof"].get<double>() < 0.5);

  // The same nodes and steps as 8 interleaved chains: the same bytes, more misses at once.
  const json chains =
      region_of({sample("chase_chains8"), n_of(nodes), n_of(steps)}, "chains");
  const json& cd = boundary(chains, "dram");
  INFO("chase " << dram.dump() << "\nchains " << cd.dump());
  CHECK(counter(chains, "bytes.dram.read") >= 0.7 * 64 * double(steps));
  CHECK(counter(chains, "bytes.dram.read") <= 1.1 * 64 * double(steps));
  CHECK(cd["misses_in_flight_per_thread"].get<double>() >=
        2 * dram["misses_in_flight_per_thread"].get<double>());
  CHECK(cd["fraction_of_roof"].get<double>() >= 2 * dram["fraction_of_roof"].get<double>());
}

TEST_CASE("integer streaming sum: memory-bound at DRAM, not latency-bound") {
  const uint64_t n = 3 * llc_bytes() / 8;
  std::string dir;
  const json s = region_of({sample("stream_int"), n_of(n), "2"}, "stream_int", &dir);
  const json& v = s["verdict"];
  INFO(v.dump());
  // The rate is this host's, the roof the recorded machine's: under
  // below_bandwidth_roofs (10%) of it the rule calls the region below every
  // roof (a 2-core VM streams one thread at about 7 GB/s against the
  // recorded 70 GB/s); otherwise memory-bound at DRAM. A stream keeps many
  // misses in flight; a host streaming several times slower than the
  // recorded machine (a loaded VM) puts it in Little's law's latency band
  // (0.25 to 2.5 per thread), where the rule calls it latency-bound: the
  // verdict is checked against the rule at the numbers measured.
  const json& dram = boundary(s, "dram");
  const double fraction = dram["fraction_of_roof"].get<double>();
  const double in_flight = dram["misses_in_flight_per_thread"].get<double>();
  const bool in_band = in_flight >= 0.25 && in_flight <= 2.5 && fraction < 0.5;
  const bool slow_host = fraction < 0.10;
  CHECK(has_flag(v, "latency-bound") == in_band);
  if (in_band) {
    WARN("this host streamed at " << 100 * fraction << "% of the recorded DRAM roof, " << in_flight
                                  << " misses in flight: latency-bound by the rule");
    CHECK(v["bound"] == "memory");
    CHECK(v["boundary"] == "dram");
  } else if (slow_host) {
    std::printf("note: this host reaches under 10%% of the recorded DRAM roof: "
                "expecting below-roofs\n");
    CHECK(v["bound"] == "below-roofs");
  } else {
    CHECK(v["bound"] == "memory");
    CHECK(v["boundary"] == "dram");
    CHECK((v["kind"] == "memory" || v["kind"] == "memory-view"));
    CHECK(v["numbers"]["boundary"] == "dram");
  }
  // 8 bytes per element and pass are loaded, and cross DRAM: the array is
  // 3x the LLC, so with LRU every line of every pass misses.
  CHECK(counter(s, "bytes.l1.read") == 2 * 8 * double(n));
  CHECK(counter(s, "bytes.dram.read") == 2 * 8 * double(n));

  // Text, CSV and the bandwidth chart carry the view too.
  const std::string text = read_text(dir + "/report.txt");
  CHECK_THAT(text, Catch::Contains("Memory (GB/s with GB = 1e9 bytes"));
  if (in_band) {
    CHECK_THAT(text, Catch::Contains("stream_int: latency-bound at DRAM") ||
                         Catch::Contains("stream_int: memory-bound at DRAM"));
  } else {
    CHECK_THAT(text, Catch::Contains(slow_host ? "stream_int: below every roof"
                                               : "stream_int: memory-bound at DRAM"));
  }
  const RunResult csv = run_command({RPROF_BIN, "report", "--format", "csv", dir});
  REQUIRE(csv.status == 0);
  CHECK_THAT(csv.out, Catch::Contains(",bw_l1_gbs,bw_l1_fraction_of_roof,"));
  CHECK_THAT(csv.out, Catch::Contains(",memory_limiting_boundary,misses_in_flight_per_thread\n"));
  CHECK_THAT(read_text(dir + "/bandwidth.svg"),
             Catch::Contains("data-region=\"stream_int\" data-boundary=\"dram\""));
}

TEST_CASE("memcpy: memory-bound at DRAM, not latency-bound") {
  const uint64_t bytes = 2 * llc_bytes();
  const json s = region_of({sample("memcpy"), n_of(bytes), "2"}, "memcpy");
  const json& v = s["verdict"];
  CHECK(v["bound"] == "memory");
  CHECK(v["boundary"] == "dram");
  CHECK_FALSE(has_flag(v, "latency-bound"));
  // Each pass reads the source and writes the destination across DRAM.
  CHECK(counter(s, "bytes.dram.read") >= 0.9 * 2 * double(bytes));
  CHECK(counter(s, "bytes.dram.write") >= 0.9 * 2 * double(bytes));
}
