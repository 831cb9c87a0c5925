#include "runtime/clock.h"

#include <cstring>

#if RPROF_HAVE_TSC
#include <cpuid.h>
#endif

namespace rprof::runtime {

ClockInfo g_clock;

bool cpu_has_invariant_tsc() {
#if RPROF_HAVE_TSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  return (d & (1u << 8)) != 0;  // constant_tsc and nonstop_tsc
#else
  return false;
#endif
}

namespace {

#if RPROF_HAVE_TSC
// One (tsc, ns) pair with the clock read bracketed by two TSC reads; the
// narrowest bracket of a few tries, so a preemption between the reads (shared
// VMs) does not skew the pair.
void sample(uint64_t* tsc, uint64_t* ns) {
  uint64_t best = ~0ull;
  for (int i = 0; i < 5; ++i) {
    const uint64_t a = __rdtsc();
    const uint64_t t = monotonic_ns();
    const uint64_t b = __rdtsc();
    if (b - a < best) {
      best = b - a;
      *tsc = a + (b - a) / 2;
      *ns = t;
    }
  }
}
#endif

}  // namespace

void init_clock(const char* want) {
  g_clock = ClockInfo{};
#if RPROF_HAVE_TSC
  if (want != nullptr && std::strcmp(want, "monotonic") == 0) return;
  if (!cpu_has_invariant_tsc()) return;
  // 5 ms against CLOCK_MONOTONIC: the pair's error (tens of ns) is ~1e-5 of
  // the span, below any region time worth reporting.
  constexpr uint64_t kSpanNs = 5000000;
  uint64_t tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0;
  sample(&tsc0, &ns0);
  do {
    sample(&tsc1, &ns1);
  } while (ns1 - ns0 < kSpanNs);
  if (tsc1 <= tsc0) return;  // a TSC that does not advance: keep the clock
  // (ticks over ~5 ms) * 1e9 stays far below 2^64 for any real TSC rate.
  const uint64_t rate = (tsc1 - tsc0) * 1000000000ull / (ns1 - ns0);
  if (rate < 1000000 || rate > 16000000000ull) return;  // not a usable TSC
  g_clock.ticks_per_s = rate;
  g_clock.tsc = true;
#else
  (void)want;
#endif
}

}  // namespace rprof::runtime
