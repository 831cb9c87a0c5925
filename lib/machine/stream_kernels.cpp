#include "machine/stream_kernels.h"

#include <immintrin.h>

#include <iterator>

namespace rprof {
namespace {

// The empty asm with a memory clobber keeps every pass: without it the
// compiler may notice that repeating a pass changes nothing.
#define RPROF_PASS_FENCE() asm volatile("" ::: "memory")

// 1.0, unknown to the compiler (the update and daxpy kernels' scale).
volatile double g_unit_scale = 1.0;

// Loads are folded with integer ORs (not FP adds) so the consumer runs on
// the integer vector pipes and never limits the load rate. The load loop is
// written in assembly: four OR-with-memory instructions, one pointer add and
// the loop branch, as likwid-bench's load kernels (which load into registers
// with no consumer). Compilers keep the four accumulators in registers but
// may add a register copy per accumulator and iteration (GCC 12 does at
// 512 bits), which cost about a tenth of the L1 load rate. n must be a non-zero
// multiple of 4 * STEP.
#define RPROF_STREAM_KERNELS(SUFFIX, TARGET, VI, VD, STEP, LOAD, STORE, CAST, OR, ZERO, FMA, \
                             STOREI, BYTES, ORMEM, VREG)                                 \
  __attribute__((target(TARGET))) double load_##SUFFIX(double* const* a, size_t n,        \
                                                       uint64_t passes) {                 \
    const double* const begin = a[0];                                                      \
    const double* const end = begin + n;                                                   \
    VI s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                                 \
    for (uint64_t r = 0; r < passes && n > 0; ++r) {                                       \
      const double* p = begin;                                                             \
      asm volatile(".p2align 5\n1:\n\t" ORMEM("0", "%[s0]") "\n\t"                                 \
                   ORMEM(#BYTES, "%[s1]") "\n\t"                                           \
                   ORMEM("2*" #BYTES, "%[s2]") "\n\t"                                      \
                   ORMEM("3*" #BYTES, "%[s3]") "\n\t"                                      \
                   "add $4*" #BYTES ", %[p]\n\t"                                           \
                   "cmp %[p], %[end]\n\t"                                                  \
                   "jne 1b"                                                                \
                   : [p] "+r"(p), [s0] "+" VREG(s0), [s1] "+" VREG(s1), [s2] "+" VREG(s2), \
                     [s3] "+" VREG(s3)                                                     \
                   : [end] "r"(end)                                                        \
                   : "cc", "memory");                                                      \
    }                                                                                      \
    alignas(64) unsigned char tmp[BYTES];                                                  \
    STOREI(reinterpret_cast<VI*>(tmp), OR(OR(s0, s1), OR(s2, s3)));                        \
    double sum = 0;                                                                        \
    for (unsigned char c : tmp) sum += c;                                                  \
    return sum;                                                                            \
  }                                                                                        \
  __attribute__((target(TARGET))) double copy_##SUFFIX(double* const* a, size_t n,        \
                                                       uint64_t passes) {                 \
    const double* src = a[0];                                                              \
    double* dst = a[1];                                                                    \
    for (uint64_t r = 0; r < passes; ++r) {                                                \
      for (size_t i = 0; i < n; i += 4 * STEP) {                                           \
        STORE(dst + i, LOAD(src + i));                                                     \
        STORE(dst + i + STEP, LOAD(src + i + STEP));                                       \
        STORE(dst + i + 2 * STEP, LOAD(src + i + 2 * STEP));                               \
        STORE(dst + i + 3 * STEP, LOAD(src + i + 3 * STEP));                               \
      }                                                                                    \
      RPROF_PASS_FENCE();                                                                  \
    }                                                                                      \
    return dst[n - 1];                                                                     \
  }                                                                                        \
  __attribute__((target(TARGET))) double triad_##SUFFIX(double* const* a, size_t n,       \
                                                        uint64_t passes) {                \
    double* x = a[0];                                                                      \
    const double *b = a[1], *c = a[2], *d = a[3];                                          \
    for (uint64_t r = 0; r < passes; ++r) {                                                \
      for (size_t i = 0; i < n; i += 4 * STEP) {                                           \
        for (size_t k = 0; k < 4 * STEP; k += STEP) {                                      \
          STORE(x + i + k, FMA(LOAD(b + i + k), LOAD(c + i + k), LOAD(d + i + k)));        \
        }                                                                                  \
      }                                                                                    \
      RPROF_PASS_FENCE();                                                                  \
    }                                                                                      \
    return x[n - 1];                                                                       \
  }

// The read-modify-write, multi-stream and non-temporal kernels. The scale
// comes through a volatile: a compiler that saw 1.0 could drop the multiply
// and then the store of the value just loaded.
#define RPROF_STREAM_KERNELS_RMW(SUFFIX, TARGET, VI, VD, STEP, LOAD, STORE, CAST, OR, ZERO,   \
                                 FMA, STOREI, BYTES, MUL, SET1, NTSTORE)                     \
  __attribute__((target(TARGET))) double update_##SUFFIX(double* const* a, size_t n,        \
                                                         uint64_t passes) {                 \
    double* x = a[0];                                                                        \
    const VD s = SET1(g_unit_scale);                                                         \
    for (uint64_t r = 0; r < passes; ++r) {                                                  \
      for (size_t i = 0; i < n; i += 4 * STEP) {                                             \
        for (size_t k = 0; k < 4 * STEP; k += STEP) STORE(x + i + k, MUL(LOAD(x + i + k), s)); \
      }                                                                                      \
      RPROF_PASS_FENCE();                                                                    \
    }                                                                                        \
    return x[n - 1];                                                                         \
  }                                                                                          \
  __attribute__((target(TARGET))) double daxpy_##SUFFIX(double* const* a, size_t n,         \
                                                        uint64_t passes) {                  \
    const double* x = a[0];                                                                  \
    double* y = a[1];                                                                        \
    const VD s = SET1(g_unit_scale);                                                         \
    for (uint64_t r = 0; r < passes; ++r) {                                                  \
      for (size_t i = 0; i < n; i += 4 * STEP) {                                             \
        for (size_t k = 0; k < 4 * STEP; k += STEP) {                                        \
          STORE(y + i + k, FMA(LOAD(x + i + k), s, LOAD(y + i + k)));                        \
        }                                                                                    \
      }                                                                                      \
      RPROF_PASS_FENCE();                                                                    \
    }                                                                                        \
    return y[n - 1];                                                                         \
  }                                                                                          \
  __attribute__((target(TARGET))) double streams_##SUFFIX(double* const* a, size_t n,       \
                                                          uint64_t passes) {                \
    VI s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                                   \
    for (uint64_t r = 0; r < passes; ++r) {                                                  \
      for (size_t i = 0; i < n; i += STEP) {                                                 \
        s0 = OR(s0, CAST(LOAD(a[0] + i)));                                                   \
        s1 = OR(s1, CAST(LOAD(a[1] + i)));                                                   \
        s2 = OR(s2, CAST(LOAD(a[2] + i)));                                                   \
        s3 = OR(s3, CAST(LOAD(a[3] + i)));                                                   \
        s0 = OR(s0, CAST(LOAD(a[4] + i)));                                                   \
        s1 = OR(s1, CAST(LOAD(a[5] + i)));                                                   \
        s2 = OR(s2, CAST(LOAD(a[6] + i)));                                                   \
        s3 = OR(s3, CAST(LOAD(a[7] + i)));                                                   \
      }                                                                                      \
      RPROF_PASS_FENCE();                                                                    \
    }                                                                                        \
    alignas(64) unsigned char tmp[BYTES];                                                    \
    STOREI(reinterpret_cast<VI*>(tmp), OR(OR(s0, s1), OR(s2, s3)));                          \
    double sum = 0;                                                                          \
    for (unsigned char c : tmp) sum += c;                                                    \
    return sum;                                                                              \
  }                                                                                          \
  __attribute__((target(TARGET))) double ntcopy_##SUFFIX(double* const* a, size_t n,        \
                                                         uint64_t passes) {                 \
    const double* src = a[0];                                                                \
    double* dst = a[1];                                                                      \
    for (uint64_t r = 0; r < passes; ++r) {                                                  \
      for (size_t i = 0; i < n; i += 4 * STEP) {                                             \
        for (size_t k = 0; k < 4 * STEP; k += STEP) NTSTORE(dst + i + k, LOAD(src + i + k));  \
      }                                                                                      \
      _mm_sfence();                                                                          \
      RPROF_PASS_FENCE();                                                                    \
    }                                                                                        \
    return dst[n - 1];                                                                       \
  }

