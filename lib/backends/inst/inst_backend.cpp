// The `inst` backend, runtime side: reads the counters that code built with
// rprof's GCC plugin keeps per thread (inst_counters.h). The program's
// run-time object (inst_rt.c) hands the runtime the function that returns the
// calling thread's array when it starts (after librprof's own start-up), so
// read() asks for it each time: a thread's reads are its own array's.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "backends/inst/inst_counters.h"
#include "backends/inst/inst_sample.h"
#include "runtime/auto_regions.h"
#include "runtime/backend.h"
#include "runtime/region_table.h"

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
  // The program's counts, then the cache model's (inst_sample.h) when the
  // run simulates the caches.
  int num_counters() const override { return RPROF_INST_NCOUNTERS + inst::sample_num_counters(); }
  const char* counter_name(int i) const override {
    return i < RPROF_INST_NCOUNTERS ? kNames[i]
                                    : inst::sample_counter_name(i - RPROF_INST_NCOUNTERS);
  }
  void read(uint64_t* out) override {
    const CountersFn fn = g_counters.load(std::memory_order_acquire);
    if (!fn) {
      std::memset(out, 0, sizeof(uint64_t) * static_cast<size_t>(num_counters()));
      return;
    }
    unsigned long long* c = fn();
    for (int i = 0; i < RPROF_INST_NCOUNTERS; ++i) out[i] = c[i];
    inst::sample_thread_start(c);
    inst::sample_read(out + RPROF_INST_NCOUNTERS);
  }
};

// Functions and loop nests (inst_counters.h): region ids by the address of
// their name, a string constant of the program (one address, one name), in
// a lock-free table filled on first use; a name that finds no slot is
// interned on every call (correct, slower).
struct Site {
  std::atomic<const char*> name{nullptr};
  std::atomic<uint32_t> id{0};
  // Called too often and too briefly to time (ThreadState::end_auto): its
  // entries and exits are skipped from then on, on every thread.
  std::atomic<bool> throttled{false};
};
constexpr size_t kSites = 1 << 14;
constexpr int kProbes = 32;
Site g_sites[kSites];

// The site of a name (its id set), or null when the table has no room for
// it (*id then is the interned id).
Site* site_of(const char* name, uint32_t* id) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(name);
  size_t h = static_cast<size_t>((a >> 3) * 0x9E3779B97F4A7C15ull >> 40);
  for (int p = 0; p < kProbes; ++p, ++h) {
    Site& s = g_sites[h % kSites];
    const char* k = s.name.load(std::memory_order_acquire);
    if (k == nullptr) {
      if (!s.name.compare_exchange_strong(k, name, std::memory_order_acq_rel)) {
        if (k != name) continue;  // another name took it
      } else {
        *id = runtime::intern_region(name);
        s.id.store(*id, std::memory_order_release);
        return &s;
      }
    }
    if (k == name) {
      *id = s.id.load(std::memory_order_acquire);
      if (*id == 0) *id = runtime::intern_region(name);  // being filled
      return &s;
    }
  }
  *id = runtime::intern_region(name);
  return nullptr;
}

enum class Scope { kAll, kMarked, kNone };
std::atomic<int> g_scope{-1};

Scope scope() {
  int s = g_scope.load(std::memory_order_relaxed);
  if (s < 0) {
    const char* v = std::getenv(RPROF_INST_REGIONS_ENV);
    s = static_cast<int>(v == nullptr                  ? Scope::kNone
                         : std::strcmp(v, "all") == 0    ? Scope::kAll
                         : std::strcmp(v, "marked") == 0 ? Scope::kMarked
                                                         : Scope::kNone);
    g_scope.store(s, std::memory_order_relaxed);
  }
  return static_cast<Scope>(s);
}

}  // namespace

namespace inst {
unsigned long long* program_counters() {
  const CountersFn fn = g_counters.load(std::memory_order_acquire);
  return fn ? fn() : nullptr;
}
}  // namespace inst

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

// Called by an instrumented program's run-time object (inst_rt.c) where a
// function with loops starts and where a loop nest is entered, and where
// they end (inst_counters.h).
// Both return 1 when the region is no longer timed (throttled): the program's
// run-time object then stops calling for it.
// frame: the caller's stack position (inst_rt.c), for closing regions whose
// functions were left by a longjmp or an exception (ThreadState::begin_auto).
extern "C" __attribute__((visibility("default"))) int rprof_inst_enter(const char* name, int kind,
                                                                       const void* frame) {
  if (const rprof::CountersFn fn = rprof::g_counters.load(std::memory_order_acquire)) {
    rprof::inst::sample_thread_start(fn());  // a thread's first contact sets its filter
  }
  const rprof::Scope s = rprof::scope();
  if (s == rprof::Scope::kNone || name == nullptr) return 0;
  uint32_t id = 0;
  const rprof::Site* site = rprof::site_of(name, &id);
  if (site != nullptr && site->throttled.load(std::memory_order_relaxed)) return 1;
  if (id == 0) return 0;
  rprof::runtime::auto_begin(
      id, kind == RPROF_INST_KIND_LOOP ? rprof::runtime::kAutoLoop : rprof::runtime::kAutoFunction,
      s == rprof::Scope::kMarked, reinterpret_cast<uintptr_t>(frame));
  return 0;
}

extern "C" __attribute__((visibility("default"))) int rprof_inst_exit(const char* name) {
  if (rprof::scope() == rprof::Scope::kNone || name == nullptr) return 0;
  uint32_t id = 0;
  rprof::Site* site = rprof::site_of(name, &id);
  if (site != nullptr && site->throttled.load(std::memory_order_relaxed)) return 1;
  if (id == 0) return 0;
  if (rprof::runtime::auto_end(id) == rprof::runtime::kAutoThrottle && site != nullptr) {
    site->throttled.store(true, std::memory_order_relaxed);
    return 1;
  }
  return 0;
}
