/* An unannotated program whose functions do known work, for the function view
 * (test_sim_functions): built -O2 -g without rprof (functions_plain), stripped
 * of every symbol (functions_stripped), and with rprof markers around the
 * second half of main (functions_marked: RPROF_ENABLE).
 *
 * Usage: functions N   (N a multiple of 8)
 *   dot(x, y, N)          2N FLOPs, scalar double (a multiply and an add each)
 *   scale8(f, N)          N FLOPs, 256-bit single (N/8 vmulps ymm), AVX2 only
 *   sum_f(f, N)           N FLOPs, scalar single
 *   dot_and_sum(...)      1 FLOP of its own (a double add), calls dot and sum_f
 * main calls dot, scale8 (where the CPU has AVX2), sum_f, then dot_and_sum
 * (inside the region "phase" in the marked build). Data is initialised with
 * integer arithmetic (int -> floating conversions are not FLOPs).
 */
#include <immintrin.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE double dot(const double* x, const double* y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

NOINLINE __attribute__((target("avx2"))) void scale8(float* f, int n) {
  const __m256 k = _mm256_set1_ps(1.5f);
  for (int i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(f + i, _mm256_mul_ps(_mm256_loadu_ps(f + i), k));
}

NOINLINE float sum_f(const float* f, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += f[i];
  return s;
}

NOINLINE double dot_and_sum(const double* x, const double* y, const float* f, int n) {
  return dot(x, y, n) + (double)sum_f(f, n);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096;
  double* x = malloc(sizeof(double) * (size_t)n);
  double* y = malloc(sizeof(double) * (size_t)n);
  float* f = malloc(sizeof(float) * (size_t)n);
  if (n <= 0 || n % 8 != 0 || !x || !y || !f) return 2;
  for (int i = 0; i < n; i++) {
    x[i] = (double)(i % 7 + 1);
    y[i] = (double)(i % 5 + 1);
    f[i] = (float)(i % 3 + 1);
  }
  double r = dot(x, y, n);
  const int avx2 = __builtin_cpu_supports("avx2");
  if (avx2) scale8(f, n);
  r += (double)sum_f(f, n);  /* one add in main */
  RPROF_BEGIN("phase");
  r += dot_and_sum(x, y, f, n); /* and one more */
  RPROF_END("phase");
  printf("functions: %s %.1f\n", avx2 ? "avx2" : "no-avx2", r);
  free(x);
  free(y);
  free(f);
  return 0;
}
