// The simulated cache hierarchy of `--backend=sim`: the host's topology, the
// effective sizes of its machine file where it has one, overrides from
// `--sim-cache`, and the tool options that carry it.
#ifndef RPROF_BACKENDS_SIM_SIM_CONFIG_H_
#define RPROF_BACKENDS_SIM_SIM_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "machine/topology.h"
#include "profile/profile.h"

namespace rprof {

struct SimCache {
  uint64_t size_bytes = 0;
  int ways = 0;
  int line_bytes = 64;
};

// L1 and L2 are private to each thread, the LLC is shared by all threads.
struct SimCaches {
  SimCache l1{32 * 1024, 8, 64};
  SimCache l2{1024 * 1024, 8, 64};
  SimCache llc{8 * 1024 * 1024, 16, 64};
  std::string source = "built-in defaults";  // where the geometry came from
};

// The host's data caches (levels 1, 2 and the last level). Missing levels
// keep the built-in defaults; unknown associativity becomes 8 ways, fully
// associative caches are modelled with 64 ways (the model's maximum).
SimCaches sim_caches_from_topology(const Topology& topo);

// Takes the effective size `rprof machine` measured (CacheInfo::
// effective_bytes) for L1, L2 or the last level only where it contradicts the
// size reported here by more than kCacheContradictionFactor (a virtual
// machine showing its host's cache), keeping each level's ways and line size;
// `caches.source` then names the level, both sizes and `file`.
void apply_machine_caches(SimCaches& caches, const Machine& machine, const std::string& file);

// Applies `--sim-cache` overrides: a comma-separated list of
// LEVEL=SIZE[:WAYS[:LINE]] with LEVEL l1, l2 or llc, SIZE in bytes with an
// optional K, M or G suffix (binary), e.g. "llc=1M:16" or
// "l1=32K:8:64,l2=256K:4". Throws Error (exit code 2) naming what is wrong.
void apply_sim_cache_spec(SimCaches& caches, const std::string& spec);

// Throws Error (exit code 2) unless the geometry can be simulated: line sizes
// equal and a power of two in [8, 4096], 1..64 ways, size a multiple of
// ways * line.
void check_sim_caches(const SimCaches& caches);

// Options for the Valgrind tool: --rp-l1=SIZE,WAYS,LINE etc.
std::vector<std::string> sim_tool_options(const SimCaches& caches);

// One line for reports: "L1 32 KiB 8-way, L2 1 MiB 8-way (private per
// thread), LLC 32 MiB 16-way (shared), 64 B lines; LRU, write-back,
// write-allocate (from ...)".
std::string describe_sim_caches(const SimCaches& caches);

// For a profile in which several processes ran on one host (MPI ranks, forked
// children) under a cache model (the sim backend, inst with --sample): each
// was simulated with caches of its own, the LLC included, where on the
// machine they share it; "" when no host ran more than one.
std::string own_cache_note(const Profile& p, const SimCaches& caches);

// "32 KiB", "1 MiB", "1536 B".
std::string format_bytes_binary(uint64_t bytes);

}  // namespace rprof

#endif  // RPROF_BACKENDS_SIM_SIM_CONFIG_H_
