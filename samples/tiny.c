/* A region too short to time: a handful of operations per call.
 *
 * Usage: tiny [calls]   (default 1000)
 * Expect: region "tiny" with `calls` calls of a few nanoseconds each, far
 * below 100 marker overheads per call: flagged too-short. */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int calls = argc > 1 ? atoi(argv[1]) : 1000;
  volatile double x = 1.0;
  for (int i = 0; i < calls; ++i) {
    RPROF_BEGIN("tiny");
    x = x * 1.000001;
    RPROF_END("tiny");
  }
  printf("tiny: %d calls, x=%g\n", calls, x);
  return 0;
}
