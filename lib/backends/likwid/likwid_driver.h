// The `likwid` backend, tool side: likwid's names with a counter register
// each for the CPU's event table, and whether likwid can count here.
// Optional at build time; without it the probe says so.
#ifndef RPROF_BACKENDS_LIKWID_LIKWID_DRIVER_H_
#define RPROF_BACKENDS_LIKWID_LIKWID_DRIVER_H_

#include <string>
#include <vector>

#include "backends/hw_driver.h"

namespace rprof {

// likwid: EVENT:COUNTER (fixed counters where the table says so, PMCn in
// order, MERGE pairs on an even counter); events likwid lacks go to *missing.
LibraryGroups likwid_event_groups(const CpuTable& table, std::vector<std::string>* missing);

}  // namespace rprof

#endif  // RPROF_BACKENDS_LIKWID_LIKWID_DRIVER_H_
