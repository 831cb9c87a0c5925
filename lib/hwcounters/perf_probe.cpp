#include "hwcounters/perf_probe.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>

#include "hwcounters/event_tables.h"
#include "hwcounters/perf_counters.h"
#include "hwcounters/perf_errors.h"
#include "hwcounters/perf_plan.h"
#include "hwcounters/uncore.h"
#include "machine/topology.h"

namespace rprof {

HardwareProbe probe_perf_hardware(const std::string& root) {
  HardwareProbe p;
  const PerfHost host = detect_perf_host(root);
  const CpuId cpu = detect_topology(root.empty() ? "/" : root).cpu;  // the real PMU
  const CpuTable& table = select_table(cpu);
  p.table_id = table.id;
  p.table_name = table.name;
  p.cpu = (cpu.model_name.empty() ? cpu.vendor : cpu.model_name) + " (family " +
          std::to_string(cpu.family) + ", model " + std::to_string(cpu.model) + ")";

  PerfEventSpec sw;
  sw.type = PERF_TYPE_SOFTWARE;
  sw.config = PERF_COUNT_SW_PAGE_FAULTS;
  if (const int fd = perf_event_open_fd(sw, -1, true, false); fd >= 0) {
    close(fd);
    p.software_events = true;
  }

  PerfEventSpec cycles;  // user-space cycles of this thread: the least one can ask
  cycles.type = PERF_TYPE_HARDWARE;
  cycles.config = PERF_COUNT_HW_CPU_CYCLES;
  const int fd = perf_event_open_fd(cycles, -1, true, false);
  if (fd < 0) {
    p.err = errno;
    const PerfErrorText t = explain_perf_error(p.err, PerfEventClass::kHardware, host);
    p.reason = t.what;
    p.fix = t.fix;
    return p;
  }
  close(fd);
  p.ok = true;

  PerfGroupSpec first;
  for (const std::string& k : table.groups.front()) {
    first.events.push_back(encode_table_event(table, *table.find(k)));
  }
  PerfOpenStatus st;
  PerfGroupCounters g = PerfGroupCounters::Create(first, false, &st);
  p.table_works = st.ok();
  if (!st.ok()) {
    const PerfErrorText t = explain_perf_error(st.err, PerfEventClass::kHardware, host);
    p.reason = "the " + table.name + " table's event " + st.event + " does not open: " + t.what;
    p.fix = t.fix;
  }

  std::string why = "no memory-controller counters known for this CPU";
  if (table.uncore != UncoreKind::kNone) {
    if (auto unc = dram_uncore_group(table.uncore, root, &why)) {
      const int ufd = perf_event_open_fd(unc->events.front(), -1, true, false);
      if (ufd >= 0) {
        close(ufd);
        p.uncore = true;
        why.clear();
      } else {
        why = explain_perf_error(errno, PerfEventClass::kUncore, host).line();
      }
    }
  }
  p.uncore_reason = why;
  return p;
}

}  // namespace rprof
