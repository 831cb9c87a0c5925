/* The function view's worst cases (bench/functions_bench.sh): a tiny
 * function called once per element, so that nearly every superblock changes
 * function. Usage: calls N REPS [nested]
 *   leaf (default): main calls axpy1, which returns at once: the tool counts
 *                   it at the call site (no helper call per change);
 *   nested:         main calls axpy2, which calls axpy1: axpy2 is no leaf,
 *                   so each call and return into it calls the tool's helper. */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

__attribute__((noinline)) double axpy1(double a, double x, double y) { return a * x + y; }
__attribute__((noinline)) double axpy2(double a, double x, double y) { return axpy1(a, x, y) * 0.5 + y; }

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  const int nested = argc > 3 && strcmp(argv[3], "nested") == 0;
  double* y = calloc((size_t)n, sizeof(double));
  if (y == NULL) return 1;
  for (int r = 0; r < reps; r++)
    if (nested)
      for (long i = 0; i < n; i++) y[i] = axpy2(1.0001, (double)i, y[i]);
    else
      for (long i = 0; i < n; i++) y[i] = axpy1(1.0001, (double)i, y[i]);
  printf("calls: %g\n", y[n - 1]);
  free(y);
  return 0;
}
