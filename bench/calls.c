/* The function view's worst cases (bench/functions_bench.sh): a tiny
 * function called once per element, so that nearly every superblock changes
 * function; and two common shapes of call-heavy code.
 * Usage: calls N REPS [leaf|nested|alt|qsort|fib]
 *   leaf (default): main calls axpy1, which returns at once: the tool counts
 *                   it where it is entered (no helper call per change);
 *   nested:         main calls axpy2, which calls axpy1: axpy2 is no leaf,
 *                   so each call and return into it calls the tool's helper;
 *   alt:            main calls axpy2 and axpy3 (which calls axpy1 too) in
 *                   turn: each call is to another child than main's last,
 *                   so the tool looks its calling context up (its table);
 *   qsort:          libc's qsort of N doubles with a comparator, REPS times
 *                   (a leaf called through a pointer from libc);
 *   fib:            the recursive Fibonacci of N, REPS times (a call per
 *                   call, none a leaf but the last level). */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

__attribute__((noinline)) double axpy1(double a, double x, double y) { return a * x + y; }
__attribute__((noinline)) double axpy2(double a, double x, double y) { return axpy1(a, x, y) * 0.5 + y; }
__attribute__((noinline)) double axpy3(double a, double x, double y) { return axpy1(a, x, y) * 0.25 - y; }
static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
__attribute__((noinline)) double fib(int n) { return n < 2 ? 1.0 : fib(n - 1) + fib(n - 2); }

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  const char* mode = argc > 3 ? argv[3] : "leaf";
  const int nested = strcmp(mode, "nested") == 0, alt = strcmp(mode, "alt") == 0;
  double* y = calloc((size_t)n, sizeof(double));
  if (y == NULL) return 1;
  if (strcmp(mode, "qsort") == 0) {
    unsigned s = 1;
    for (int r = 0; r < reps; r++) {
      for (long i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        y[i] = (double)(s >> 8);
      }
      qsort(y, (size_t)n, sizeof(double), cmp);
    }
    printf("calls: %g\n", y[n / 2]);
    free(y);
    return 0;
  }
  if (strcmp(mode, "fib") == 0) {
    double f = 0;
    for (int r = 0; r < reps; r++) f += fib((int)n);
    printf("calls: %g\n", f);
    free(y);
    return 0;
  }
  for (int r = 0; r < reps; r++)
    if (alt)
      for (long i = 0; i < n; i += 2) {
        y[i] = axpy2(1.0001, (double)i, y[i]);
        if (i + 1 < n) y[i + 1] = axpy3(1.0001, (double)i, y[i + 1]);
      }
    else if (nested)
      for (long i = 0; i < n; i++) y[i] = axpy2(1.0001, (double)i, y[i]);
    else
      for (long i = 0; i < n; i++) y[i] = axpy1(1.0001, (double)i, y[i]);
  printf("calls: %g\n", y[n - 1]);
  free(y);
  return 0;
}
