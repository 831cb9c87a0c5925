// The latency ladder: each level's measured load-to-use latency must be
// above the one before it (L1 < L2 < LLC < DRAM). A step that is not says a
// chase did not sit in its level (a working set spilling out of it, TLB
// misses, a noisy run), so Little's law on that latency is not to be read.
#ifndef RPROF_MACHINE_LATENCY_LADDER_H_
#define RPROF_MACHINE_LATENCY_LADDER_H_

#include <string>

#include "machine/machine.h"

namespace rprof {

// "" when the ladder holds (or fewer than two levels were measured), else
// one line naming each step out of order with its ns.
std::string latency_ladder_note(const CeilingSet& s);

}  // namespace rprof

#endif  // RPROF_MACHINE_LATENCY_LADDER_H_
