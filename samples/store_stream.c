/* A store-only stream: a[i] = s over a vector far larger than the caches.
 *
 * Usage: store_stream [n] [reps]   (defaults: 8n bytes = 3x the largest cache
 * the machine reports (llc_size.h), reps = 3)
 * Expect: region "store" with declared work 8n bytes per call (each element
 * written once) and about 16n bytes measured at DRAM: every stored line is
 * first read (write-allocate) and later written back. Flagged
 * traffic-above-ideal (2x) with write-allocate as the likely cause. */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#include "llc_size.h"

__attribute__((noinline)) static void fill(size_t n, double* a, double s) {
  for (size_t i = 0; i < n; ++i) a[i] = s + (double)(i & 1);
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 3 * sample_llc_bytes() / 8;
  const int reps = argc > 2 ? atoi(argv[2]) : 3;
  double* a = malloc(n * sizeof(double));
  if (a == NULL) return 1;
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("store");
    RPROF_WORK((double)n, 8.0 * (double)n); /* one add per element; 8 B stored */
    fill(n, a, (double)r);
    RPROF_END("store");
  }
  printf("store_stream: n=%zu reps=%d a[1]=%g\n", n, reps, a[1]);
  free(a);
  return 0;
}
