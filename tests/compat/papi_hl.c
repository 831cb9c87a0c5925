/* A PAPI high-level API program, built unchanged against the real libpapi
 * and against rprof-papi (tests/compat/CMakeLists.txt).
 *
 * Usage: papi_hl n reps
 * Regions: "compute" (reps calls) holds one daxpy and "kernel" (2 calls per
 * compute call, with a PAPI_hl_read inside each), each daxpy 2n FLOPs. Then
 * PAPI_hl_stop (twice), and one more "after_stop" region (PAPI 7 restarts
 * counting at the next begin). Prints return codes for the test.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void daxpy(size_t n, double a, const double* x, double* y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: papi_hl n reps\n");
    return 2;
  }
  const size_t n = strtoull(argv[1], NULL, 10);
  const int reps = atoi(argv[2]);
  double* x = malloc(n * sizeof(double));
  double* y = malloc(n * sizeof(double));
  if (x == NULL || y == NULL) return 1;
  for (size_t i = 0; i < n; ++i) {
    x[i] = 1.0;
    y[i] = 2.0;
  }
  printf("read outside rc=%d\n", PAPI_hl_read("compute"));
  int rc = 0;
  for (int r = 0; r < reps; ++r) {
    rc |= PAPI_hl_region_begin("compute");
    daxpy(n, 0.5, x, y);
    for (int k = 0; k < 2; ++k) {
      rc |= PAPI_hl_region_begin("kernel");
      daxpy(n, 0.25, x, y);
      rc |= PAPI_hl_read("kernel");
      rc |= PAPI_hl_region_end("kernel");
    }
    rc |= PAPI_hl_region_end("compute");
  }
  printf("regions rc=%d\n", rc);
  printf("stop rc=%d\n", PAPI_hl_stop());
  printf("stop again rc=%d\n", PAPI_hl_stop());
  rc = PAPI_hl_region_begin("after_stop");
  daxpy(n, 0.125, x, y);
  rc |= PAPI_hl_region_end("after_stop");
  printf("after stop rc=%d\n", rc);
  printf("checksum %.1f\n", y[0] + y[n - 1]);
  free(x);
  free(y);
  return 0;
}
