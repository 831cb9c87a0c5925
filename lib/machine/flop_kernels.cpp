#include "machine/flop_kernels.h"

#include <immintrin.h>

#include <cstring>

namespace rprof {
namespace {

// With 16 vector registers (SSE, AVX2) the FMA + add kernel keeps 4 add
// chains, with 32 (AVX-512) 6: more would spill to the stack.
#define RPROF_NARROW(...)
#define RPROF_WIDE(...) __VA_ARGS__

// Chains start from distinct run-time values: identical chains would be
// merged by the compiler (common subexpressions) and the count would lie.
// a = a*x + y converges to y/(1-x) and m*x*(1/x) stays put, so values never
// overflow or turn denormal however long a kernel runs.
#define RPROF_FLOP_KERNELS(SUFFIX, TARGET, VT, ELEM, SET1, FMADD, ADD, SUB, MUL, STOREU, X) \
  __attribute__((target(TARGET))) double sum_##SUFFIX(VT v) {                           \
    alignas(64) ELEM tmp[64 / sizeof(ELEM)] = {};                                      \
    STOREU(tmp, v);                                                                     \
    double s = 0;                                                                       \
    for (ELEM t : tmp) s += static_cast<double>(t);                                     \
    return s;                                                                           \
  }                                                                                     \
  __attribute__((target(TARGET))) double fma_##SUFFIX(uint64_t iters, double seed) {    \
    const VT x = SET1(static_cast<ELEM>(0.9999999)), y = SET1(static_cast<ELEM>(1e-7)); \
    VT a[12];                                                                           \
    for (int k = 0; k < 12; ++k) a[k] = SET1(static_cast<ELEM>(seed + 0.01 * k));       \
    VT a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];                \
    VT a6 = a[6], a7 = a[7], a8 = a[8], a9 = a[9], a10 = a[10], a11 = a[11];            \
    for (uint64_t i = 0; i < iters; ++i) {                                              \
      a0 = FMADD(a0, x, y); a1 = FMADD(a1, x, y); a2 = FMADD(a2, x, y);                 \
      a3 = FMADD(a3, x, y); a4 = FMADD(a4, x, y); a5 = FMADD(a5, x, y);                 \
      a6 = FMADD(a6, x, y); a7 = FMADD(a7, x, y); a8 = FMADD(a8, x, y);                 \
      a9 = FMADD(a9, x, y); a10 = FMADD(a10, x, y); a11 = FMADD(a11, x, y);             \
    }                                                                                   \
    a0 = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));              \
    return sum_##SUFFIX(ADD(a0, ADD(ADD(a8, a9), ADD(a10, a11))));                      \
  }                                                                                     \
  __attribute__((target(TARGET))) double addmul_##SUFFIX(uint64_t iters, double seed) { \
    const VT x = SET1(static_cast<ELEM>(1.0001)), xi = SET1(static_cast<ELEM>(1 / 1.0001)); \
    const VT y = SET1(static_cast<ELEM>(1e-3));                                        \
    VT a[12];                                                                           \
    for (int k = 0; k < 12; ++k) a[k] = SET1(static_cast<ELEM>(seed + 0.01 * k));       \
    VT m0 = a[0], m1 = a[1], m2 = a[2], m3 = a[3], m4 = a[4], m5 = a[5];                \
    VT s0 = a[6], s1 = a[7], s2 = a[8], s3 = a[9], s4 = a[10], s5 = a[11];              \
    for (uint64_t i = 0; i < iters; ++i) {                                              \
      m0 = MUL(m0, x); s0 = ADD(s0, y); m1 = MUL(m1, x); s1 = ADD(s1, y);               \
      m2 = MUL(m2, x); s2 = ADD(s2, y); m3 = MUL(m3, x); s3 = ADD(s3, y);               \
      m4 = MUL(m4, x); s4 = ADD(s4, y); m5 = MUL(m5, x); s5 = ADD(s5, y);               \
      m0 = MUL(m0, xi); s0 = SUB(s0, y); m1 = MUL(m1, xi); s1 = SUB(s1, y);             \
      m2 = MUL(m2, xi); s2 = SUB(s2, y); m3 = MUL(m3, xi); s3 = SUB(s3, y);             \
      m4 = MUL(m4, xi); s4 = SUB(s4, y); m5 = MUL(m5, xi); s5 = SUB(s5, y);             \
    }                                                                                   \
    m0 = ADD(ADD(ADD(m0, m1), ADD(m2, m3)), ADD(ADD(m4, m5), ADD(s0, s1)));              \
    return sum_##SUFFIX(ADD(m0, ADD(ADD(s2, s3), ADD(s4, s5))));                        \
  }                                                                                     \
  __attribute__((target(TARGET))) double fmaadd_##SUFFIX(uint64_t iters, double seed) { \
    const VT x = SET1(static_cast<ELEM>(0.9999999)), y = SET1(static_cast<ELEM>(1e-7)); \
    VT a[14];                                                                           \
    for (int k = 0; k < 14; ++k) a[k] = SET1(static_cast<ELEM>(seed + 0.01 * k));       \
    VT a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];                \
    VT a6 = a[6], a7 = a[7], s0 = a[8], s1 = a[9], s2 = a[10], s3 = a[11];              \
    VT s4 = a[12], s5 = a[13];                                                          \
    for (uint64_t i = 0; i < iters; ++i) {                                              \
      a0 = FMADD(a0, x, y); a1 = FMADD(a1, x, y); a2 = FMADD(a2, x, y);                 \
      a3 = FMADD(a3, x, y); s0 = ADD(s0, y); s1 = ADD(s1, y); X(s2 = ADD(s2, y);)       \
      a4 = FMADD(a4, x, y); a5 = FMADD(a5, x, y); a6 = FMADD(a6, x, y);                 \
      a7 = FMADD(a7, x, y); s3 = ADD(s3, y); s4 = ADD(s4, y); X(s5 = ADD(s5, y);)       \
      a0 = FMADD(a0, x, y); a1 = FMADD(a1, x, y); a2 = FMADD(a2, x, y);                 \
      a3 = FMADD(a3, x, y); s0 = SUB(s0, y); s1 = SUB(s1, y); X(s2 = SUB(s2, y);)       \
      a4 = FMADD(a4, x, y); a5 = FMADD(a5, x, y); a6 = FMADD(a6, x, y);                 \
      a7 = FMADD(a7, x, y); s3 = SUB(s3, y); s4 = SUB(s4, y); X(s5 = SUB(s5, y);)       \
    }                                                                                   \
    a0 = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));              \
    a0 = ADD(a0, ADD(ADD(s0, s1), ADD(s2, s3)));                                        \
    return sum_##SUFFIX(ADD(a0, ADD(s4, s5)));                                          \
  }

