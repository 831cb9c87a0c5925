/* Sums the numbers read from stdin inside region "sum": per number, 1000
 * steps of acc = acc * 0.999 + v (a mul and an add on the volatile acc,
 * nothing to hoist; 2 FLOPs, also as one FMA), so the region's FLOPs are
 * exactly 2000 per number.
 * Prints how many numbers it read. */
#include <rprof/markers.h>
#include <stdio.h>

enum { kMax = 100000, kInner = 1000 };

int main(void) {
  static double v[kMax];
  int n = 0;
  while (n < kMax && scanf("%lf", &v[n]) == 1) ++n;
  volatile double acc = 0;
  RPROF_BEGIN("sum");
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < kInner; ++k) acc = acc * 0.999 + v[i];
  }
  RPROF_END("sum");
  printf("read %d numbers, sum %.6g\n", n, acc);
  return 0;
}
