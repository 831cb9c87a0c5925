/* daxpy: y <- a*x + y on double vectors, the first seed's worked example.
 *
 * Usage: daxpy [n] [reps]
 *   n defaults to 16n bytes = 3x the largest cache the machine reports
 *   (llc_size.h), so the default run streams from DRAM on any machine;
 *   reps defaults to 5.
 * Expect: one region "daxpy" with exactly `reps` calls (nested under nothing),
 * and a region "init" with 1 call. With a counting backend: 2n FLOPs per call
 * (FMA = 2 FLOPs), 24n bytes per call at L1 (16 B loaded, 8 B stored per
 * element), and about 24n bytes at DRAM per call once 16n bytes are far
 * larger than the last-level cache: a DRAM bandwidth-bound region.
 */
#include <rprof/markers.h>
#include <stdio.h>

#include "llc_size.h"
#include <stdlib.h>

__attribute__((noinline)) static void daxpy(size_t n, double a,
                                            const double* restrict x,
                                            double* restrict y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 3 * sample_llc_bytes() / 16;
  const int reps = argc > 2 ? atoi(argv[2]) : 5;
  double* x = malloc(n * sizeof(double));
  double* y = malloc(n * sizeof(double));
  if (x == NULL || y == NULL) {
    fprintf(stderr, "daxpy: out of memory for n = %zu\n", n);
    return 1;
  }
  RPROF_BEGIN("init");
  for (size_t i = 0; i < n; ++i) {
    x[i] = 1.0;
    y[i] = 2.0;
  }
  RPROF_END("init");
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("daxpy");
    /* Integer products: no floating-point work of their own in the region,
     * so counted FLOPs are exactly the kernel's. */
    RPROF_WORK((double)(2 * n), (double)(24 * n));
    daxpy(n, 3.0, x, y);
    RPROF_END("daxpy");
  }
  printf("daxpy: n=%zu reps=%d y[0]=%g\n", n, reps, y[0]);
  free(x);
  free(y);
  return 0;
}
