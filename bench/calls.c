/* The function view's worst case (bench/functions_bench.sh): a tiny function
 * called once per element, so that nearly every superblock changes function.
 * Usage: calls N REPS */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double axpy1(double a, double x, double y) { return a * x + y; }

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  double* y = calloc((size_t)n, sizeof(double));
  if (y == NULL) return 1;
  for (int r = 0; r < reps; r++)
    for (long i = 0; i < n; i++) y[i] = axpy1(1.0001, (double)i, y[i]);
  printf("calls: %g\n", y[n - 1]);
  free(y);
  return 0;
}
