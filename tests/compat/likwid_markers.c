/* A LIKWID marker-API program, built unchanged against the real liblikwid
 * and against rprof-likwid (tests/compat/CMakeLists.txt).
 *
 * Usage: likwid_markers n reps
 * Regions: "outer" (reps calls) holds one daxpy and "inner" (3 calls per
 * outer call), each daxpy 2n FLOPs (FMA = 2). After the loop: GET "inner"
 * (prints calls, time, events), RESET "inner", one more top-level "inner"
 * call, GET again (1 call since the reset). Prints the marker calls' return
 * codes so the test can check them.
 */
#include <likwid-marker.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void daxpy(size_t n, double a, const double* x, double* y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

static void print_get(const char* label) {
  int nevents = 32;
  double events[32];
  double time = -1;
  int count = -1;
  LIKWID_MARKER_GET("inner", &nevents, events, &time, &count);
  printf("%s count=%d nevents=%d time_positive=%d\n", label, count, nevents, time > 0);
  for (int k = 0; k < nevents; ++k) printf("%s event %d %.0f\n", label, k, events[k]);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: likwid_markers n reps\n");
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
  LIKWID_MARKER_INIT;
  LIKWID_MARKER_THREADINIT;
  printf("register rc=%d\n", LIKWID_MARKER_REGISTER("outer") + LIKWID_MARKER_REGISTER("inner"));
  int rc = 0;
  for (int r = 0; r < reps; ++r) {
    rc |= LIKWID_MARKER_START("outer");
    daxpy(n, 0.5, x, y);
    for (int k = 0; k < 3; ++k) {
      rc |= LIKWID_MARKER_START("inner");
      daxpy(n, 0.25, x, y);
      rc |= LIKWID_MARKER_STOP("inner");
    }
    rc |= LIKWID_MARKER_STOP("outer");
  }
  printf("start/stop rc=%d\n", rc);
  print_get("GET");
  printf("reset rc=%d\n", LIKWID_MARKER_RESET("inner"));
  LIKWID_MARKER_START("inner");
  daxpy(n, 0.125, x, y);
  LIKWID_MARKER_STOP("inner");
  print_get("GET-after-reset");
  LIKWID_MARKER_SWITCH;
  LIKWID_MARKER_CLOSE;
  printf("checksum %.1f\n", y[0] + y[n - 1]);
  free(x);
  free(y);
  return 0;
}
