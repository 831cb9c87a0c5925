// Regions that instrumented code opens and closes: the functions and loop
// nests of a program built with `rprof cc` (the inst backend). The same
// guards as a marker call (an active session, not from a signal handler that
// interrupted a marker call), then ThreadState::begin_auto / end_auto.
#ifndef RPROF_RUNTIME_AUTO_REGIONS_H_
#define RPROF_RUNTIME_AUTO_REGIONS_H_

#include <cstdint>

#include "runtime/thread_state.h"

namespace rprof::runtime {

int auto_begin(uint32_t region, AutoKind kind, bool only_in_marked, uintptr_t frame);
int auto_end(uint32_t region);

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_AUTO_REGIONS_H_
