// The `fake` backend: scripted counters for tests. Counter i of the calling
// thread advances by (i + 1) * RPROF_FAKE_STEP on every read(), so a region's
// counts are an exact function of how many reads it spans.
#ifndef RPROF_BACKENDS_FAKE_FAKE_BACKEND_H_
#define RPROF_BACKENDS_FAKE_FAKE_BACKEND_H_

#include "runtime/backend.h"

namespace rprof {

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(uint64_t step) : step_(step) {}
  const char* name() const override { return "fake"; }
  int num_counters() const override { return 2; }
  const char* counter_name(int i) const override {
    return i == 0 ? "fake_a" : "fake_b";
  }
  void read(uint64_t* out) override {
    thread_local uint64_t reads = 0;
    ++reads;
    out[0] = reads * step_;
    out[1] = reads * step_ * 2;
  }

 private:
  uint64_t step_;
};

}  // namespace rprof

#endif  // RPROF_BACKENDS_FAKE_FAKE_BACKEND_H_
