/* test_inst_mem's stand-in for librprof, preloaded into a program built with
 * `rprof cc`: its rprof_inst_attach keeps the counters' accessor and sets the
 * calling thread's set filter (inst_counters.h; RPROF_TEST_FILTER: unset,
 * every access; "none" leaves the program's initial filter; "F:C" the lines C
 * modulo F of 64 bytes); its rprof_inst_mem sums the bytes passed, loads and
 * stores apart, counts the calls, and sums the bytes passed that lie in the
 * lines RPROF_TEST_SELECT="F:C" names (the selected bytes; 0 unset).
 * rprof_test_mem_mark(name, end), called by the program around a kernel,
 * writes the kernel's line to RPROF_TEST_MEM_OUT: the counters' bytes (read,
 * written), the hooks' (loaded, stored), calls and selected bytes between the
 * two marks, and the calls whose bytes lie in the ranges the program gave
 * with rprof_test_mem_range(lo, hi) after the first mark (its arrays); at
 * exit, the whole run's line ("total"). */
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
static unsigned long long selected, select_f, select_c;

void rprof_inst_attach(unsigned long long* (*counters)(void), int version) {
  (void)version;
  counters_of = counters;
  const char* c = getenv("RPROF_TEST_FILTER");
  unsigned long long* ctr = counters();
  unsigned long long f = 0, k = 0;
  if (!c) {
    ctr[RPROF_INST_SET_BITS] = ~0ull;
  } else if (sscanf(c, "%llu:%llu", &f, &k) == 2 && f > 0 && f <= 64) {
    unsigned long long b = 0;
    for (unsigned long long j = 0; j < 64; ++j) {
      if (j % f == k % f) b |= 1ull << j;
    }
    ctr[RPROF_INST_SET_BITS] = b;
  }
  const char* s = getenv("RPROF_TEST_SELECT");
  if (s) sscanf(s, "%llu:%llu", &select_f, &select_c);
}

void rprof_inst_mem(const void* addr, unsigned long bytes, int is_store) {
  ++calls;
  if (select_f) {
    const uintptr_t a = (uintptr_t)addr, end = a + bytes;
    for (uintptr_t ln = a >> 6; ln <= (end - 1) >> 6; ++ln) {
      if (ln % select_f != select_c) continue;
      const uintptr_t lo = a > (ln << 6) ? a : ln << 6;
      const uintptr_t hi = end < ((ln + 1) << 6) ? end : (ln + 1) << 6;
      selected += hi - lo;
    }
  }
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

static unsigned long long mark_read, mark_write, mark_loaded, mark_stored, mark_calls, mark_inside,
    mark_selected;

static void line(const char* name, unsigned long long r, unsigned long long w) {
  const char* path = getenv("RPROF_TEST_MEM_OUT");
  FILE* f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %llu %llu %llu %llu %llu %llu %llu\n", name, r, w, loaded - mark_loaded,
          stored - mark_stored, calls - mark_calls, selected - mark_selected, inside - mark_inside);
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
    mark_selected = selected;
    ranges = 0;
  }
}

__attribute__((destructor)) static void at_exit(void) {
  if (!counters_of) return;
  mark_loaded = mark_stored = mark_calls = mark_inside = mark_selected = 0;
  const unsigned long long* ctr = counters_of();
  line("total", ctr[RPROF_INST_BYTES_READ], ctr[RPROF_INST_BYTES_WRITE]);
}
