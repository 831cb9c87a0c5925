/* A streaming read for the cache model beside hardware counters
 * (test_perf_model.cpp): region "sum" reads N doubles PASSES times, in
 * order; the array (8 N bytes) is far larger than the test's simulated LLC,
 * so every pass reads it from DRAM again: 8 N PASSES bytes, and none are
 * written back (the array's writes leave the caches before the region). */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1L << 20;
  const int passes = argc > 2 ? atoi(argv[2]) : 4;
  double* a = malloc(sizeof(double) * (size_t)n);
  if (a == NULL) return 1;
  for (long i = 0; i < n; ++i) a[i] = (double)(i & 7);
  /* A read sweep before the region: the written lines leave the caches
   * here, so the region writes nothing back. */
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i];
  RPROF_BEGIN("sum");
  for (int p = 0; p < passes; ++p) {
    for (long i = 0; i < n; ++i) s += a[i];
  }
  RPROF_END("sum");
  printf("%g\n", s);
  free(a);
  return 0;
}
