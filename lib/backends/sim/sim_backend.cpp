// The runtime side of the `sim` backend: the running thread's counters come
// from rprof's Valgrind tool (lib/backends/sim/tool) through client requests.
// Outside Valgrind a client request is a few no-op instructions returning the
// default, so the factory asks the tool for its protocol number first and
// refuses (the runtime then falls back to timing) unless it answers.
//
// enter_marker()/leave_marker() suspend counting on this thread while the
// runtime does its bookkeeping: what runs in between (clock_gettime, malloc of
// a new region node) is taken back out of the counters by the tool, and the
// cache model does not see it. The runtime's own code is never instrumented
// at all (see tool/rp_exclude.h). Its quiet hooks sim_quiet_begin()/sim_quiet_end()
// (runtime/quiet.h) do the same around the runtime's start-up, thread registration
// and flushes, before and besides any backend.
#include <valgrind/valgrind.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "runtime/backend.h"
#include "backends/sim/sim_protocol.h"
#include "runtime/handshake.h"

extern char** environ;

namespace rprof {
namespace {

static_assert(RPROF_SIM_NCOUNTERS <= kMaxCounters, "too many sim counters");

constexpr unsigned kRequestBase = VG_USERREQ_TOOL_BASE('R', 'P');

const char* const kCounterNames[RPROF_SIM_NCOUNTERS] = {
#define RPROF_SIM_NAME(i, name) name,
    RPROF_SIM_COUNTERS(RPROF_SIM_NAME)
#undef RPROF_SIM_NAME
};

unsigned long request(unsigned offset, void* arg1 = nullptr, unsigned long arg2 = 0) {
  return VALGRIND_DO_CLIENT_REQUEST_EXPR(0, kRequestBase + offset, arg1, arg2, 0, 0, 0);
}

// True when the launcher asked for the sim backend (RPROF_BACKEND=sim).
// Reads the environment with the runtime's own code, not getenv(): this runs
// before counting is suspended, and the runtime's code is not instrumented.
bool sim_requested() {
  static const char kWant[] = RPROF_ENV_BACKEND "=sim";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* v = *e;
    size_t i = 0;
    while (kWant[i] != '\0' && v[i] == kWant[i]) ++i;
    if (kWant[i] == '\0' && v[i] == '\0') return true;
  }
  return false;
}

// Whether quiet brackets issue requests: decided at the first one (the
// runtime's constructor, before any thread exists). A plain int, not a
// function-local static: its guard would call into libstdc++, uncounted code
// calling counted code.
enum : int { kQuietUnknown = 0, kQuietOff = 1, kQuietOn = 2 };
std::atomic<int> g_quiet{kQuietUnknown};

bool quiet_on() {
  int q = g_quiet.load(std::memory_order_relaxed);
  if (q == kQuietUnknown) {
    q = RUNNING_ON_VALGRIND != 0 && sim_requested() &&
                request(RPROF_SIM_REQ_PING) == RPROF_SIM_PROTOCOL
            ? kQuietOn
            : kQuietOff;
    g_quiet.store(q, std::memory_order_relaxed);
  }
  return q == kQuietOn;
}

class SimBackend final : public Backend {
 public:
  const char* name() const override { return "sim"; }
  int num_counters() const override { return RPROF_SIM_NCOUNTERS; }
  const char* counter_name(int i) const override { return kCounterNames[i]; }
  // Its times are the native run's (the simulated run's CPU time is Valgrind's).
  bool thread_cpu_time() const override { return false; }
  void read(uint64_t* out) override {
    if (request(RPROF_SIM_REQ_READ, out, RPROF_SIM_NCOUNTERS) != RPROF_SIM_NCOUNTERS) {
      std::memset(out, 0, sizeof(uint64_t) * RPROF_SIM_NCOUNTERS);
    }
  }
  void enter_marker() override { request(RPROF_SIM_REQ_SUSPEND); }
  void leave_marker() override { request(RPROF_SIM_REQ_RESUME); }
  void region_opened(uint32_t id, const char* name) override {
    VALGRIND_DO_CLIENT_REQUEST_STMT(kRequestBase + RPROF_SIM_REQ_PUSH, id, name, 0, 0, 0);
  }
  void region_closed() override { request(RPROF_SIM_REQ_POP); }
};

}  // namespace

void sim_quiet_begin() {
  if (quiet_on()) request(RPROF_SIM_REQ_SUSPEND);
}

void sim_quiet_end() {
  if (quiet_on()) request(RPROF_SIM_REQ_RESUME);
}

std::unique_ptr<Backend> make_sim_backend(std::string* why) {
  if (RUNNING_ON_VALGRIND == 0) {
    *why = "the sim backend counts only under rprof's Valgrind tool; run the "
           "program with `rprof --backend=sim`";
    return nullptr;
  }
  if (request(RPROF_SIM_REQ_PING) != RPROF_SIM_PROTOCOL) {
    *why = "running under Valgrind, but not under rprof's tool of this version "
           "(rprof-sim); run the program with `rprof --backend=sim`";
    return nullptr;
  }
  return std::make_unique<SimBackend>();
}

}  // namespace rprof
