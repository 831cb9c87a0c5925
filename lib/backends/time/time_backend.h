// The `time` backend: no counters; the runtime's monotonic clock gives time.
#ifndef RPROF_BACKENDS_TIME_TIME_BACKEND_H_
#define RPROF_BACKENDS_TIME_TIME_BACKEND_H_

#include "runtime/backend.h"

namespace rprof {

class TimeBackend final : public Backend {
 public:
  const char* name() const override { return "time"; }
  int num_counters() const override { return 0; }
  const char* counter_name(int) const override { return ""; }
  void read(uint64_t*) override {}
};

}  // namespace rprof

#endif  // RPROF_BACKENDS_TIME_TIME_BACKEND_H_
