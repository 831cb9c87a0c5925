/* test_inst_mem's program, built with `rprof cc` at -O0, -O2 and -O3 -mavx2
 * -mfma: kernels whose memory accesses the plugin passes to
 * __rprof_inst_load/store (memory=on), each between two calls of the test's
 * preloaded rprof_test_mem_mark (mem_hooks.c), which notes the counters'
 * bytes and the hooks' for it. Usage: mem_kernels all|daxpy. */
#include <stdlib.h>
#include <string.h>

/* The preloaded library's; absent (a run without it), nothing is noted. */
__attribute__((weak)) void rprof_test_mem_mark(const char* name, int end);

__attribute__((weak)) void rprof_test_mem_range(const void* lo, const void* hi);

static void mark(const char* name, int end) {
  if (rprof_test_mem_mark) rprof_test_mem_mark(name, end);
}

/* Where the next kernel's accesses must lie (after its first mark). */
static void range(const void* lo, unsigned long bytes) {
  if (rprof_test_mem_range) rprof_test_mem_range(lo, (const char*)lo + bytes);
}

/* 16 n bytes read, 8 n written at every -O level (vectorized or not). */
__attribute__((noinline)) void daxpy(int n, double a, const double* x, double* y) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

/* A conditional copy: masked loads and stores at -O3 -mavx2 (counted by
 * their full vector size), scalar and conditional elsewhere. */
__attribute__((noinline)) void masked(int n, const int* restrict c, const double* restrict a,
                                      double* restrict s) {
  for (int i = 0; i < n; ++i) {
    if (c[i]) s[i] = a[i];
  }
}

#define N 64
/* A 5-point stencil on N x N (at -O0: 5 loads and a store per point). */
__attribute__((noinline)) void stencil(double (*restrict out)[N], double (*restrict in)[N]) {
  for (int i = 1; i < N - 1; ++i) {
    for (int j = 1; j < N - 1; ++j) {
      out[i][j] = 0.2 * (in[i][j] + in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
    }
  }
}

/* Aggregate copies, bit-fields, a struct returned and passed by value (on
 * the stack: no range is given). */
struct rec {
  double v[5];
  int id;
  unsigned flag : 3;
  unsigned count : 7;
};

__attribute__((noinline)) struct rec make(int i, struct rec base) {
  base.id = i;
  base.flag = (unsigned)i & 7u;
  return base;
}

__attribute__((noinline)) void records(int n, struct rec* dst, const struct rec* src) {
  for (int i = 0; i < n; ++i) {
    dst[i] = src[i];
    dst[i].count += src[i].flag;
  }
  dst[0] = make(n, src[1]);
}

/* memcpy and memset of a run-time size: n read and n written, n written. */
__attribute__((noinline)) void blocks(unsigned long n, char* dst, const char* src) {
  memcpy(dst, src, n);
  memset(dst + n, 1, n);
}

int main(int argc, char** argv) {
  const int all = argc < 2 || strcmp(argv[1], "daxpy") != 0;
  const int n = 1000;
  double* x = malloc(n * sizeof(double));
  double* y = malloc(n * sizeof(double));
  int* c = malloc(n * sizeof(int));
  if (!x || !y || !c) return 1;
  for (int i = 0; i < n; ++i) {
    x[i] = i;
    y[i] = 1;
    c[i] = i % 2;
  }
  mark("daxpy", 0);
  range(x, n * sizeof(double));
  range(y, n * sizeof(double));
  daxpy(n, 2.0, x, y);
  mark("daxpy", 1);
  int bad = y[10] != 21.0;
  if (all) {
    mark("masked", 0);
    range(c, n * sizeof(int));
    range(x, n * sizeof(double));
    range(y, n * sizeof(double));
    masked(n, c, x, y);
    mark("masked", 1);
    static double in[N][N], out[N][N];
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) in[i][j] = i + j;
    }
    mark("stencil", 0);
    range(in, sizeof in);
    range(out, sizeof out);
    stencil(out, in);
    mark("stencil", 1);
    struct rec* r = calloc(2 * 100, sizeof(struct rec));
    if (!r) return 1;
    mark("records", 0);
    records(100, r, r + 100);
    mark("records", 1);
    char* buf = malloc(3 * 4096);
    if (!buf) return 1;
    memset(buf, 3, 4096);
    mark("blocks", 0);
    range(buf, 3 * 4096);
    blocks(4096, buf + 4096, buf);
    mark("blocks", 1);
    bad |= buf[4096 + 7] != 3 || buf[2 * 4096 + 7] != 1 || out[5][5] != 10.0 || y[11] != 11.0;
    free(buf);
    free(r);
  }
  free(x);
  free(y);
  free(c);
  return bad;
}
