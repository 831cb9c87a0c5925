// Load-to-use latency by pointer chasing: each cache line of a buffer holds
// the address of the next line of a random cyclic permutation (Sattolo's
// algorithm: one cycle through every line), so every load depends on the
// previous one and hardware prefetchers cannot guess the next address.
// Also a core clock estimate from a chain of dependent integer adds, used
// to state latencies in cycles.
#ifndef RPROF_MACHINE_CHASE_H_
#define RPROF_MACHINE_CHASE_H_

#include <cstddef>
#include <cstdint>

namespace rprof {

// Links the lines of buf (bytes / line_bytes of them) into one random cycle.
void build_chase(void* buf, size_t bytes, size_t line_bytes, uint64_t seed);

// Follows `steps` links from buf; returns the final pointer (keeps it alive).
void* run_chase(void* start, uint64_t steps);

// Runs `n` rounds of 8 dependent integer adds (1 cycle each on every x86-64
// core since the 1990s); cycles = 8 * n.
uint64_t run_add_chain(uint64_t n);

}  // namespace rprof

#endif  // RPROF_MACHINE_CHASE_H_
