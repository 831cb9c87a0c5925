/* The labelled set (docs/verdicts.md, tests/sim/test_verdict_kernels.cpp):
 * small kernels, each written to a known limit, one marked region each named
 * after the kernel. Sizes come from the command line (the test derives them
 * from the recorded machine's caches, never this host's).
 *
 * Usage: verdict_kernels KERNEL N [REPS]
 *   copy N REPS        c[i] = a[i]              (no FLOPs; DRAM-bound out of cache)
 *   triad N REPS       a[i] = b[i] + s * c[i]   (2 FLOPs / 32 bytes with write-allocate)
 *   spmv X REPS [ROWS] CSR y = A x, 8 random columns a row in [0, X), ROWS rows (4 X):
 *                      scalar, a load of x per 2 FLOPs (irregular access)
 *   chase N STEPS [EVICT]  dependent loads over N (up to a power of two) 64-byte
 *                      nodes; first EVICT bytes of other data written (the nodes
 *                      built last leave the caches: every step a miss)
 *   hash N             integer hash of N keys through a 4 KiB table (no FLOPs)
 *   matmul N           blocked N x N DP matrix multiply (C += A B), 32x32 blocks
 *   chain N            N dependent scalar x = x * a + b (mul then add, no FMA)
 *   fma N              N iterations of 12 independent 256-bit FMA chains (AVX2+FMA)
 *   sleep MS           the region sleeps MS milliseconds (off the CPU)
 *   omp_triad N REPS   triad in an OpenMP parallel for, the marker outside it
 *   lock MS            2 threads: the region waits MS ms on a mutex the other holds
 *   tiny N             the function view: a large function and a tiny one
 * Exit 2 on bad arguments; 3 when this CPU cannot run the kernel (fma). */
#include <immintrin.h>
#include <pthread.h>
#include <rprof/markers.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double* doubles(size_t n, double v) {
  double* p = aligned_alloc(64, ((n * sizeof(double) + 63) / 64) * 64);
  if (p == NULL) exit(2);
  for (size_t i = 0; i < n; ++i) p[i] = v;
  return p;
}

static uint64_t xorshift(uint64_t* x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static double copy(size_t n, long reps) {
  double *a = doubles(n, 1.0), *c = doubles(n, 0.0);
  RPROF_BEGIN("copy");
  for (long r = 0; r < reps; ++r) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i];
    __asm__ volatile("" ::: "memory");
  }
  RPROF_END("copy");
  return c[n / 2];
}

static double triad(size_t n, long reps) {
  double *a = doubles(n, 0.0), *b = doubles(n, 1.0), *c = doubles(n, 2.0);
  const double s = 3.0;
  RPROF_BEGIN("triad");
  for (long r = 0; r < reps; ++r) {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    __asm__ volatile("" ::: "memory");
  }
  RPROF_END("triad");
  return a[n / 2];
}

static double spmv(size_t x_len, long reps, size_t rows) {
  enum { kPerRow = 8 };
  const size_t nnz = rows * kPerRow;
  int* row = malloc((rows + 1) * sizeof(int));
  int* col = malloc(nnz * sizeof(int));
  double *val = doubles(nnz, 0.5), *x = doubles(x_len, 1.0), *y = doubles(rows, 0.0);
  if (row == NULL || col == NULL) exit(2);
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i <= rows; ++i) row[i] = (int)(i * kPerRow);
  for (size_t k = 0; k < nnz; ++k) col[k] = (int)(xorshift(&s) % x_len);
  RPROF_BEGIN("spmv");
  for (long r = 0; r < reps; ++r) {
    for (size_t i = 0; i < rows; ++i) {
      double sum = 0;
      for (int k = row[i]; k < row[i + 1]; ++k) sum += val[k] * x[col[k]];
      y[i] = sum;
    }
    __asm__ volatile("" ::: "memory");
  }
  RPROF_END("spmv");
  return y[rows / 2];
}

struct node {
  struct node* next;
  char pad[56]; /* one node per 64-byte line */
};

/* One cycle through all nodes without a shuffle (cheap to build under the
 * simulator): n a power of two, node i links to (a i + c) mod n, an LCG of
 * full period (c odd, a = 1 mod 4); consecutive nodes lie far apart, with no
 * constant stride for a prefetcher to follow. */
static double chase(size_t n, long steps, size_t evict) {
  size_t pow2 = 2;
  while (pow2 < n) pow2 *= 2;
  n = pow2;
  struct node* nodes = aligned_alloc(64, n * sizeof(struct node));
  if (nodes == NULL) exit(2);
  const size_t a = 6364136223846793005ull, c = 1442695040888963407ull;
  for (size_t i = 0; i < n; ++i) nodes[i].next = &nodes[(a * i + c) & (n - 1)];
  /* The nodes written last would stay in the LLC (a quarter of them at N 4
   * times its size): other lines take their place. */
  volatile char* other = evict ? malloc(evict) : NULL;
  for (size_t i = 0; other && i < evict; i += 64) other[i] = (char)i;
  struct node* p = &nodes[0];
  RPROF_BEGIN("chase");
  for (long k = 0; k < steps; ++k) p = p->next;
  RPROF_END("chase");
  free((void*)other);
  return (double)(uintptr_t)p;
}

static double hash(long n) {
  uint32_t table[1024];
  uint64_t s = 1;
  for (int i = 0; i < 1024; ++i) table[i] = (uint32_t)xorshift(&s);
  uint64_t h = 0;
  RPROF_BEGIN("hash");
  for (long k = 0; k < n; ++k) {
    uint64_t v = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    v ^= v >> 29;
    v *= 0xbf58476d1ce4e5b9ull;
    v ^= v >> 32;
    h = (h ^ v ^ table[(h ^ v) & 1023]) * 0x94d049bb133111ebull;
  }
  RPROF_END("hash");
  return (double)h;
}

