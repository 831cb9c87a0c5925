// Event names to perf_event_attr fields through libpfm4 (Debian libpfm4-dev),
// in the tool only. Built without libpfm4, every lookup fails and the tables'
// raw codes are used instead.
#ifndef RPROF_HWCOUNTERS_PFM_ENCODER_H_
#define RPROF_HWCOUNTERS_PFM_ENCODER_H_

#include <cstdint>
#include <string>

namespace rprof {

struct PfmEncoding {
  bool ok = false;
  uint32_t type = 0;
  uint64_t config = 0, config1 = 0, config2 = 0;
  std::string error;  // why not, when !ok
};

// True when rprof was built with libpfm4 and it initialised.
bool libpfm_available();
// The name of the core PMU libpfm4 detected (e.g. "amd64_fam19h_zen4"), or "".
std::string libpfm_core_pmu();
// Encodes a libpfm4 event string ("FP_ARITH_INST_RETIRED:SCALAR_DOUBLE",
// "perf::PAGE-FAULTS", "cycles") for user-space counting.
PfmEncoding pfm_encode(const std::string& name);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PFM_ENCODER_H_
