/* dot_chain: a dot product with one accumulator and with four, in L1.
 *
 * Usage: dot_chain [passes]   (default 50000 passes over 1,024 elements)
 * Built at -O2 without vectorization (-fno-tree-vectorize) and without
 * -ffast-math, so the compiler keeps each accumulator a chain of dependent
 * adds: "dot1" adds into one sum, one add per add latency (3-4 cycles on
 * current x86 cores), whatever the caches and FP units could do; "dot4"
 * splits it into four partial sums that overlap.
 * Expect: dot1 gets the dependency-chain verdict: its FP instructions (a
 * multiply and an add per element) retire at 2 per add latency per thread,
 * 2 FLOPs per element (2048 per pass, FMA = 2). dot4 runs about 2-4x its
 * rate (four chains, or the FP units' throughput where they give out first).
 * The arrays (16 KiB in all) fit any L1: memory is not the limit.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

__attribute__((noinline)) static double dot1(const double* x, const double* y) {
  double s = 0;
  for (int i = 0; i < N; ++i) s += x[i] * y[i];
  return s;
}

__attribute__((noinline)) static double dot4(const double* x, const double* y) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < N; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  return (s0 + s1) + (s2 + s3);
}

int main(int argc, char** argv) {
  const long passes = argc > 1 ? atol(argv[1]) : 50000;
  if (passes < 1) {
    fprintf(stderr, "dot_chain: passes must be a positive integer\n");
    return 2;
  }
  static double x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = 1.0 / (i + 1), y[i] = 0.5;
  double s = 0;
  /* The empty asm with a memory clobber says x and y may have changed: a
   * compiler that sees dot1 and dot4 read nothing else would call them once. */
  RPROF_BEGIN("dot1");
  for (long p = 0; p < passes; ++p) {
    s += dot1(x, y);
    __asm__ volatile("" ::: "memory");
  }
  RPROF_END("dot1");
  RPROF_BEGIN("dot4");
  for (long p = 0; p < passes; ++p) {
    s += dot4(x, y);
    __asm__ volatile("" ::: "memory");
  }
  RPROF_END("dot4");
  printf("dot_chain: passes=%ld s=%g\n", passes, s);
  return 0;
}
