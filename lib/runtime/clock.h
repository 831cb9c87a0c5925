// The runtime's clock. Regions are timed in ticks: the invariant TSC where the
// CPU has one (constant rate, runs in every C-state: CPUID.80000007H:EDX[8]),
// read with one rdtsc and no call; CLOCK_MONOTONIC nanoseconds (vDSO)
// otherwise. The TSC's rate is measured once, at runtime start, against
// CLOCK_MONOTONIC; the raw writer converts ticks to nanoseconds and records
// the source and rate ("clock" in docs/profile-schema.md).
//
// Why: a begin/end pair reads the clock twice; rdtsc costs a few ns where
// clock_gettime costs 15-30 ns (issue 17).
#ifndef RPROF_RUNTIME_CLOCK_H_
#define RPROF_RUNTIME_CLOCK_H_

#include <time.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RPROF_HAVE_TSC 1
#else
#define RPROF_HAVE_TSC 0
#endif

namespace rprof::runtime {

struct ClockInfo {
  bool tsc = false;                      // ticks are TSC cycles, else ns
  uint64_t ticks_per_s = 1000000000ull;  // exact for CLOCK_MONOTONIC
};

// Set once by init_clock() before markers activate; read-only afterwards
// (inherited unchanged across fork: the TSC does not restart).
extern ClockInfo g_clock;

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// The hot path: one well-predicted branch and one rdtsc. No fence: a region
// is timed to within the few cycles the out-of-order core may move it.
inline uint64_t now_ticks() {
#if RPROF_HAVE_TSC
  if (g_clock.tsc) return __rdtsc();
#endif
  return monotonic_ns();
}

// Async-signal-safe (integer arithmetic only): the raw writer runs in a
// fatal-signal handler.
inline uint64_t ticks_to_ns(uint64_t ticks) {
  if (!g_clock.tsc) return ticks;
  // Whole seconds and the remainder apart, so nothing overflows 64 bits for
  // rates below 18 GHz and any span.
  const uint64_t hz = g_clock.ticks_per_s;
  return ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
}

// Whether this CPU has an invariant TSC (cpuid), regardless of the choice.
bool cpu_has_invariant_tsc();

// Chooses the source and measures the TSC rate (a few ms, once per process
// start). `want` is RPROF_CLOCK: "monotonic" forces clock_gettime, anything
// else (or null) takes the TSC where it is invariant.
void init_clock(const char* want);

// "tsc" or "monotonic", as written in the raw profile.
inline const char* clock_source_name() { return g_clock.tsc ? "tsc" : "monotonic"; }

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_CLOCK_H_
