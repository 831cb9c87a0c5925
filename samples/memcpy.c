/* memcpy of a large buffer: the C library's copy, no floating point.
 *
 * Usage: memcpy [bytes] [passes]   (defaults: 2x the largest cache the machine
 * reports (llc_size.h) per buffer, 4 passes)
 * Expect: region "memcpy", no FLOPs, so the verdict comes from the memory view:
 * memory-bound at DRAM (each pass reads the source and writes the destination,
 * plus the write-allocate read of each destination line unless the library
 * uses non-temporal stores), not latency-bound. */
#include <rprof/markers.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llc_size.h"

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : 2 * sample_llc_bytes();
  const int passes = argc > 2 ? atoi(argv[2]) : 4;
  const size_t rounded = (bytes + 63) / 64 * 64;
  char* src = aligned_alloc(64, rounded);
  char* dst = aligned_alloc(64, rounded);
  if (src == NULL || dst == NULL || bytes < 1 || passes < 1) return 1;
  memset(src, 1, bytes);
  memset(dst, 0, bytes);
  RPROF_BEGIN("memcpy");
  for (int p = 0; p < passes; ++p) {
    src[p % bytes] = (char)p; /* a different copy each pass */
    memcpy(dst, src, bytes);
  }
  RPROF_END("memcpy");
  printf("memcpy: %zu bytes, %d passes, last byte %d\n", bytes, passes, dst[bytes - 1]);
  free(src);
  free(dst);
  return 0;
}
