/* Integer streaming sum without floating point: read a large array of 64-bit
 * integers front to back, several passes.
 *
 * Usage: stream_int [elements] [passes]   (defaults: 8-byte elements filling
 * 4x the largest cache the machine reports (llc_size.h), 4 passes)
 * Expect: region "stream_int", no FLOPs, so the verdict comes from the memory
 * view: memory-bound at DRAM near the DRAM bandwidth roof (8 bytes per element
 * cross every boundary each pass), not latency-bound: sequential lines are
 * prefetched, so many misses are in flight (Little's law gives well above 2.5
 * lines per thread). */
#include <rprof/markers.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llc_size.h"

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4 * sample_llc_bytes() / 8;
  const int passes = argc > 2 ? atoi(argv[2]) : 4;
  uint64_t* a = aligned_alloc(64, (n * sizeof(uint64_t) + 63) / 64 * 64);
  if (a == NULL || n < 1 || passes < 1) return 1;
  for (size_t i = 0; i < n; ++i) a[i] = i;
  uint64_t sum = 0;
  RPROF_BEGIN("stream_int");
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < n; ++i) sum += a[i];
  }
  RPROF_END("stream_int");
  printf("stream_int: %zu elements, %d passes, sum %llu\n", n, passes,
         (unsigned long long)sum);
  free(a);
  return 0;
}
