/* LIKWID markers in OpenMP threads, as LIKWID's examples place them, built
 * unchanged against the real liblikwid and against rprof-likwid.
 *
 * Usage: likwid_omp n reps   (2 threads)
 * Each thread: THREADINIT, then reps x "par" around a daxpy of n elements
 * (2n FLOPs), then GET "par" (prints its own calls). Expect: region "par"
 * with 2 x reps calls over 2 threads, 4n x reps FLOPs; each thread's GET
 * says reps.
 */
#include <likwid-marker.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void daxpy(size_t n, double a, const double* x, double* y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: likwid_omp n reps\n");
    return 2;
  }
  const size_t n = strtoull(argv[1], NULL, 10);
  const int reps = atoi(argv[2]);
  double* x = malloc(2 * n * sizeof(double));
  double* y = malloc(2 * n * sizeof(double));
  if (x == NULL || y == NULL) return 1;
  for (size_t i = 0; i < 2 * n; ++i) {
    x[i] = 1.0;
    y[i] = 2.0;
  }
  LIKWID_MARKER_INIT;
#pragma omp parallel num_threads(2)
  {
    LIKWID_MARKER_THREADINIT;
    const size_t off = (size_t)omp_get_thread_num() * n;
    for (int r = 0; r < reps; ++r) {
      LIKWID_MARKER_START("par");
      daxpy(n, 0.5, x + off, y + off);
      LIKWID_MARKER_STOP("par");
    }
    int nevents = 0, count = -1;
    double time = 0;
    LIKWID_MARKER_GET("par", &nevents, NULL, &time, &count);
#pragma omp critical
    printf("thread GET count=%d\n", count);
  }
  LIKWID_MARKER_CLOSE;
  printf("checksum %.1f\n", y[0] + y[2 * n - 1]);
  free(x);
  free(y);
  return 0;
}
