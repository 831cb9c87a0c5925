// The `fake` backend, tool side: one native run whose runtime counts with
// scripted values (fake_backend.h). For tests; not listed by --help or doctor.
#include "run/native_driver.h"

namespace rprof {
namespace {

class FakeDriver final : public NativeRunDriver {
 public:
  const char* name() const override { return "fake"; }
  const char* summary() const override { return "scripted counters, for tests"; }
  bool listed() const override { return false; }
  int rank() const override { return 0; }
  CountSource source() const override { return CountSource::kScripted; }
  DriverProbe probe() const override {
    return {true, "scripted counter values (tests), always available", "", {}};
  }
};

}  // namespace

std::unique_ptr<BackendDriver> make_fake_driver() { return std::make_unique<FakeDriver>(); }

}  // namespace rprof
