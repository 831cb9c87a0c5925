// What this machine is: CPU identity, instruction sets, cores, and the data
// cache hierarchy as the OS reports it (sysfs). Effective capacities, which on
// shared or virtual machines can be far smaller, are measured by
// `rprof machine` and stored in the machine file, not here.
#ifndef RPROF_MACHINE_TOPOLOGY_H_
#define RPROF_MACHINE_TOPOLOGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rprof {

struct CpuId {
  std::string vendor;      // GenuineIntel, AuthenticAMD, ...
  int family = 0;
  int model = 0;
  int stepping = 0;
  std::string model_name;
  bool sse2 = false, avx = false, avx2 = false, fma = false, avx512f = false;
};

struct CacheLevel {
  int level = 0;            // 1, 2, 3
  uint64_t size_bytes = 0;  // as reported
  int associativity = 0;    // ways (0 = unknown, full = -1)
  int line_bytes = 64;
  int shared_cpus = 1;      // logical CPUs sharing one instance
};

struct Topology {
  CpuId cpu;
  int logical_cpus = 1;            // online
  std::vector<CacheLevel> caches;  // data/unified caches, by level

  const CacheLevel* level(int l) const;
  const CacheLevel* last_level() const;
};

// The root the machine is read from: $RPROF_SYSROOT when set (a recorded
// machine: <root>/proc/cpuinfo and <root>/sys/devices/system/cpu/...), else
// "/". Modelling (simulated caches, which machine file applies) follows it;
// what programs the hardware (calibration, hardware counters) reads "/".
std::string system_root();

// Reads /proc/cpuinfo and /sys/devices/system/cpu under `root` (empty:
// system_root()).
Topology detect_topology(const std::string& root = "");

// Parsers, exposed for tests.
CpuId parse_cpuinfo(const std::string& text);
uint64_t parse_cache_size(const std::string& text);  // "32K", "1024K", "32M"
int count_cpu_list(const std::string& text);          // "0-3,8" -> 5

}  // namespace rprof

#endif  // RPROF_MACHINE_TOPOLOGY_H_
