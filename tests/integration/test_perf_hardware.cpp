// With a PMU: triad's FLOPs from hardware counters equal 2 per element
// (a[i] = b[i] + s*c[i]: one multiply and one add, FMA = 2), and traffic is
// counted at L2. Skips, with the reason, where no PMU exists.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "hwcounters/hw_metrics.h"
#include "hwcounters/perf_probe.h"
#include "integration/harness.h"

using namespace rprof::test;

TEST_CASE("perf on real hardware: triad FLOPs per region") {
  const rprof::HardwareProbe probe = rprof::probe_perf_hardware();
  if (!probe.ok || !probe.table_works || probe.table_id == "generic") {
    std::cout << "SKIP: " << (probe.ok ? "no event table for " + probe.cpu : probe.line()) << "\n";
    std::exit(RPROF_SKIP_CODE);
  }
  const long n = 2000000, reps = 5;
  auto r = run_rprof({"--backend=perf", sample("triad"), std::to_string(n), std::to_string(reps)});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  const auto triad = find_region(p, "triad");
  REQUIRE(triad.is_object());
  rprof::CounterMap c;
  for (const auto& [k, v] : triad["counters"].items()) c[k] = v.get<uint64_t>();
  rprof::Metrics m;
  REQUIRE(rprof::hardware_translation(c, m));
  REQUIRE(m.has_flops);
  CHECK(m.flops_total() == Approx(2.0 * n * reps).epsilon(0.01));
  REQUIRE(m.at(rprof::Boundary::kL2).measured);
  CHECK(m.at(rprof::Boundary::kL2).bytes() > 16.0 * n * reps * 0.8);  // b and c at least
}
