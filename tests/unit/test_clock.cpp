// The runtime clock (runtime/clock.h): the TSC's measured rate converts its
// ticks to the nanoseconds CLOCK_MONOTONIC counts, and RPROF_CLOCK=monotonic
// falls back to clock_gettime.
#include <catch2/catch.hpp>

#include <time.h>

#include "runtime/clock.h"
#include "skip.h"

using namespace rprof::runtime;

TEST_CASE("the monotonic clock counts nanoseconds and converts to itself") {
  init_clock("monotonic");
  CHECK_FALSE(g_clock.tsc);
  CHECK(g_clock.ticks_per_s == 1000000000ull);
  CHECK(std::string(clock_source_name()) == "monotonic");
  CHECK(ticks_to_ns(123456789) == 123456789);
  const uint64_t a = monotonic_ns();
  const uint64_t t = now_ticks();
  CHECK(t >= a);
}

TEST_CASE("TSC ticks convert to the nanoseconds CLOCK_MONOTONIC counts") {
  if (!cpu_has_invariant_tsc()) {
    rprof::test::skip_test("this CPU has no invariant TSC (CPUID.80000007H:EDX[8])");
  }
  init_clock(nullptr);
  REQUIRE(g_clock.tsc);
  CHECK(std::string(clock_source_name()) == "tsc");
  CHECK(g_clock.ticks_per_s > 1000000ull);
  // Over 50 ms the converted span matches the clock's own within 1%: a wrong
  // rate (say kHz for Hz, or a calibration span off by 2x) is far outside.
  const uint64_t n0 = monotonic_ns();
  const uint64_t t0 = now_ticks();
  timespec nap{0, 50000000};
  nanosleep(&nap, nullptr);
  const uint64_t t1 = now_ticks();
  const uint64_t n1 = monotonic_ns();
  const double ns = static_cast<double>(ticks_to_ns(t1 - t0));
  const double ref = static_cast<double>(n1 - n0);
  CHECK(ns == Approx(ref).epsilon(0.01));
  CHECK(ticks_to_ns(g_clock.ticks_per_s) == 1000000000ull);
  init_clock("monotonic");  // leave the default for other cases
}
