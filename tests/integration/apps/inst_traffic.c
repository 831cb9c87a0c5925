/* Kernels for the inst backend's cache simulation (test_inst_sample): a
 * streaming triad, a 2-D 5-point stencil, a dense i-k-j matrix product, a
 * CSR sparse matrix-vector product with random columns, repeated sweeps
 * over an array of half the LLC, and a block whose L1 misses pile onto 4 of
 * the L1's sets, each a marked region, sized against the
 * geometry the test pins (L1 32 KiB, L2 256 KiB, LLC 2 MiB, 64-byte lines):
 * triad's arrays and spmv's x are larger than the LLC, the stencil's grids
 * its size each, the matrices fit L2 and LLC, the swept array stays in the
 * LLC (its DRAM traffic is its first touch only).
 * Usage: inst_traffic [SCALE] (default 1: more work, same sizes, with more). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rprof/markers.h>

static double checksum;

static void triad(double* a, const double* b, const double* c, double s, long n) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

static void stencil(double* out, const double* in, int n) {
  for (int i = 1; i < n - 1; ++i) {
    for (int j = 1; j < n - 1; ++j) {
      out[i * n + j] = 0.2 * (in[i * n + j] + in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                              in[i * n + j - 1] + in[i * n + j + 1]);
    }
  }
}

static void gemm(double* c, const double* a, const double* b, int n) {
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  }
}

static void sweep(double* a, long n) {
  for (long i = 0; i < n; ++i) a[i] = 0.5 * a[i] + 1.0;
}

/* A 32 x 32 block of a 512-column matrix (4 KiB rows: its 128 lines fall in
 * 4 of a 64-set L1's sets, which it thrashes), then 4 sums over an 8 KiB
 * vector (lines in every set, hits outside those 4). */
static double conflict(const double* m, const double* u) {
  double s = 0;
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 32; ++c) s += m[r * 512 + 64 + c];
  }
  for (int p = 0; p < 4; ++p) {
    for (int i = 0; i < 1024; ++i) s += u[i];
  }
  return s;
}

static void spmv(double* y, const double* val, const int* col, const int* rowptr,
                 const double* x, int rows) {
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += val[k] * x[col[k]];
    y[r] = s;
  }
}

int main(int argc, char** argv) {
  const int scale = argc > 1 ? atoi(argv[1]) : 1;
  /* triad: 3 x 4 MiB */
  const long tn = 512L * 1024;
  double* ta = malloc(tn * sizeof(double));
  double* tb = malloc(tn * sizeof(double));
  double* tc = malloc(tn * sizeof(double));
  for (long i = 0; i < tn; ++i) {
    ta[i] = 0;
    tb[i] = (double)i;
    tc[i] = 1.0 / (double)(i + 1);
  }
  /* stencil: 2 x 512^2 doubles (2 MiB each) */
  const int sn = 512;
  double* g0 = malloc((size_t)sn * sn * sizeof(double));
  double* g1 = malloc((size_t)sn * sn * sizeof(double));
  for (int i = 0; i < sn * sn; ++i) g0[i] = g1[i] = (double)(i % 17);
  /* gemm: 3 x 160^2 doubles (200 KiB each) */
  const int gn = 160;
  double* ga = malloc((size_t)gn * gn * sizeof(double));
  double* gb = malloc((size_t)gn * gn * sizeof(double));
  double* gc = calloc((size_t)gn * gn, sizeof(double));
  for (int i = 0; i < gn * gn; ++i) {
    ga[i] = (double)(i % 7);
    gb[i] = (double)(i % 5);
  }
  /* spmv: 100,000 rows x 8 random columns of a 4 MiB x */
  const int rows = 100000, per_row = 8, xn = 512 * 1024;
  double* val = malloc((size_t)rows * per_row * sizeof(double));
  int* col = malloc((size_t)rows * per_row * sizeof(int));
  int* rowptr = malloc((size_t)(rows + 1) * sizeof(int));
  double* x = malloc((size_t)xn * sizeof(double));
  double* y = malloc((size_t)rows * sizeof(double));
  uint64_t lcg = 12345;
  for (int r = 0; r <= rows; ++r) rowptr[r] = r * per_row;
  for (long k = 0; k < (long)rows * per_row; ++k) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    col[k] = (int)((lcg >> 33) % (uint64_t)xn);
    val[k] = 1.0 / (double)(k % 13 + 1);
  }
  for (int i = 0; i < xn; ++i) x[i] = (double)(i % 11);
  /* sweep: 1 MiB */
  const long wn = 128L * 1024;
  double* w = malloc(wn * sizeof(double));
  for (long i = 0; i < wn; ++i) w[i] = (double)(i % 3);

  for (int rep = 0; rep < 3 * scale; ++rep) {
    RPROF_BEGIN("triad");
    triad(ta, tb, tc, 3.0, tn);
    RPROF_END("triad");
  }
  for (int rep = 0; rep < 2 * scale; ++rep) {
    RPROF_BEGIN("stencil");
    stencil(g1, g0, sn);
    stencil(g0, g1, sn);
    RPROF_END("stencil");
  }
  for (int rep = 0; rep < scale; ++rep) {
    RPROF_BEGIN("gemm");
    gemm(gc, ga, gb, gn);
    RPROF_END("gemm");
  }
  for (int rep = 0; rep < 2 * scale; ++rep) {
    RPROF_BEGIN("spmv");
    spmv(y, val, col, rowptr, x, rows);
    RPROF_END("spmv");
  }
  for (int rep = 0; rep < 40 * scale; ++rep) {
    RPROF_BEGIN("sweep");
    sweep(w, wn);
    RPROF_END("sweep");
  }
  /* conflict: its L2 traffic piles onto L1 sets 8..11 (the block at column
   * 64 of 4 KiB-aligned rows); the matrix and the vector are touched just
   * before, so they stay in the L2 (128 KiB, 8 KiB): little traffic below. */
  double* m = aligned_alloc(4096, 32 * 512 * sizeof(double));
  double* u = aligned_alloc(4096, 1024 * sizeof(double));
  for (int i = 0; i < 32 * 512; ++i) m[i] = (double)(i % 9);
  for (int i = 0; i < 1024; ++i) u[i] = (double)(i % 5);
  double cs = 0;
  RPROF_BEGIN("conflict");
  for (int rep = 0; rep < 3000 * scale; ++rep) cs += conflict(m, u);
  RPROF_END("conflict");
  /* A region too short for sampled windows. */
  RPROF_BEGIN("tiny");
  triad(ta, tb, tc, 2.0, 64);
  RPROF_END("tiny");
  checksum = ta[tn / 2] + g0[sn * sn / 2] + gc[gn * gn / 2] + y[rows / 2] + w[wn / 2] + cs;
  printf("checksum %.6g\n", checksum);
  free(ta), free(tb), free(tc), free(g0), free(g1), free(ga), free(gb), free(gc);
  free(val), free(col), free(rowptr), free(x), free(y), free(w), free(m), free(u);
  return 0;
}
