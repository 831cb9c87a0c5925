/* Integer pointer chase without floating point, over one or more independent
 * chains through the same large random cycle.
 *
 * Usage: chase_int [nodes] [steps] [chains]   (defaults: 64-byte nodes filling
 * 4x the largest cache the machine reports (llc_size.h), 2000000 steps in all,
 * 1 chain; the chase_chains8 build defaults to 8 chains)
 * Expect, with 1 chain (region "chase_int"): no FLOPs, so the verdict comes from
 * the memory view: memory-bound at DRAM far below the bandwidth roof and
 * latency-bound: every step misses (one 64 B line) and waits for the previous
 * one, so about one line miss is in flight per thread (Little's law: misses x
 * DRAM latency / time ~ 1).
 * Expect, with 8 chains (region "chains"): the same nodes and the same number of
 * steps, but 8 walks interleaved, each independent of the others: up to 8
 * misses in flight, a DRAM bandwidth several times higher and not latency-bound. */
#include <rprof/markers.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llc_size.h"

#ifndef RPROF_SAMPLE_CHAINS
#define RPROF_SAMPLE_CHAINS 1
#endif
#define MAX_CHAINS 64

struct node {
  struct node* next;
  uint64_t value;
  char pad[48]; /* one node per 64-byte line */
};

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4 * sample_llc_bytes() / 64;
  const long steps = argc > 2 ? atol(argv[2]) : 2000000;
  const int chains = argc > 3 ? atoi(argv[3]) : RPROF_SAMPLE_CHAINS;
  struct node* nodes = aligned_alloc(64, n * sizeof(struct node));
  size_t* order = malloc(n * sizeof(size_t));
  if (nodes == NULL || order == NULL || n < 2 || chains < 1 || chains > MAX_CHAINS) return 1;
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
    nodes[i].value = i;
  }
  /* Chains start evenly spaced along the one cycle: each walks its own part. */
  struct node* p[MAX_CHAINS];
  for (int c = 0; c < chains; ++c) p[c] = &nodes[order[(size_t)c * (n / (size_t)chains)]];
  const long per_chain = steps / chains;
  uint64_t sum = 0;
  if (chains == 1) {
    struct node* q = p[0];
    RPROF_BEGIN("chase_int");
    for (long s = 0; s < per_chain; ++s) {
      sum += q->value;
      q = q->next;
    }
    RPROF_END("chase_int");
  } else {
    RPROF_BEGIN("chains");
    for (long s = 0; s < per_chain; ++s) {
      for (int c = 0; c < chains; ++c) { /* independent loads: misses overlap */
        sum += p[c]->value;
        p[c] = p[c]->next;
      }
    }
    RPROF_END("chains");
  }
  printf("chase_int: %zu nodes, %d chain%s, %ld steps, sum %llu\n", n, chains,
         chains == 1 ? "" : "s", per_chain * chains, (unsigned long long)sum);
  free(order);
  free(nodes);
  return 0;
}
