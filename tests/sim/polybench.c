/* PolyBench-style kernels (written for rprof, not PolyBench's code), each in
 * its own region, for test_sim_polybench: built at -O0 so that the machine
 * code does every floating-point operation the source writes, once. The test
 * derives each kernel's FLOPs from the source (FMA = 2, one per + - * /) and
 * the sizes it passes, and requires the simulator's count to equal it.
 *
 * Usage: polybench KERNEL=d1[,d2[,d3]] ...   e.g. gemm=20,22,24 trisolv=40
 *   gemm=ni,nj,nk     C = alpha*A*B + beta*C        ni*nj + 3*ni*nj*nk
 *   2mm=ni,nj,nk,nl   D = alpha*A*B*C + beta*D      3*ni*nj*nk + ni*nl + 2*ni*nl*nj
 *   atax=m,n          y = A^T (A x)                 4*m*n
 *   mvt=n             x1 += A y1, x2 += A^T y2      4*n*n
 *   syrk=n,m          C = alpha*A*A^T + beta*C (lower triangle)  n(n+1)/2 * (1 + 3m)
 *   jacobi1d=t,n      t steps of two 3-point sweeps              6*t*(n-2)
 *   jacobi2d=t,n      t steps of two 5-point sweeps              10*t*(n-2)^2
 *   trisolv=n         forward substitution L x = b               n*n
 * Data is initialised outside the regions with integer arithmetic only.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double* arr(int n) {
  double* p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (p == NULL) exit(1);
  for (int i = 0; i < n; i++) p[i] = (double)(i % 13 + 1); /* int -> double: not a FLOP */
  return p;
}

static void gemm(int ni, int nj, int nk, double alpha, double beta) {
  double *A = arr(ni * nk), *B = arr(nk * nj), *C = arr(ni * nj);
  RPROF_BEGIN("gemm");
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) C[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
  }
  RPROF_END("gemm");
}

static void mm2(int ni, int nj, int nk, int nl, double alpha, double beta) {
  double *A = arr(ni * nk), *B = arr(nk * nj), *C = arr(nj * nl), *D = arr(ni * nl);
  double* tmp = arr(ni * nj);
  RPROF_BEGIN("2mm");
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      tmp[i * nj + j] = 0.0;
      for (int k = 0; k < nk; k++) tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      D[i * nl + j] *= beta;
      for (int k = 0; k < nj; k++) D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
  RPROF_END("2mm");
}

static void atax(int m, int n) {
  double *A = arr(m * n), *x = arr(n), *y = arr(n), *tmp = arr(m);
  RPROF_BEGIN("atax");
  for (int i = 0; i < n; i++) y[i] = 0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++) tmp[i] = tmp[i] + A[i * n + j] * x[j];
    for (int j = 0; j < n; j++) y[j] = y[j] + A[i * n + j] * tmp[i];
  }
  RPROF_END("atax");
}

static void mvt(int n) {
  double *A = arr(n * n), *x1 = arr(n), *x2 = arr(n), *y1 = arr(n), *y2 = arr(n);
  RPROF_BEGIN("mvt");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) x1[i] = x1[i] + A[i * n + j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) x2[i] = x2[i] + A[j * n + i] * y2[j];
  RPROF_END("mvt");
}

static void syrk(int n, int m, double alpha, double beta) {
  double *A = arr(n * m), *C = arr(n * n);
  RPROF_BEGIN("syrk");
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) C[i * n + j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++) C[i * n + j] += alpha * A[i * m + k] * A[j * m + k];
  }
  RPROF_END("syrk");
}

static void jacobi1d(int t, int n) {
  double *A = arr(n), *B = arr(n);
  RPROF_BEGIN("jacobi1d");
  for (int s = 0; s < t; s++) {
    for (int i = 1; i < n - 1; i++) B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++) A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
  RPROF_END("jacobi1d");
}

static void jacobi2d(int t, int n) {
  double *A = arr(n * n), *B = arr(n * n);
  RPROF_BEGIN("jacobi2d");
  for (int s = 0; s < t; s++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                              A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i * n + j] = 0.2 * (B[i * n + j] + B[i * n + j - 1] + B[i * n + j + 1] +
                              B[(i + 1) * n + j] + B[(i - 1) * n + j]);
  }
  RPROF_END("jacobi2d");
}

static void trisolv(int n) {
  double *L = arr(n * n), *x = arr(n), *b = arr(n);
  RPROF_BEGIN("trisolv");
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i * n + j] * x[j];
    x[i] = x[i] / L[i * n + i];
  }
  RPROF_END("trisolv");
}

int main(int argc, char** argv) {
  for (int a = 1; a < argc; a++) {
    char name[16];
    int d[4] = {0, 0, 0, 0};
    if (sscanf(argv[a], "%15[^=]=%d,%d,%d,%d", name, &d[0], &d[1], &d[2], &d[3]) < 2) {
      fprintf(stderr, "polybench: bad argument '%s' (want KERNEL=d1,d2,...)\n", argv[a]);
      return 2;
    }
    if (strcmp(name, "gemm") == 0) gemm(d[0], d[1], d[2], 1.5, 1.2);
    else if (strcmp(name, "2mm") == 0) mm2(d[0], d[1], d[2], d[3], 1.5, 1.2);
    else if (strcmp(name, "atax") == 0) atax(d[0], d[1]);
    else if (strcmp(name, "mvt") == 0) mvt(d[0]);
    else if (strcmp(name, "syrk") == 0) syrk(d[0], d[1], 1.5, 1.2);
    else if (strcmp(name, "jacobi1d") == 0) jacobi1d(d[0], d[1]);
    else if (strcmp(name, "jacobi2d") == 0) jacobi2d(d[0], d[1]);
    else if (strcmp(name, "trisolv") == 0) trisolv(d[0]);
    else {
      fprintf(stderr, "polybench: unknown kernel '%s'\n", name);
      return 2;
    }
  }
  printf("polybench: %d kernels\n", argc - 1);
  return 0;
}
