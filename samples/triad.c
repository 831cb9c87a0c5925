/* STREAM triad: a[i] = b[i] + s*c[i] on double vectors.
 *
 * Usage: triad [n] [reps]   (defaults: 24n bytes = 3x the largest cache the
 * machine reports (llc_size.h), reps = 10)
 * Expect: one region "triad" with exactly `reps` calls. With a counting
 * backend: 2n FLOPs per call (FMA = 2 FLOPs); 24n bytes per call at L1
 * (b and c loaded, a stored); at DRAM 32n bytes per call when the arrays are
 * far larger than the last-level cache, because the store to `a` first reads
 * its line (write-allocate) and later writes it back. DRAM bandwidth-bound.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#include "llc_size.h"

__attribute__((noinline)) static void triad(size_t n, double s,
                                            double* restrict a,
                                            const double* restrict b,
                                            const double* restrict c) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 3 * sample_llc_bytes() / 24;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  double* a = malloc(n * sizeof(double));
  double* b = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  if (a == NULL || b == NULL || c == NULL) {
    fprintf(stderr, "triad: out of memory for n = %zu\n", n);
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("triad");
    /* Integer products: no floating-point work of their own in the region,
     * so counted FLOPs are exactly the kernel's. */
    RPROF_WORK((double)(2 * n), (double)(24 * n));
    triad(n, 3.0, a, b, c);
    RPROF_END("triad");
  }
  printf("triad: n=%zu reps=%d a[0]=%g\n", n, reps, a[0]);
  free(a);
  free(b);
  free(c);
  return 0;
}
