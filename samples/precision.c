/* SP and DP side by side: y <- a*x + y on float vectors, then on double.
 *
 * Usage: precision [n] [reps]   (defaults: n = 1000000, reps = 10)
 * Expect: regions "saxpy" and "daxpy", `reps` calls each. With a counting
 * backend: 2n FLOPs per call in each (FMA = 2 FLOPs), single precision only
 * in "saxpy" and double precision only in "daxpy"; at L1, 12n bytes per
 * call for saxpy (4 B loaded twice, stored once) and 24n for daxpy.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void saxpy(size_t n, float a, const float* restrict x,
                                            float* restrict y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

__attribute__((noinline)) static void daxpy(size_t n, double a, const double* restrict x,
                                            double* restrict y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  float* xs = malloc(n * sizeof(float));
  float* ys = malloc(n * sizeof(float));
  double* xd = malloc(n * sizeof(double));
  double* yd = malloc(n * sizeof(double));
  if (xs == NULL || ys == NULL || xd == NULL || yd == NULL) {
    fprintf(stderr, "precision: out of memory for n = %zu\n", n);
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    xs[i] = 1.0f;
    ys[i] = 2.0f;
    xd[i] = 1.0;
    yd[i] = 2.0;
  }
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("saxpy");
    saxpy(n, 3.0f, xs, ys);
    RPROF_END("saxpy");
    RPROF_BEGIN("daxpy");
    daxpy(n, 3.0, xd, yd);
    RPROF_END("daxpy");
  }
  printf("precision: n=%zu reps=%d ys[0]=%g yd[0]=%g\n", n, reps, (double)ys[0], yd[0]);
  free(xs);
  free(ys);
  free(xd);
  free(yd);
  return 0;
}
