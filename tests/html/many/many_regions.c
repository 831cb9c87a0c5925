/* A user program of many regions for the chart tests (tests/html): marked
 * kernels, the functions they call and their loops, so that the inst
 * backend reports functions, markers and loops at the same points, two loops
 * of one name (an inlined helper in two callers), single- and double-
 * precision roofs, scalar and vector code, and cache-resident kernels whose
 * DRAM traffic is a handful of bytes (an intensity far outside the others).
 * tests/html/many/README.md says how its recorded profile is made.
 *
 * Usage: many_regions REPS */
#include <stdio.h>
#include <stdlib.h>

#include <rprof/markers.h>

#define N (1 << 16)
#define M 64
static double a[N], b[N], c[N];
static float fa[N], fb[N];
static double A[M][M], B[M][M], C[M][M];

/* Inlined into two callers: two loop regions of the same name. */
static inline double sum_of(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}

__attribute__((noinline)) void daxpy(double s, int n) {
  for (int i = 0; i < n; ++i) a[i] = a[i] + s * b[i];
}

__attribute__((noinline)) void triad(double s, int n) {
  for (int i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

__attribute__((noinline)) double dot(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) float sdot(int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += fa[i] * fb[i];
  return s;
}

__attribute__((noinline)) void saxpy(float s, int n) {
  for (int i = 0; i < n; ++i) fa[i] = fa[i] + s * fb[i];
}

__attribute__((noinline)) void matmul_naive(void) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      double s = 0;
      for (int k = 0; k < M; ++k) s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}

__attribute__((noinline)) void matmul_ikj(void) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < M; ++k) {
      const double x = A[i][k];
      for (int j = 0; j < M; ++j) C[i][j] += x * B[k][j];
    }
}

__attribute__((noinline)) void stencil(int n) {
  for (int i = 1; i < n - 1; ++i) c[i] = 0.25 * (a[i - 1] + 2 * a[i] + a[i + 1]);
}

__attribute__((noinline)) double poly(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double x = b[i];
    s += ((((x * 0.5 + 1.0) * x + 2.0) * x + 3.0) * x + 4.0) * x;
  }
  return s;
}

__attribute__((noinline)) double reduce_a(void) { return sum_of(a, N); }
__attribute__((noinline)) double reduce_c(void) { return sum_of(c, N / 4); }

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 20;
  for (int i = 0; i < N; ++i) {
    a[i] = 1.0 / (i + 1);
    b[i] = 2.0;
    c[i] = 0.5;
    fa[i] = 1.0f;
    fb[i] = 0.5f;
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) A[i][j] = B[i][j] = 1.0 / (i + j + 1);
  double t = 0;
  for (int r = 0; r < reps; ++r) {
    RPROF_BEGIN("daxpy");
    daxpy(1.0001, N);
    RPROF_END("daxpy");
    RPROF_BEGIN("triad");
    triad(0.5, N);
    RPROF_END("triad");
    RPROF_BEGIN("dot_l1");
    for (int k = 0; k < 64; ++k) t += dot(1024);
    RPROF_END("dot_l1");
    RPROF_BEGIN("dot_dram");
    t += dot(N);
    RPROF_END("dot_dram");
    RPROF_BEGIN("single");
    t += sdot(N);
    saxpy(0.25f, N);
    RPROF_END("single");
    RPROF_BEGIN("matmul");
    matmul_naive();
    matmul_ikj();
    RPROF_END("matmul");
    RPROF_BEGIN("stencil");
    stencil(N);
    RPROF_END("stencil");
    RPROF_BEGIN("poly");
    t += poly(N);
    RPROF_END("poly");
    RPROF_BEGIN("reduce");
    t += reduce_a() + reduce_c();
    RPROF_END("reduce");
  }
  printf("%g %g\n", t, C[1][2]);
  return 0;
}
