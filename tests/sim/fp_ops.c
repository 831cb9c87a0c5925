/* Known instructions, each in its own region, run `n` times (inline assembly,
 * so the compiler cannot change them). The sim accuracy test checks that the
 * tool counts each exactly: FLOPs by precision and width (FMA = 2), one FP
 * instruction per instruction (addsub, packed FMA), and L1 bytes; and that a
 * region holding nothing but its markers counts nothing.
 *
 * Usage: fp_ops [n]   (default 1000)
 * Needs an x86-64 CPU with AVX2 and FMA (or Valgrind, which emulates them).
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#define LOOP(region, ...)                                 \
  do {                                                    \
    RPROF_BEGIN(region);                                  \
    for (long i_ = 0; i_ < n; ++i_) {                     \
      __asm__ volatile(__VA_ARGS__);                      \
    }                                                     \
    RPROF_END(region);                                    \
  } while (0)

#define XMM_CLOBBER : : : "xmm0", "xmm1", "xmm2"

static double buf[64] __attribute__((aligned(64)));

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000;
  double* p = buf;
  for (int i = 0; i < 64; ++i) buf[i] = 1.0 + i;
  __asm__ volatile("vxorpd %%ymm0,%%ymm0,%%ymm0\n\tvxorpd %%ymm1,%%ymm1,%%ymm1\n\t"
                   "vxorpd %%ymm2,%%ymm2,%%ymm2" ::: "xmm0", "xmm1", "xmm2");
  /* Scalar. */
  LOOP("mulsd", "mulsd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("addss", "addss %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("sqrtsd", "sqrtsd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("vfmadd231sd", "vfmadd231sd %%xmm2, %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("vfmadd231ss", "vfmadd231ss %%xmm2, %%xmm1, %%xmm0" XMM_CLOBBER);
  /* 128-bit. */
  LOOP("addpd", "addpd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("mulps", "mulps %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("maxpd", "maxpd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("addsubpd", "addsubpd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("haddpd", "haddpd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("vfmadd231pd_x", "vfmadd231pd %%xmm2, %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("vfnmsub231ps_x", "vfnmsub231ps %%xmm2, %%xmm1, %%xmm0" XMM_CLOBBER);
  /* 256-bit. */
  LOOP("vaddpd_y", "vaddpd %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vdivps_y", "vdivps %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vaddsubpd_y", "vaddsubpd %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vhaddpd_y", "vhaddpd %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vsqrtpd_y", "vsqrtpd %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vfmadd231pd_y", "vfmadd231pd %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vfmadd231ps_y", "vfmadd231ps %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  LOOP("vfmaddsub231pd_y", "vfmaddsub231pd %%ymm2, %%ymm1, %%ymm0" XMM_CLOBBER);
  /* Not FLOPs. */
  LOOP("andpd", "andpd %%xmm1, %%xmm0" XMM_CLOBBER);
  LOOP("cvtsi2sd", "cvtsi2sd %%eax, %%xmm0" XMM_CLOBBER);
  /* Memory: a 32-byte load and store, and a packed FMA with a memory operand. */
  LOOP("vmovupd_load", "vmovupd (%0), %%ymm0" : : "r"(p) : "xmm0");
  LOOP("vmovupd_store", "vmovupd %%ymm0, (%0)" : : "r"(p) : "xmm0", "memory");
  LOOP("vfmadd231pd_mem", "vfmadd231pd (%0), %%ymm1, %%ymm0" : : "r"(p) : "xmm0");
  LOOP("add_mem", "addq $1, (%0)" : : "r"(p) : "memory");
  /* Markers only: nothing of theirs may be counted. */
  for (long i = 0; i < n; ++i) {
    RPROF_BEGIN("empty");
    RPROF_END("empty");
  }
  /* A flush inside a region: the writer's work (formatting, open, write,
   * rename) is rprof's, not the region's. Twice: the second rewrites. */
  for (int i = 0; i < 2; ++i) {
    RPROF_BEGIN("flush");
    (void)rprof_flush();
    RPROF_END("flush");
  }
  printf("fp_ops: n=%ld\n", n);
  return 0;
}