RPROF_FLOP_KERNELS(dp_scalar, "fma", __m128d, double, _mm_set1_pd, _mm_fmadd_sd, _mm_add_sd,
                   _mm_sub_sd, _mm_mul_sd, _mm_storeu_pd, RPROF_NARROW)
RPROF_FLOP_KERNELS(sp_scalar, "fma", __m128, float, _mm_set1_ps, _mm_fmadd_ss, _mm_add_ss,
                   _mm_sub_ss, _mm_mul_ss, _mm_storeu_ps, RPROF_NARROW)
RPROF_FLOP_KERNELS(dp_128, "fma", __m128d, double, _mm_set1_pd, _mm_fmadd_pd, _mm_add_pd,
                   _mm_sub_pd, _mm_mul_pd, _mm_storeu_pd, RPROF_NARROW)
RPROF_FLOP_KERNELS(sp_128, "fma", __m128, float, _mm_set1_ps, _mm_fmadd_ps, _mm_add_ps,
                   _mm_sub_ps, _mm_mul_ps, _mm_storeu_ps, RPROF_NARROW)
RPROF_FLOP_KERNELS(dp_256, "avx2,fma", __m256d, double, _mm256_set1_pd, _mm256_fmadd_pd,
                   _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_storeu_pd, RPROF_NARROW)
RPROF_FLOP_KERNELS(sp_256, "avx2,fma", __m256, float, _mm256_set1_ps, _mm256_fmadd_ps,
                   _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_storeu_ps, RPROF_NARROW)
RPROF_FLOP_KERNELS(dp_512, "avx512f", __m512d, double, _mm512_set1_pd, _mm512_fmadd_pd,
                   _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd, _mm512_storeu_pd, RPROF_WIDE)