#define RPROF_FMA_SSE2(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c)
// acc |= the vector at p + OFFSET bytes (AT&T syntax; SSE2 has no three-operand form).
#define RPROF_ORMEM_512(OFFSET, ACC) "vpord " OFFSET "(%[p]), " ACC ", " ACC
#define RPROF_ORMEM_256(OFFSET, ACC) "vpor " OFFSET "(%[p]), " ACC ", " ACC
#define RPROF_ORMEM_128(OFFSET, ACC) "por " OFFSET "(%[p]), " ACC
#define RPROF_VREG_512 "v"  // any of zmm0-31
#define RPROF_VREG_X "x"    // xmm/ymm0-15

RPROF_STREAM_KERNELS(512, "avx512f", __m512i, __m512d, 8, _mm512_load_pd, _mm512_store_pd,
                     _mm512_castpd_si512, _mm512_or_si512, _mm512_setzero_si512,
                     _mm512_fmadd_pd, _mm512_store_si512, 64, RPROF_ORMEM_512, RPROF_VREG_512)
RPROF_STREAM_KERNELS(256, "avx2,fma", __m256i, __m256d, 4, _mm256_load_pd, _mm256_store_pd,
                     _mm256_castpd_si256, _mm256_or_si256, _mm256_setzero_si256,
                     _mm256_fmadd_pd, _mm256_store_si256, 32, RPROF_ORMEM_256, RPROF_VREG_X)
