/* Loop fusion: the same result, c[i] = s*a[i] + b[i], as two loops through a
 * temporary array (unfused) or as one loop (fused). The seeds' check of a
 * transformation: same useful work, fewer bytes, less time.
 *
 * Usage: fusion fused|unfused [n] [reps]   (defaults: n = 4000000, reps = 5)
 * Expect: a region "sweep" in both versions (`rprof diff` matches it), with
 * inside it "scale" and "add" (unfused) or "scale_add" (fused). Per call,
 * with a counting backend:
 *   FLOPs (both): 2n (one multiply and one add per element; FMA = 2 FLOPs)
 *   L1 bytes: unfused 40n (loop 1 loads a, stores t; loop 2 loads t, b,
 *             stores c), fused 24n (loads a, b, stores c)
 *   DRAM bytes once the arrays are far larger than the last-level cache:
 *             unfused 56n, fused 32n (each store first reads its line:
 *             write-allocate), a ratio of 4/7.
 * Both versions declare the ideal work: 2n FLOPs, 24n bytes.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void scale(size_t n, double s, double* restrict t,
                                            const double* restrict a) {
  for (size_t i = 0; i < n; ++i) t[i] = s * a[i];
}

__attribute__((noinline)) static void add(size_t n, double* restrict c,
                                          const double* restrict t,
                                          const double* restrict b) {
  for (size_t i = 0; i < n; ++i) c[i] = t[i] + b[i];
}

__attribute__((noinline)) static void scale_add(size_t n, double s, double* restrict c,
                                                const double* restrict a,
                                                const double* restrict b) {
  for (size_t i = 0; i < n; ++i) c[i] = s * a[i] + b[i];
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "fused") != 0 && strcmp(argv[1], "unfused") != 0)) {
    fprintf(stderr, "usage: fusion fused|unfused [n] [reps]\n");
    return 2;
  }
  const int fused = strcmp(argv[1], "fused") == 0;
  const size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 4000000;
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  double* a = malloc(n * sizeof(double));
  double* b = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  double* t = fused ? NULL : malloc(n * sizeof(double));
  if (a == NULL || b == NULL || c == NULL || (!fused && t == NULL)) {
    fprintf(stderr, "fusion: out of memory for n = %zu\n", n);
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0 + (double)(i % 7);
    b[i] = 2.0;
  }
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("sweep");
    RPROF_WORK(2.0 * (double)n, 24.0 * (double)n);
    if (fused) {
      RPROF_BEGIN("scale_add");
      scale_add(n, 3.0, c, a, b);
      RPROF_END("scale_add");
    } else {
      RPROF_BEGIN("scale");
      scale(n, 3.0, t, a);
      RPROF_END("scale");
      RPROF_BEGIN("add");
      add(n, c, t, b);
      RPROF_END("add");
    }
    RPROF_END("sweep");
  }
  printf("fusion: %s n=%zu reps=%d c[1]=%g\n", fused ? "fused" : "unfused", n, reps, c[1]);
  free(a);
  free(b);
  free(c);
  free(t);
  return 0;
}
