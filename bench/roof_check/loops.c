/* STREAM-like loops, each in its own marked region, for bench/roof_check.sh:
 * copy, scale, add, triad, daxpy and sum over arrays of doubles, at two
 * sizes: out of cache (each array 4x the largest cache the machine reports,
 * at least 64 MiB) and in L2 (the three arrays together half the L2), each
 * with 1 thread and with every CPU (OpenMP). No loop should measure above
 * any roof of `rprof machine` on the machine it runs on.
 *
 * Regions are named at run time, so the C API (rprof_begin/rprof_end), not
 * the per-site macros, marks them.
 *
 * Usage: loops [passes]   (default 10; the in-L2 loops repeat 100x more) */
#include <rprof/rprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static size_t cache_bytes(int level) {
  long v = -1;
  switch (level) {
    case 2: v = sysconf(_SC_LEVEL2_CACHE_SIZE); break;
    default: v = sysconf(_SC_LEVEL3_CACHE_SIZE); break;
  }
  if (v <= 0 && level == 3) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return v > 0 ? (size_t)v : (size_t)1 << 20;
}

static double* array(size_t n) {
  double* p = NULL;
  if (posix_memalign((void**)&p, 64, n * sizeof(double)) != 0) {
    fprintf(stderr, "loops: out of memory\n");
    exit(1);
  }
  return p;
}

#define LOOP(NAME, BODY, REPS)                                 \
  do {                                                         \
    rprof_begin(NAME);                                         \
    for (int r_ = 0; r_ < (REPS); ++r_) {                      \
      _Pragma("omp parallel for num_threads(threads) schedule(static)") \
      for (size_t i = 0; i < n; ++i) BODY;                     \
      __asm__ volatile("" ::: "memory");                       \
    }                                                          \
    rprof_end(NAME);                                           \
  } while (0)

static double run(const char* where, size_t n, int reps, int threads) {
  double *a = array(n), *b = array(n), *c = array(n);
  /* First touch by the threads that will stream them. */
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
  const double s = 0.999;
  double sum = 0;
  char name[96];
#define NAMED(K) (snprintf(name, sizeof name, "%s %s %dt", K, where, threads), name)
  LOOP(NAMED("copy"), c[i] = a[i], reps);
  LOOP(NAMED("scale"), b[i] = s * c[i], reps);
  LOOP(NAMED("add"), c[i] = a[i] + b[i], reps);
  LOOP(NAMED("triad"), a[i] = b[i] + s * c[i], reps);
  LOOP(NAMED("daxpy"), a[i] = a[i] + s * b[i], reps);
  rprof_begin(NAMED("sum"));
  for (int r = 0; r < reps; ++r) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; ++i) sum += a[i];
  }
  rprof_end(name);
  const double check = a[n / 2] + b[n / 3] + c[n - 1] + sum;
  free(a), free(b), free(c);
  return check;
}

int main(int argc, char** argv) {
  const int passes = argc > 1 ? atoi(argv[1]) : 10;
  if (passes < 1) {
    fprintf(stderr, "loops: passes must be a positive integer\n");
    return 2;
  }
  size_t big = 4 * cache_bytes(3) / sizeof(double);
  if (big < ((size_t)64 << 20) / sizeof(double)) big = ((size_t)64 << 20) / sizeof(double);
  const size_t small = cache_bytes(2) / 2 / 3 / sizeof(double);
  int cpus = 1;
#ifdef _OPENMP
  cpus = omp_get_num_procs();
#endif
  double check = 0;
  for (int t = 1;; t = cpus) {
    check += run("DRAM", big, passes, t);
    check += run("L2", small, passes * 100, t);
    if (t == cpus) break;
  }
  printf("loops: check %g\n", check);
  return 0;
}
