/* Pointer chase over a large random cycle: one dependent load per step.
 *
 * Usage: chase [nodes] [steps]   (defaults: 64-byte nodes filling 4x the
 * largest cache the machine reports (llc_size.h), 2000000 steps)
 * Expect: region "chase", memory-bound at DRAM far below the bandwidth roof and
 * flagged latency-bound: every step misses (one 64 B line) and waits for the
 * previous one, so about one miss is in flight (Little's law: misses x DRAM
 * latency / time ~ 1). One DP add per step (1 FLOP per 64 B line). */
#include <rprof/markers.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llc_size.h"

struct node {
  struct node* next;
  double value;
  char pad[48]; /* one node per 64-byte line */
};

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4 * sample_llc_bytes() / 64;
  const long steps = argc > 2 ? atol(argv[2]) : 2000000;
  struct node* nodes = aligned_alloc(64, n * sizeof(struct node));
  size_t* order = malloc(n * sizeof(size_t));
  if (nodes == NULL || order == NULL || n < 2) return 1;
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t x = 88172645463325252ull; /* xorshift: deterministic */
  for (size_t i = n - 1; i > 0; --i) { /* Sattolo: one cycle through all */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const size_t j = x % i;
    const size_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; ++i) {
    nodes[order[i]].next = &nodes[order[(i + 1) % n]];
    nodes[i].value = 1.0;
  }
  struct node* p = &nodes[order[0]];
  double sum = 0;
  RPROF_BEGIN("chase");
  for (long s = 0; s < steps; ++s) {
    sum += p->value;
    p = p->next;
  }
  RPROF_END("chase");
  printf("chase: %zu nodes, %ld steps, sum %.0f\n", n, steps, sum);
  free(order);
  free(nodes);
  return 0;
}
