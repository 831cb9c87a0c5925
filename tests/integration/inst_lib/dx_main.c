/* Calls the library's dx() REPS times on N elements (usage: dx_main N REPS).
 * Built plainly or with rprof cc, against dx built as a shared or a static
 * library with rprof cc (tests/integration/test_inst.cpp). */
#include <stdio.h>
#include <stdlib.h>

void dx(double* y, const double* x, double a, int n);

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int n = atoi(argv[1]), reps = atoi(argv[2]);
  if (n < 1 || reps < 1) return 2;
  double* x = calloc((size_t)n, sizeof(double));
  double* y = calloc((size_t)n, sizeof(double));
  if (x == NULL || y == NULL) return 3;
  for (int i = 0; i < n; ++i) x[i] = 1e-3 * i;
  for (int r = 0; r < reps; ++r) dx(y, x, 0.5, n);
  printf("%g\n", y[n / 2]);
  free(x);
  free(y);
  return 0;
}
