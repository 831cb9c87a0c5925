/* An imbalanced OpenMP loop: thread t gets (1 + skew * t) units of work.
 *
 * Usage: omp_imbalance [units] [skew]   (defaults: 20000000 iterations per
 * unit, skew 1)
 * Expect: region "work", one call per thread; with 2 threads and skew 1 the
 * slower does twice the work of the faster, so per-thread times differ by
 * ~50% and the region is flagged load-imbalance (threshold 20%). With skew 3
 * they differ by ~75%: flagged unless a busy machine stretches the faster
 * thread's time by more than 3x against the slower's (the test uses it). */
#include <omp.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long unit = argc > 1 ? atol(argv[1]) : 20000000;
  const long skew = argc > 2 ? atol(argv[2]) : 1;
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const int t = omp_get_thread_num();
    RPROF_BEGIN("work");
    double s = 0;
    for (long i = 0; i < unit * (1 + skew * t); ++i) s += 1.0 / (double)(i + 1);
    total += s;
    RPROF_END("work");
  }
  printf("omp_imbalance: %d threads, total %.6f\n", omp_get_max_threads(), total);
  return 0;
}
