/* Matrix multiply C += A * B (n x n doubles), twice: in the naive i-j-k loop
 * order, and blocked in b x b tiles. Same FLOPs, very different traffic.
 *
 * Usage: matmul [n] [b]   (defaults: n = 256, b = 32; b must divide n)
 * Expect: regions "naive" and "blocked", 1 call each, 2n^3 FLOPs each
 * (FMA = 2 FLOPs). The naive order walks B down its columns, so once B no
 * longer fits in a cache level every k step misses there, and B is read from
 * memory once per row of C (about 8n^3 bytes). The blocked order reuses three
 * tiles (3 * 8b^2 bytes) from cache, moving about 8n^3 * 2/b bytes: far fewer
 * DRAM bytes for the same FLOPs, a higher intensity at the DRAM boundary.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void naive(size_t n, const double* a, const double* b,
                                            double* c) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double s = c[i * n + j];
      for (size_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
  }
}

__attribute__((noinline)) static void blocked(size_t n, size_t bs, const double* a,
                                              const double* b, double* c) {
  for (size_t ii = 0; ii < n; ii += bs) {
    for (size_t kk = 0; kk < n; kk += bs) {
      for (size_t jj = 0; jj < n; jj += bs) {
        for (size_t i = ii; i < ii + bs; ++i) {
          for (size_t k = kk; k < kk + bs; ++k) {
            const double aik = a[i * n + k];
            for (size_t j = jj; j < jj + bs; ++j) c[i * n + j] += aik * b[k * n + j];
          }
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
  const size_t bs = argc > 2 ? strtoull(argv[2], NULL, 10) : 32;
  if (n == 0 || bs == 0 || n % bs != 0) {
    fprintf(stderr, "matmul: the block size %zu must divide n = %zu\n", bs, n);
    return 2;
  }
  double* a = malloc(n * n * sizeof(double));
  double* b = malloc(n * n * sizeof(double));
  double* c1 = calloc(n * n, sizeof(double));
  double* c2 = calloc(n * n, sizeof(double));
  if (a == NULL || b == NULL || c1 == NULL || c2 == NULL) {
    fprintf(stderr, "matmul: out of memory for n = %zu\n", n);
    return 1;
  }
  for (size_t i = 0; i < n * n; ++i) {
    a[i] = (double)(i % 7) - 3.0;
    b[i] = (double)(i % 5) - 2.0;
  }
  RPROF_BEGIN("naive");
  naive(n, a, b, c1);
  RPROF_END("naive");
  RPROF_BEGIN("blocked");
  blocked(n, bs, a, b, c2);
  RPROF_END("blocked");
  const int same = memcmp(c1, c2, n * n * sizeof(double)) == 0;
  printf("matmul: n=%zu b=%zu c[0]=%g results %s\n", n, bs, c1[0],
         same ? "agree" : "DIFFER");
  free(a);
  free(b);
  free(c1);
  free(c2);
  return same ? 0 : 1;
}
