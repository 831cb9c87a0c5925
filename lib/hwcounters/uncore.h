// Memory-controller (uncore) counters, found and encoded from sysfs
// (/sys/bus/event_source/devices/<pmu>/{type,cpumask,format/*,events/*}), so
// the kernel's own event aliases and bit layouts are used:
//   Intel  uncore_imc_<N>  cas_count_read / cas_count_write (64 B per CAS)
//   Zen 4  amd_umc_<N>     event 0x0a, rdwrmask 1 (reads) / 2 (writes)
//   Zen 3  amd_df          DRAM channel beats: event 0x07 + 0x40*k, umask 0x38
// Every event is opened on each CPU of the PMU's cpumask (one per socket).
#ifndef RPROF_HWCOUNTERS_UNCORE_H_
#define RPROF_HWCOUNTERS_UNCORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwcounters/event_tables.h"
#include "hwcounters/perf_spec.h"

namespace rprof {

struct UncorePmu {
  std::string name;
  uint32_t type = 0;
  std::vector<int> cpus;                         // cpumask
  std::map<std::string, std::string> formats;    // "event" -> "config:0-7"
  std::map<std::string, std::string> events;     // "cas_count_read" -> "event=0x04,umask=0x03"
};

using EventTerms = std::vector<std::pair<std::string, uint64_t>>;

// PMUs named `prefix` followed by digits (or exactly `prefix` when
// exact_name), under root + /sys/bus/event_source/devices, sorted by number.
std::vector<UncorePmu> find_uncore_pmus(const std::string& root, const std::string& prefix,
                                        bool exact_name = false);
// "event=0x04,umask=0x03" -> {{"event", 4}, {"umask", 3}}; nullopt when malformed.
std::optional<EventTerms> parse_event_terms(const std::string& text);
// Places term values into config/config1/config2 by the PMU's format files
// ("config:0-7,32-35": low bits first). False and *why when a term is unknown.
bool encode_terms(const UncorePmu& pmu, const EventTerms& terms, PerfEventSpec* e,
                  std::string* why);
// "0-3,8" -> {0,1,2,3,8}
std::vector<int> parse_cpu_list(const std::string& text);

// The system-wide group that counts DRAM traffic for this kind of uncore, or
// nullopt and *why (for people) when this machine has none.
std::optional<PerfGroupSpec> dram_uncore_group(UncoreKind kind, const std::string& root,
                                               std::string* why);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_UNCORE_H_
