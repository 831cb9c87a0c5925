/* Four memory access patterns for the cross-check of rprof's cache model
 * against cachegrind (test_sim_cachegrind). Built WITHOUT rprof: both
 * simulators see exactly the same program.
 *
 * Usage: cache_kernels KERNEL n
 *   stream   b[i] = a[i] + 1 over two arrays of n doubles (read one, write one)
 *   strided  a column walk: sum of column j over all rows, for every column,
 *            of an n x 520 matrix of doubles (4160 B between accesses)
 *   blocked  a transpose of an n x n matrix in 16 x 16 blocks
 *   random   n reads at pseudo-random (LCG) places of an array of n doubles,
 *            accumulated into a histogram of 256 doubles
 * Each kernel first initialises its data (part of what is compared). The test
 * compares the differences between two sizes, so the program's start-up and
 * exit, identical at both sizes, cancel out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kStrideCols = 520, kBlock = 16 };

static double* alloc(size_t n) {
  double* p = malloc(n * sizeof(double));
  if (p == NULL) {
    fprintf(stderr, "cache_kernels: out of memory for %zu doubles\n", n);
    exit(1);
  }
  for (size_t i = 0; i < n; ++i) p[i] = (double)(i % 7);
  return p;
}

__attribute__((noinline)) static double stream(size_t n) {
  double* a = alloc(n);
  double* b = alloc(n);
  for (size_t i = 0; i < n; ++i) b[i] = a[i] + 1.0;
  return b[n / 2];
}

__attribute__((noinline)) static double strided(size_t rows) {
  double* m = alloc(rows * kStrideCols);
  double s = 0;
  for (size_t j = 0; j < kStrideCols; ++j)
    for (size_t i = 0; i < rows; ++i) s += m[i * kStrideCols + j];
  return s;
}

__attribute__((noinline)) static double blocked(size_t n) {
  double* a = alloc(n * n);
  double* t = alloc(n * n);
  for (size_t ib = 0; ib < n; ib += kBlock)
    for (size_t jb = 0; jb < n; jb += kBlock)
      for (size_t i = ib; i < ib + kBlock && i < n; ++i)
        for (size_t j = jb; j < jb + kBlock && j < n; ++j) t[j * n + i] = a[i * n + j];
  return t[n + 1];
}

__attribute__((noinline)) static double random_access(size_t n) {
  double* a = alloc(n);
  double hist[256];
  memset(hist, 0, sizeof(hist));
  unsigned long long x = 12345;
  for (size_t k = 0; k < n; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    hist[k & 255] += a[(x >> 20) % n];
  }
  return hist[7];
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: cache_kernels stream|strided|blocked|random n\n");
    return 2;
  }
  const size_t n = strtoull(argv[2], NULL, 10);
  double r;
  if (strcmp(argv[1], "stream") == 0) r = stream(n);
  else if (strcmp(argv[1], "strided") == 0) r = strided(n);
  else if (strcmp(argv[1], "blocked") == 0) r = blocked(n);
  else if (strcmp(argv[1], "random") == 0) r = random_access(n);
  else return 2;
  printf("cache_kernels: %s n=%zu r=%g\n", argv[1], n, r);
  return 0;
}
