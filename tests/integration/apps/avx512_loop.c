/* A loop of AVX-512 instructions (zmm loads, an add, a store) inside a
 * region: what `g++ -O3 -march=native` makes of a vector loop on a CPU
 * with AVX-512. Built with -mavx512f; the tests read it without running it
 * where the CPU lacks AVX-512 (test_avx512_auto). */
#include <immintrin.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
  double* a = aligned_alloc(64, sizeof(double) * (size_t)n);
  double* b = aligned_alloc(64, sizeof(double) * (size_t)n);
  if (a == NULL || b == NULL) return 1;
  for (int i = 0; i < n; ++i) a[i] = b[i] = i;
  RPROF_BEGIN("add512");
  for (int i = 0; i + 8 <= n; i += 8) {
    const __m512d x = _mm512_load_pd(a + i);
    const __m512d y = _mm512_load_pd(b + i);
    _mm512_store_pd(a + i, _mm512_add_pd(x, y));
  }
  RPROF_END("add512");
  printf("avx512_loop: %g\n", a[n - 1]);
  free(a);
  free(b);
  return 0;
}
