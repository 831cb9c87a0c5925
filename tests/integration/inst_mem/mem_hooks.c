/* test_inst_mem's stand-in for librprof, preloaded into a program built with
 * `rprof cc`: its rprof_inst_attach keeps the counters' accessor and sets the
 * calling thread's countdown (RPROF_TEST_COUNTDOWN: "max" leaves INT64_MAX,
 * a number sets it, unset: INT64_MIN/2, every block calls); its
 * rprof_inst_mem sums the bytes passed, loads and stores apart, and counts
 * the calls. The first call sets the countdown to INT64_MIN/2 (every later
 * block calls) and notes the countdown it found. rprof_test_mem_mark(name,
 * end), called by the program around a kernel, writes the kernel's line to
 * RPROF_TEST_MEM_OUT: the counters' bytes (read, written), the hooks' (loaded,
 * stored) and calls between the two marks, the first call's countdown, and
 * the calls whose bytes lie in the ranges the program gave with
 * rprof_test_mem_range(lo, hi) after the first mark (its arrays); at exit,
 * the whole run's line ("total"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/inst/inst_counters.h"

static unsigned long long* (*counters_of)(void);
static unsigned long long loaded, stored, calls, inside;
#define MAX_RANGES 4
static const char* range_lo[MAX_RANGES];
static const char* range_hi[MAX_RANGES];
static int ranges;

void rprof_test_mem_range(const void* lo, const void* hi) {
  if (ranges < MAX_RANGES) {
    range_lo[ranges] = lo;
    range_hi[ranges] = hi;
    ++ranges;
  }
}
static long long first_countdown;
static int called;

void rprof_inst_attach(unsigned long long* (*counters)(void), int version) {
  (void)version;
  counters_of = counters;
  const char* c = getenv("RPROF_TEST_COUNTDOWN");
  unsigned long long* ctr = counters();
  if (!c) {
    ctr[RPROF_INST_COUNTDOWN] = (unsigned long long)(INT64_MIN / 2);
  } else if (strcmp(c, "max") != 0) {
    ctr[RPROF_INST_COUNTDOWN] = (unsigned long long)strtoll(c, NULL, 10);
  }
}

void rprof_inst_mem(const void* addr, unsigned long bytes, int is_store) {
  if (!called) {
    called = 1;
    unsigned long long* ctr = counters_of();
    first_countdown = (long long)ctr[RPROF_INST_COUNTDOWN];
    ctr[RPROF_INST_COUNTDOWN] = (unsigned long long)(INT64_MIN / 2);
  }
  ++calls;
  const char* a = addr;
  for (int i = 0; i < ranges; ++i) {
    if (a >= range_lo[i] && a + bytes <= range_hi[i]) {
      ++inside;
      break;
    }
  }
  if (is_store) {
    stored += bytes;
  } else {
    loaded += bytes;
  }
}

static unsigned long long mark_read, mark_write, mark_loaded, mark_stored, mark_calls, mark_inside;

static void line(const char* name, unsigned long long r, unsigned long long w) {
  const char* path = getenv("RPROF_TEST_MEM_OUT");
  FILE* f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %llu %llu %llu %llu %llu %lld %llu\n", name, r, w, loaded - mark_loaded,
          stored - mark_stored, calls - mark_calls, first_countdown, inside - mark_inside);
  fclose(f);
}

void rprof_test_mem_mark(const char* name, int end) {
  const unsigned long long* ctr = counters_of ? counters_of() : NULL;
  if (!ctr) return;
  if (end) {
    line(name, ctr[RPROF_INST_BYTES_READ] - mark_read, ctr[RPROF_INST_BYTES_WRITE] - mark_write);
  } else {
    mark_read = ctr[RPROF_INST_BYTES_READ];
    mark_write = ctr[RPROF_INST_BYTES_WRITE];
    mark_loaded = loaded;
    mark_stored = stored;
    mark_calls = calls;
    mark_inside = inside;
    ranges = 0;
  }
}

__attribute__((destructor)) static void at_exit(void) {
  if (!counters_of) return;
  mark_loaded = mark_stored = mark_calls = mark_inside = 0;
  const unsigned long long* ctr = counters_of();
  line("total", ctr[RPROF_INST_BYTES_READ], ctr[RPROF_INST_BYTES_WRITE]);
}