RPROF_FLOP_KERNELS(sp_512, "avx512f", __m512, float, _mm512_set1_ps, _mm512_fmadd_ps,
                   _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps, _mm512_storeu_ps, RPROF_WIDE)

// Add/mul kernels without FMA, for CPUs that have SSE2/AVX but no FMA: the
// same chains, compiled for the older instruction set.
#define RPROF_ADDMUL_ONLY(SUFFIX, TARGET, VT, ELEM, SET1, ADD, SUB, MUL, STOREU)       \
  __attribute__((target(TARGET))) double sum_nofma_##SUFFIX(VT v) {                    \
    alignas(64) ELEM tmp[64 / sizeof(ELEM)] = {};                                      \
    STOREU(tmp, v);                                                                     \
    double s = 0;                                                                       \
    for (ELEM t : tmp) s += static_cast<double>(t);                                     \
    return s;                                                                           \
  }                                                                                     \
  __attribute__((target(TARGET))) double addmul_nofma_##SUFFIX(uint64_t iters, double seed) { \
    const VT x = SET1(static_cast<ELEM>(1.0001)), xi = SET1(static_cast<ELEM>(1 / 1.0001)); \
    const VT y = SET1(static_cast<ELEM>(1e-3));                                        \
    VT a[12];                                                                           \
    for (int k = 0; k < 12; ++k) a[k] = SET1(static_cast<ELEM>(seed + 0.01 * k));       \
    VT m0 = a[0], m1 = a[1], m2 = a[2], m3 = a[3], m4 = a[4], m5 = a[5];                \
    VT s0 = a[6], s1 = a[7], s2 = a[8], s3 = a[9], s4 = a[10], s5 = a[11];              \
    for (uint64_t i = 0; i < iters; ++i) {                                              \
      m0 = MUL(m0, x); s0 = ADD(s0, y); m1 = MUL(m1, x); s1 = ADD(s1, y);               \
      m2 = MUL(m2, x); s2 = ADD(s2, y); m3 = MUL(m3, x); s3 = ADD(s3, y);               \
      m4 = MUL(m4, x); s4 = ADD(s4, y); m5 = MUL(m5, x); s5 = ADD(s5, y);               \
      m0 = MUL(m0, xi); s0 = SUB(s0, y); m1 = MUL(m1, xi); s1 = SUB(s1, y);             \
      m2 = MUL(m2, xi); s2 = SUB(s2, y); m3 = MUL(m3, xi); s3 = SUB(s3, y);             \
      m4 = MUL(m4, xi); s4 = SUB(s4, y); m5 = MUL(m5, xi); s5 = SUB(s5, y);             \
    }                                                                                   \
    m0 = ADD(ADD(ADD(m0, m1), ADD(m2, m3)), ADD(ADD(m4, m5), ADD(s0, s1)));              \
    return sum_nofma_##SUFFIX(ADD(m0, ADD(ADD(s2, s3), ADD(s4, s5))));                  \
  }

RPROF_ADDMUL_ONLY(dp_scalar, "sse2", __m128d, double, _mm_set1_pd, _mm_add_sd, _mm_sub_sd,
                  _mm_mul_sd, _mm_storeu_pd)
RPROF_ADDMUL_ONLY(sp_scalar, "sse2", __m128, float, _mm_set1_ps, _mm_add_ss, _mm_sub_ss,
                  _mm_mul_ss, _mm_storeu_ps)
RPROF_ADDMUL_ONLY(dp_128, "sse2", __m128d, double, _mm_set1_pd, _mm_add_pd, _mm_sub_pd,
                  _mm_mul_pd, _mm_storeu_pd)
RPROF_ADDMUL_ONLY(sp_128, "sse2", __m128, float, _mm_set1_ps, _mm_add_ps, _mm_sub_ps,
                  _mm_mul_ps, _mm_storeu_ps)
RPROF_ADDMUL_ONLY(dp_256, "avx", __m256d, double, _mm256_set1_pd, _mm256_add_pd,
                  _mm256_sub_pd, _mm256_mul_pd, _mm256_storeu_pd)
RPROF_ADDMUL_ONLY(sp_256, "avx", __m256, float, _mm256_set1_ps, _mm256_add_ps,
                  _mm256_sub_ps, _mm256_mul_ps, _mm256_storeu_ps)

