// The `inst` backend, runtime side: reads the counters that code built with
// rprof's GCC plugin keeps per thread (inst_counters.h). The program's
// run-time object (inst_rt.c) hands the runtime the function that returns the
// calling thread's array when it starts (after librprof's own start-up), so
// read() asks for it each time: a thread's reads are its own array's.
#include <atomic>
#include <cstring>

#include "backends/inst/inst_counters.h"
#include "runtime/backend.h"

namespace rprof {
namespace {

using CountersFn = unsigned long long* (*)();
std::atomic<CountersFn> g_counters{nullptr};

// Canonical counter names (docs/profile-schema.md), in inst_counters.h's order.
const char* const kNames[RPROF_INST_NCOUNTERS] = {
    "flops.sp.scalar", "flops.sp.128", "flops.sp.256", "flops.sp.512",
    "flops.dp.scalar", "flops.dp.128", "flops.dp.256", "flops.dp.512",
    "fpins.sp.scalar", "fpins.sp.128", "fpins.sp.256", "fpins.sp.512",
    "fpins.dp.scalar", "fpins.dp.128", "fpins.dp.256", "fpins.dp.512",
    "bytes.l1.read",   "bytes.l1.write"};

class InstBackend final : public Backend {
 public:
  const char* name() const override { return "inst"; }
  int num_counters() const override { return RPROF_INST_NCOUNTERS; }
  const char* counter_name(int i) const override { return kNames[i]; }
  void read(uint64_t* out) override {
    const CountersFn fn = g_counters.load(std::memory_order_acquire);
    if (!fn) {
      std::memset(out, 0, sizeof(uint64_t) * RPROF_INST_NCOUNTERS);
      return;
    }
    const unsigned long long* c = fn();
    for (int i = 0; i < RPROF_INST_NCOUNTERS; ++i) out[i] = c[i];
  }
};

}  // namespace

std::unique_ptr<Backend> make_inst_backend(std::string* /*why*/) {
  return std::make_unique<InstBackend>();
}

}  // namespace rprof

// Called by an instrumented program's run-time object at its start-up. A
// program built with a newer layout than this runtime reads is not attached
// (its counters would be misread); the driver checks the version first and
// says so.
extern "C" __attribute__((visibility("default"))) void rprof_inst_attach(
    unsigned long long* (*counters)(), int layout_version) {
  if (layout_version != RPROF_INST_LAYOUT_VERSION || !counters) return;
  rprof::g_counters.store(counters, std::memory_order_release);
}