RPROF_STREAM_KERNELS(128, "sse2", __m128i, __m128d, 2, _mm_load_pd, _mm_store_pd,
                     _mm_castpd_si128, _mm_or_si128, _mm_setzero_si128, RPROF_FMA_SSE2,
                     _mm_store_si128, 16, RPROF_ORMEM_128, RPROF_VREG_X)

RPROF_STREAM_KERNELS_RMW(512, "avx512f", __m512i, __m512d, 8, _mm512_load_pd, _mm512_store_pd,
                         _mm512_castpd_si512, _mm512_or_si512, _mm512_setzero_si512,
                         _mm512_fmadd_pd, _mm512_store_si512, 64, _mm512_mul_pd, _mm512_set1_pd,
                         _mm512_stream_pd)
RPROF_STREAM_KERNELS_RMW(256, "avx2,fma", __m256i, __m256d, 4, _mm256_load_pd, _mm256_store_pd,
                         _mm256_castpd_si256, _mm256_or_si256, _mm256_setzero_si256,
                         _mm256_fmadd_pd, _mm256_store_si256, 32, _mm256_mul_pd, _mm256_set1_pd,
                         _mm256_stream_pd)
RPROF_STREAM_KERNELS_RMW(128, "sse2", __m128i, __m128d, 2, _mm_load_pd, _mm_store_pd,
                         _mm_castpd_si128, _mm_or_si128, _mm_setzero_si128, RPROF_FMA_SSE2,
                         _mm_store_si128, 16, _mm_mul_pd, _mm_set1_pd, _mm_stream_pd)

#undef RPROF_STREAM_KERNELS
#undef RPROF_STREAM_KERNELS_RMW
#undef RPROF_FMA_SSE2
#undef RPROF_ORMEM_512
#undef RPROF_ORMEM_256
#undef RPROF_ORMEM_128
#undef RPROF_VREG_512
#undef RPROF_VREG_X

