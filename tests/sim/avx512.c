/* One AVX-512 (EVEX-encoded) instruction inside a region. Valgrind 3.19
 * cannot decode it; rprof --backend=sim must say how to rebuild. Not run
 * natively by the tests (the CPU may lack AVX-512).
 */
#include <rprof/markers.h>
#include <stdio.h>

int main(void) {
  RPROF_BEGIN("avx512");
  __asm__ volatile("vaddpd %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
  RPROF_END("avx512");
  printf("avx512: done\n");
  return 0;
}
