/* Threads for the inst backend's cache simulation (test_inst_sample): a
 * triad over arrays 4 times the pinned 2 MiB LLC and a strided sum, each an
 * OpenMP loop of 2 threads (static schedule) inside a marked region: private
 * L1 and L2 per thread, one shared LLC. */
#include <stdio.h>
#include <stdlib.h>

#include <rprof/markers.h>

int main(void) {
  const long n = 1L << 20;
  double* a = malloc(n * sizeof(double));
  double* b = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = (double)i;
    c[i] = 1.0 / (double)(i + 1);
  }
  for (int r = 0; r < 3; ++r) {
    RPROF_BEGIN("triad");
#pragma omp parallel for schedule(static) num_threads(2)
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    RPROF_END("triad");
  }
  double s = 0;
  RPROF_BEGIN("sum");
#pragma omp parallel for schedule(static) num_threads(2) reduction(+ : s)
  for (long i = 0; i < n; i += 3) s += a[i] * b[i];
  RPROF_END("sum");
  printf("%g\n", s);
  free(a), free(b), free(c);
  return 0;
}
