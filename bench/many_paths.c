/* Opens N distinct region paths (default 100,000): 1,000 outer regions, each
 * with N/1,000 - 1 inner ones (names shared between outers, so the runtime
 * holds about 1,100 names but N paths). For bench/scale_paths: the launcher
 * and `rprof report` on a profile of that many paths.
 *
 * Usage: many_paths [paths=100000] */
#include <stdio.h>
#include <stdlib.h>

#include "rprof/rprof.h"

int main(int argc, char** argv) {
  const long paths = argc > 1 ? atol(argv[1]) : 100000;
  const long outer = paths >= 1000 ? 1000 : paths;
  const long inner = paths / outer - 1;
  char name[32];
  volatile double sink = 0;
  for (long o = 0; o < outer; ++o) {
    snprintf(name, sizeof name, "outer_%ld", o);
    rprof_begin(name);
    for (long i = 0; i < inner; ++i) {
      char inner_name[32];
      snprintf(inner_name, sizeof inner_name, "inner_%ld", i);
      rprof_begin(inner_name);
      for (long k = 0; k < 10 + i % 7; ++k) sink = sink + (double)k;
      rprof_end(inner_name);
    }
    rprof_end(name);
  }
  printf("%ld paths opened (%.0f)\n", outer * (inner + 1), sink);
  return 0;
}
