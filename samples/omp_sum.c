/* OpenMP: every thread runs the region "work" inside a parallel loop.
 *
 * Usage: omp_sum [n] [chunks]   (defaults: n = 4000000, chunks = 16)
 * Expect: region "parallel" with 1 call (master thread) and, nested in it on
 * every thread, "work" with `chunks` calls in total over all threads (each
 * chunk of the loop is one call), one per-thread row per OpenMP thread.
 */
#include <omp.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 4000000;
  const int chunks = argc > 2 ? atoi(argv[2]) : 16;
  double* v = malloc((size_t)n * sizeof(double));
  if (v == NULL) return 1;
  for (long i = 0; i < n; ++i) v[i] = 1.0 / (double)(i + 1);
  double total = 0;
  RPROF_BEGIN("parallel");
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    RPROF_BEGIN("work");
    const long lo = n * c / chunks, hi = n * (c + 1) / chunks;
    double s = 0;
    for (long i = lo; i < hi; ++i) s += v[i] * v[i];
    total += s;
    RPROF_END("work");
  }
  RPROF_END("parallel");
  printf("omp_sum: n=%ld chunks=%d threads=%d total=%.6f\n", n, chunks,
         omp_get_max_threads(), total);
  free(v);
  return 0;
}
