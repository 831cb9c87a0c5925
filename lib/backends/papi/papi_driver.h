// The `papi` backend, tool side: which names PAPI counts for the CPU's event
// table (libpfm4 names, its presets, perf_raw::rNNNN for the rest), and
// whether PAPI can count here. Optional at build time; without it the probe
// says so.
#ifndef RPROF_BACKENDS_PAPI_PAPI_DRIVER_H_
#define RPROF_BACKENDS_PAPI_PAPI_DRIVER_H_

#include "backends/hw_driver.h"

namespace rprof {

// PAPI: libpfm4 names, PAPI_TOT_CYC/PAPI_TOT_INS, perf_raw::rNNNN for the rest.
LibraryGroups papi_event_groups(const CpuTable& table);

}  // namespace rprof

#endif  // RPROF_BACKENDS_PAPI_PAPI_DRIVER_H_
