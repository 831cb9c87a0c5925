// The `time` backend, tool side: one native run, times only. Always works, so
// --backend=auto falls back to it and says why nothing better could count.
#include "run/native_driver.h"

namespace rprof {
namespace {

class TimeDriver final : public NativeRunDriver {
 public:
  const char* name() const override { return "time"; }
  const char* summary() const override { return "timing only"; }
  int rank() const override { return 10; }
  CountSource source() const override { return CountSource::kTiming; }
  DriverProbe probe() const override {
    return {true, "timing only (monotonic clock), always available", "", {}};
  }
  std::optional<std::string> auto_refusal(const RunRequest&) const override { return ""; }
  // refused: the hardware backend's reason first, then the simulator's.
  std::string auto_notice(const std::vector<AutoRefusal>& refused) const override {
    std::string hw, sim;
    for (const AutoRefusal& r : refused) {
      (r.source == CountSource::kSimulation ? sim : hw) = r.reason;
    }
    return hw + ", and the simulator cannot count this run (" + sim + "); timing only";
  }
};

}  // namespace

std::unique_ptr<BackendDriver> make_time_driver() { return std::make_unique<TimeDriver>(); }

}  // namespace rprof