using KernelFn = double (*)(double* const*, size_t, uint64_t);

struct Isa {
  const char* name;
  size_t step;  // doubles per vector
  KernelFn fn[std::size(kStreamMixes)];  // by StreamMix
};

std::vector<Isa> supported() {
  std::vector<Isa> out;
  if (__builtin_cpu_supports("avx512f")) {
    out.push_back({"avx512f", 8,
                   {load_512, copy_512, triad_512, update_512, daxpy_512, streams_512,
                    ntcopy_512}});
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    out.push_back({"avx2,fma", 4,
                   {load_256, copy_256, triad_256, update_256, daxpy_256, streams_256,
                    ntcopy_256}});
  }
  out.push_back({"sse2", 2,
                 {load_128, copy_128, triad_128, update_128, daxpy_128, streams_128,
                  ntcopy_128}});
  return out;
}

Isa widest() { return supported().front(); }

StreamKernel kernel_of(const Isa& isa, StreamMix mix) {
  const KernelFn fn = isa.fn[static_cast<int>(mix)];
  const int loads = stream_loads(mix), stores = stream_stores(mix);
  switch (mix) {
    case StreamMix::kLoad:
      return {mix, isa.name, "read-only: OR-fold of a[i], 4 vector loads per iteration",
              1, loads, stores, 4 * isa.step, fn};
    case StreamMix::kCopy:
      return {mix, isa.name, "copy b[i] = a[i] (regular stores)", 2, loads, stores,
              4 * isa.step, fn};
    case StreamMix::kTriad:
      return {mix, isa.name, "triad a[i] = b[i]*c[i] + d[i] (regular stores)", 4, loads,
              stores, 4 * isa.step, fn};
    case StreamMix::kUpdate:
      return {mix, isa.name, "update a[i] = s*a[i] (read-modify-write, no write-allocate)", 1,
              loads, stores, 4 * isa.step, fn};
    case StreamMix::kDaxpy:
      return {mix, isa.name, "daxpy y[i] = s*x[i] + y[i] (read-modify-write of y)", 2, loads,
              stores, 4 * isa.step, fn};
    case StreamMix::kStreams:
      return {mix, isa.name, "read-only: OR-fold of 8 arrays read side by side", 8, loads,
              stores, 4 * isa.step, fn};
    case StreamMix::kNtCopy:
    default:
      return {mix, isa.name, "copy b[i] = a[i] (non-temporal stores: no write-allocate)", 2,
              loads, stores, 4 * isa.step, fn};
  }
}

}  // namespace

const char* stream_key(StreamMix m) {
  static const char* k[] = {"load", "copy", "triad", "update", "daxpy", "streams", "ntcopy"};
  return k[static_cast<int>(m)];
}

bool write_allocates(StreamMix m) { return m == StreamMix::kCopy || m == StreamMix::kTriad; }

int stream_loads(StreamMix m) {
  static const int k[] = {1, 1, 3, 1, 2, 8, 1};
  return k[static_cast<int>(m)];
}

int stream_stores(StreamMix m) {
  static const int k[] = {0, 1, 1, 1, 1, 0, 1};
  return k[static_cast<int>(m)];
}

double read_share(StreamMix m, bool l1_boundary) {
  const double loads = stream_loads(m), stores = stream_stores(m);
  const double reads = loads + (!l1_boundary && write_allocates(m) ? stores : 0);
  return reads / (reads + stores);
}

bool parse_stream_mix(const std::string& s, StreamMix& out) {
  for (StreamMix m : kStreamMixes) {
    if (s == stream_key(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

StreamKernel stream_kernel(StreamMix mix) { return kernel_of(widest(), mix); }

std::vector<StreamKernel> stream_kernel_variants(StreamMix mix) {
  std::vector<StreamKernel> out;
  for (const Isa& isa : supported()) out.push_back(kernel_of(isa, mix));
  return out;
}

}  // namespace rprof
