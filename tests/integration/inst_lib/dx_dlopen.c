/* Loads the library LIB with dlopen and calls its dx() REPS times on N
 * elements (usage: dx_dlopen LIB N REPS). Built plainly: the only code built
 * with rprof cc is the library it loads (tests/integration/test_inst.cpp). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*dx_fn)(double* y, const double* x, double a, int n);

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const int n = atoi(argv[2]), reps = atoi(argv[3]);
  if (n < 1 || reps < 1) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (lib == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 3;
  }
  dx_fn dx;
  void* sym = dlsym(lib, "dx");
  memcpy(&dx, &sym, sizeof dx);
  if (dx == NULL) return 3;
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
