/* The runtime's read-only query, as LIKWID_MARKER_GET uses it, linked
 * directly: rprof_region_read and rprof_counter_name.
 *
 * Usage: region_read n   Prints "active=A", then after 2 calls of region
 * "r" (a daxpy of n each): "read rc=RC calls=C counters=K", one line
 * "counter <k> <name> <value>" per counter, and the status and calls of a
 * region never opened ("unknown rc=RC calls=C").
 */
#include <rprof/rprof.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void daxpy(size_t n, double a, const double* x, double* y) {
  for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
  double* x = calloc(n, sizeof(double));
  double* y = calloc(n, sizeof(double));
  if (x == NULL || y == NULL) return 1;
  printf("active=%d\n", rprof_active());
  for (int r = 0; r < 2; ++r) {
    rprof_begin("r");
    daxpy(n, 0.5, x, y);
    rprof_end("r");
  }
  uint64_t calls = 99, values[64];
  double seconds = -1;
  int k = 64;
  const int rc = rprof_region_read("r", &calls, &seconds, values, &k);
  printf("read rc=%d calls=%llu counters=%d seconds_ok=%d\n", rc, (unsigned long long)calls, k,
         seconds >= 0);
  for (int i = 0; i < k; ++i) {
    const char* name = rprof_counter_name(i);
    printf("counter %d %s %llu\n", i, name ? name : "(null)", (unsigned long long)values[i]);
  }
  printf("past-end name null=%d\n", rprof_counter_name(k) == NULL);
  calls = 99;
  const int unknown_rc = rprof_region_read("never_opened", &calls, NULL, NULL, NULL);
  printf("unknown rc=%d calls=%llu\n", unknown_rc, (unsigned long long)calls);
  free(x);
  free(y);
  return 0;
}
