// The event list the `rprof` tool hands to the runtime's perf backend.
//
// All event encoding (CPU tables, libpfm4, sysfs uncore formats) happens in
// the tool; the runtime only receives raw perf_event_attr fields through the
// environment, so librprof.so needs no third-party library:
//
//   RPROF_PERF_EVENTS = group (';' group)*
//   group  = event (',' event)*          the first event leads the group
//   event  = key '=' type ':' config [':' config1 [':' config2 [':' flags [':' cpu]]]]
//   flags  = letters: u = user space only (exclude_kernel, exclude_hv)
//                     s = system wide on `cpu` (uncore; read by one thread)
//   numbers are decimal or 0x-hex; key = [A-Za-z0-9_.-]+
//
// Example: "cycles=0:0:0:0:u,FP_ARITH_INST_RETIRED.SCALAR_DOUBLE=4:0x1c7:0:0:u"
//
// A region's counters are recorded as hw.g<G>.<key>, plus hw.g<G>.enabled_ns
// and hw.g<G>.running_ns per group (nanoseconds the group was enabled and
// actually counting; running < enabled means it was multiplexed). Events of
// a system-wide group with the same key (one per memory controller) are
// summed into one counter. G numbers groups across all passes of a run.
#ifndef RPROF_HWCOUNTERS_PERF_SPEC_H_
#define RPROF_HWCOUNTERS_PERF_SPEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

struct PerfEventSpec {
  std::string key;
  uint32_t type = 0;  // PERF_TYPE_* or a dynamic PMU type from sysfs
  uint64_t config = 0, config1 = 0, config2 = 0;
  bool user_only = true;     // exclude_kernel + exclude_hv
  bool system_wide = false;  // pid = -1 on `cpu` (uncore counters)
  int cpu = -1;
};

struct PerfGroupSpec {
  int id = 0;  // G in hw.g<G>.<key>
  std::vector<PerfEventSpec> events;
  // Keys in output order: events of a system-wide group sharing a key are
  // summed into one slot.
  std::vector<std::string> output_keys() const;
  bool system_wide() const { return !events.empty() && events.front().system_wide; }
};

// Counter names of a group: hw.g<G>.<key>..., hw.g<G>.enabled_ns, hw.g<G>.running_ns.
std::vector<std::string> perf_counter_names(const PerfGroupSpec& g);
int perf_counter_count(const std::vector<PerfGroupSpec>& groups);

std::string format_perf_spec(const std::vector<PerfGroupSpec>& groups);
// Parses a spec; group ids are first_group_id, +1, ... On a syntax error
// returns false and says what is wrong in *why (one line).
bool parse_perf_spec(std::string_view text, int first_group_id,
                     std::vector<PerfGroupSpec>* groups, std::string* why);

// Turns any name into a valid key: characters outside [A-Za-z0-9_.-] become '.'.
std::string perf_key(std::string_view name);

// The lowercase hexadecimal digits of v, without "0x".
std::string hex_digits(uint64_t v);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PERF_SPEC_H_