static double matmul(size_t n) {
  enum { kB = 32 };
  double *a = doubles(n * n, 1.0), *b = doubles(n * n, 0.5), *c = doubles(n * n, 0.0);
  RPROF_BEGIN("matmul");
  for (size_t ii = 0; ii < n; ii += kB)
    for (size_t kk = 0; kk < n; kk += kB)
      for (size_t jj = 0; jj < n; jj += kB)
        for (size_t i = ii; i < ii + kB && i < n; ++i)
          for (size_t k = kk; k < kk + kB && k < n; ++k) {
            const double aik = a[i * n + k];
            for (size_t j = jj; j < jj + kB && j < n; ++j) c[i * n + j] += aik * b[k * n + j];
          }
  RPROF_END("matmul");
  return c[n + 1];
}

static double chain(long n) {
  volatile double va = 0.999999, vb = 1e-7;
  const double a = va, b = vb;
  double x = 1.0;
  RPROF_BEGIN("chain");
  for (long k = 0; k < n; ++k) {
    x = x * a;
    __asm__("" : "+x"(x)); /* keeps mul and add apart: no FMA contraction */
    x = x + b;
  }
  RPROF_END("chain");
  return x;
}

/* 12 accumulators in registers (named, not an array the compiler may keep
 * in memory): 12 independent FMA chains hide the FMA latency on 2 ports. */
#define RP_FMA12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
__attribute__((target("avx2,fma"))) static double fma_kernel(long n) {
  const __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-7);
#define RP_INIT(j) __m256d acc##j = _mm256_set1_pd(1.0 + j);
  RP_FMA12(RP_INIT)
  RPROF_BEGIN("fma");
  for (long k = 0; k < n; ++k) {
#define RP_STEP(j) acc##j = _mm256_fmadd_pd(acc##j, m, c);
    RP_FMA12(RP_STEP)
  }
  RPROF_END("fma");
  double out[4], sum = 0;
#define RP_SUM(j)                 \
  _mm256_storeu_pd(out, acc##j); \
  sum += out[0] + out[3];
  RP_FMA12(RP_SUM)
  return sum;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static double omp_triad(size_t n, long reps) {
  double *a = doubles(n, 0.0), *b = doubles(n, 1.0), *c = doubles(n, 2.0);
  RPROF_BEGIN("omp_triad");
  for (long r = 0; r < reps; ++r) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) a[i] = b[i] + 3.0 * c[i];
  }
  RPROF_END("omp_triad");
  return a[n / 2];
}

static pthread_mutex_t lock_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t lock_barrier;

static void* lock_holder(void* arg) {
  pthread_mutex_lock(&lock_mutex);
  pthread_barrier_wait(&lock_barrier);
  sleep_ms(*(long*)arg);
  pthread_mutex_unlock(&lock_mutex);
  return NULL;
}

static double lock_wait(long ms) {
  pthread_t t;
  pthread_barrier_init(&lock_barrier, NULL, 2);
  if (pthread_create(&t, NULL, lock_holder, &ms) != 0) exit(2);
  pthread_barrier_wait(&lock_barrier);
  RPROF_BEGIN("lock");
  pthread_mutex_lock(&lock_mutex); /* blocked until the holder lets go */
  pthread_mutex_unlock(&lock_mutex);
  RPROF_END("lock");
  pthread_join(t, NULL);
  return 0;
}

/* The function view: big() does nearly all the work, tiny() a few FLOPs. */
__attribute__((noinline)) static double tiny_fn(double x) { return x * 1.000001 + 1e-9; }
__attribute__((noinline)) static double big_fn(long n) {
  double s = 0;
  for (long k = 0; k < n; ++k) s += (double)k * 1e-9;
  return s;
}

static double tiny(long n) { return big_fn(n) + tiny_fn((double)n); }

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: verdict_kernels KERNEL N [REPS]\n");
    return 2;
  }
  const char* k = argv[1];
  const long n = atol(argv[2]);
  const long reps = argc > 3 ? atol(argv[3]) : 1;
  if (n <= 0 || reps <= 0) {
    fprintf(stderr, "verdict_kernels: N and REPS must be positive\n");
    return 2;
  }
  double out;
  if (!strcmp(k, "copy")) out = copy((size_t)n, reps);
  else if (!strcmp(k, "triad")) out = triad((size_t)n, reps);
  else if (!strcmp(k, "spmv")) out = spmv((size_t)n, reps, argc > 4 ? strtoull(argv[4], NULL, 10) : 4 * (size_t)n);
  else if (!strcmp(k, "chase")) out = chase((size_t)n, reps, argc > 4 ? strtoull(argv[4], NULL, 10) : 0);
  else if (!strcmp(k, "hash")) out = hash(n);
  else if (!strcmp(k, "matmul")) out = matmul((size_t)n);
  else if (!strcmp(k, "chain")) out = chain(n);
  else if (!strcmp(k, "fma")) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
      fprintf(stderr, "verdict_kernels: this CPU has no AVX2+FMA\n");
      return 3;
    }
    out = fma_kernel(n);
  } else if (!strcmp(k, "sleep")) {
    RPROF_BEGIN("sleep");
    sleep_ms(n);
    RPROF_END("sleep");
    out = 0;
  } else if (!strcmp(k, "omp_triad")) out = omp_triad((size_t)n, reps);
  else if (!strcmp(k, "lock")) out = lock_wait(n);
  else if (!strcmp(k, "tiny")) out = tiny(n);
  else {
    fprintf(stderr, "verdict_kernels: unknown kernel '%s'\n", k);
    return 2;
  }
  printf("%s: %g\n", k, out);
  return 0;
}
