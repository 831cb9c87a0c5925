// The C ABI. Never throws, never aborts: errors are recorded per thread and
// reported by the tool at the end; calls return a status code.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "rprof/rprof.h"
#include "runtime/auto_regions.h"
#include "runtime/clock.h"
#include "runtime/region_table.h"
#include "runtime/session.h"
#include "runtime/signals.h"

using rprof::runtime::current_thread;
using rprof::runtime::ErrorKind;
using rprof::runtime::g_active;
using rprof::runtime::intern_region;
using rprof::runtime::ThreadState;

namespace {

inline bool active() { return g_active.load(std::memory_order_relaxed); }

// A marker called from a signal handler the program installed: refused before
// it touches anything (the interrupted thread's stack stays as it was, so the
// end of a refused begin is refused too, never "end with no region open"),
// and counted on the thread's state if it has one (none is created here: not
// async-signal-safe).
__attribute__((noinline, cold)) int refuse_in_handler() {
  ThreadState* t = rprof::runtime::existing_thread();
  if (t != nullptr) t->record_error(ErrorKind::kInSignalHandler, 0, 0);
  return RPROF_ERR_NESTING;
}

// Region id of a name, or 0 after recording why there is none.
uint32_t region_of(ThreadState* t, const char* name) {
  if (name == nullptr || *name == '\0') {
    t->record_error(ErrorKind::kEmptyName, 0, 0);
    return 0;
  }
  auto& slot = t->name_cache[(reinterpret_cast<uintptr_t>(name) >> 3) %
                             ThreadState::kNameCacheSize];
  if (slot.name == name && std::strcmp(rprof::runtime::region_name(slot.id), name) == 0) {
    return slot.id;
  }
  rprof::runtime::InternResult why;
  const uint32_t id = intern_region(name, &why);
  if (id == 0) {
    t->record_error(why == rprof::runtime::InternResult::kTooLong    ? ErrorKind::kNameTooLong
                    : why == rprof::runtime::InternResult::kReserved ? ErrorKind::kReservedName
                                                                     : ErrorKind::kTooManyRegions,
                    0, 0);
  } else {
    slot.name = name;
    slot.id = id;
  }
  return id;
}

uint32_t region_of(ThreadState* t, rprof_site* site) {
  if (site == nullptr) return region_of(t, static_cast<const char*>(nullptr));
  uint32_t id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  if (id == 0) {
    id = region_of(t, site->name);
    if (id != 0) __atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
  }
  return id;
}

// Brackets a marker call for counting backends: the name lookup (which may
// take a lock and call libc on a site's first use) and the bookkeeping stay
// out of every region's counts.
class MarkerScope {
 public:
  explicit MarkerScope(ThreadState* t) : t_(t) { t_->enter_marker(); }
  ~MarkerScope() { t_->leave_marker(); }
  MarkerScope(const MarkerScope&) = delete;
  MarkerScope& operator=(const MarkerScope&) = delete;

 private:
  ThreadState* t_;
};

// Marks the thread as inside a marker call for its whole length: a marker
// called from a signal handler that interrupted this one is refused before it
// touches the name cache, the stack of open regions or a lock.
class CallGuard {
 public:
  explicit CallGuard(ThreadState* t) : t_(t), entered_(t->enter_call()) {}
  ~CallGuard() {
    if (entered_) t_->leave_call();
  }
  bool entered() const { return entered_; }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  ThreadState* t_;
  bool entered_;
};

template <class Key>
int begin(Key key) {
  if (!active()) return RPROF_INACTIVE;
  if (rprof::runtime::in_signal_handler()) return refuse_in_handler();
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const CallGuard call(t);
  if (!call.entered()) return RPROF_ERR_NESTING;
  MarkerScope scope(t);
  const uint32_t id = region_of(t, key);
  return id == 0 ? RPROF_ERR_NAME : t->begin(id);
}

template <class Key>
int end(Key key) {
  if (!active()) return RPROF_INACTIVE;
  if (rprof::runtime::in_signal_handler()) return refuse_in_handler();
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const CallGuard call(t);
  if (!call.entered()) return RPROF_ERR_NESTING;
  MarkerScope scope(t);
  const uint32_t id = region_of(t, key);
  return id == 0 ? RPROF_ERR_NAME : t->end(id);
}

}  // namespace

namespace rprof::runtime {

int auto_begin(uint32_t region, AutoKind kind, bool only_in_marked, uintptr_t frame) {
  if (!active()) return RPROF_INACTIVE;
  if (in_signal_handler()) return refuse_in_handler();
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const CallGuard call(t);
  if (!call.entered()) return RPROF_ERR_NESTING;
  MarkerScope scope(t);
  return t->begin_auto(region, kind, only_in_marked, frame);
}

int auto_end(uint32_t region) {
  if (!active()) return RPROF_INACTIVE;
  if (in_signal_handler()) return refuse_in_handler();
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const CallGuard call(t);
  if (!call.entered()) return RPROF_ERR_NESTING;
  MarkerScope scope(t);
  return t->end_auto(region);
}

}  // namespace rprof::runtime

extern "C" {

RPROF_API int rprof_begin(const char* name) { return begin(name); }
RPROF_API int rprof_end(const char* name) { return end(name); }
RPROF_API int rprof_begin_site(rprof_site* site) { return begin(site); }
RPROF_API int rprof_end_site(rprof_site* site) { return end(site); }

RPROF_API int rprof_work(double flops, double bytes) {
  if (!active()) return RPROF_INACTIVE;
  if (rprof::runtime::in_signal_handler()) return refuse_in_handler();
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const CallGuard call(t);
  if (!call.entered()) return RPROF_ERR_NESTING;
  return t->work(flops, bytes);
}

RPROF_API int rprof_region_read(const char* name, uint64_t* calls, double* seconds,
                                uint64_t* counters, int* num_counters) {
  const int capacity = num_counters != nullptr && counters != nullptr ? *num_counters : 0;
  if (calls != nullptr) *calls = 0;
  if (seconds != nullptr) *seconds = 0;
  if (num_counters != nullptr) *num_counters = 0;
  if (name == nullptr || *name == '\0') return RPROF_ERR_NAME;
  if (!active()) return RPROF_INACTIVE;
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  MarkerScope scope(t);
  const uint32_t id = rprof::runtime::find_region(name);
  if (id == 0) return RPROF_OK;  // never opened anywhere: zeros
  const rprof::runtime::RegionTotals r = t->totals(id);
  if (calls != nullptr) *calls = r.calls;
  if (seconds != nullptr) {
    *seconds = static_cast<double>(rprof::runtime::ticks_to_ns(r.incl_ticks)) * 1e-9;
  }
  const int n = capacity < t->backend_counters() ? capacity : t->backend_counters();
  for (int k = 0; k < n; ++k) counters[k] = r.incl[k];
  if (num_counters != nullptr) *num_counters = n > 0 ? n : 0;
  return RPROF_OK;
}

RPROF_API const char* rprof_counter_name(int k) {
  return active() ? rprof::runtime::session_counter_name(k) : nullptr;
}

RPROF_API int rprof_active(void) { return active() ? 1 : 0; }

RPROF_API int rprof_flush(void) {
  if (!active()) return RPROF_INACTIVE;
  return rprof::runtime::flush_profile("explicit", 0) == 0 ? RPROF_OK
                                                           : RPROF_ERR_IO;
}

}  // extern "C"
