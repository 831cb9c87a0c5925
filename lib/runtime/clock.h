// The runtime's clock: CLOCK_MONOTONIC in nanoseconds (vDSO, no syscall).
#ifndef RPROF_RUNTIME_CLOCK_H_
#define RPROF_RUNTIME_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace rprof::runtime {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_CLOCK_H_