#undef RPROF_FLOP_KERNELS
#undef RPROF_NARROW
#undef RPROF_WIDE
#undef RPROF_ADDMUL_ONLY

struct Entry {
  Precision p;
  Width w;
  const char* isa_fma;     // ISA of the FMA kernels (checked at run time)
  const char* isa_addmul;  // ISA of the add/mul kernel without FMA
  double (*fma)(uint64_t, double);
  double (*addmul)(uint64_t, double);
  double (*fmaadd)(uint64_t, double);
  double (*addmul_nofma)(uint64_t, double);
};

bool cpu_has(const char* isa) {
  // __builtin_cpu_supports needs a literal; "avx2,fma" means both.
  if (std::strcmp(isa, "sse2") == 0) return __builtin_cpu_supports("sse2");
  if (std::strcmp(isa, "avx") == 0) return __builtin_cpu_supports("avx");
  if (std::strcmp(isa, "fma") == 0) return __builtin_cpu_supports("fma");
  if (std::strcmp(isa, "avx2,fma") == 0) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  if (std::strcmp(isa, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  return false;
}

}  // namespace

const char* mix_key(FlopMix m) {
  static const char* k[] = {"fma", "addmul", "fma_add"};
  return k[static_cast<int>(m)];
}

bool parse_mix(const std::string& s, FlopMix& out) {
  for (FlopMix m : {FlopMix::kFma, FlopMix::kAddMul, FlopMix::kFmaAdd}) {
    if (s == mix_key(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

std::vector<FlopKernel> flop_kernels() {
  const Entry entries[] = {
      {Precision::kDP, Width::kScalar, "fma", "sse2", fma_dp_scalar, addmul_dp_scalar,
       fmaadd_dp_scalar, addmul_nofma_dp_scalar},
      {Precision::kSP, Width::kScalar, "fma", "sse2", fma_sp_scalar, addmul_sp_scalar,
       fmaadd_sp_scalar, addmul_nofma_sp_scalar},
      {Precision::kDP, Width::k128, "fma", "sse2", fma_dp_128, addmul_dp_128, fmaadd_dp_128,
       addmul_nofma_dp_128},
      {Precision::kSP, Width::k128, "fma", "sse2", fma_sp_128, addmul_sp_128, fmaadd_sp_128,
       addmul_nofma_sp_128},
      {Precision::kDP, Width::k256, "avx2,fma", "avx", fma_dp_256, addmul_dp_256,
       fmaadd_dp_256, addmul_nofma_dp_256},
      {Precision::kSP, Width::k256, "avx2,fma", "avx", fma_sp_256, addmul_sp_256,
       fmaadd_sp_256, addmul_nofma_sp_256},
      {Precision::kDP, Width::k512, "avx512f", "avx512f", fma_dp_512, addmul_dp_512,
       fmaadd_dp_512, addmul_dp_512},
      {Precision::kSP, Width::k512, "avx512f", "avx512f", fma_sp_512, addmul_sp_512,
       fmaadd_sp_512, addmul_sp_512},
  };
  std::vector<FlopKernel> out;
  for (const Entry& e : entries) {
    const double l = lanes(e.p, e.w);
    // add/mul: plain SSE2/AVX code, valid wherever that ISA runs.
    if (cpu_has(e.isa_addmul)) {
      const bool is512 = e.w == Width::k512;
      out.push_back({e.p, e.w, FlopMix::kAddMul, e.isa_addmul,
                     "6 multiply + 6 add independent chains (x, 1/x and +y, -y)",
                     24 * l, is512 ? e.addmul : e.addmul_nofma});
    }
    if (cpu_has(e.isa_fma)) {
      out.push_back({e.p, e.w, FlopMix::kFma, e.isa_fma,
                     "12 independent FMA chains a = a*x + y", 12 * 2 * l, e.fma});
      out.push_back({e.p, e.w, FlopMix::kFmaAdd, e.isa_fma,
                     e.w == Width::k512
                         ? "8 FMA chains interleaved with 6 add chains (16 FMA + 12 add)"
                         : "8 FMA chains interleaved with 4 add chains (16 FMA + 8 add)",
                     (16 * 2 + (e.w == Width::k512 ? 12 : 8)) * l, e.fmaadd});
    }
  }
  return out;
}

}  // namespace rprof
