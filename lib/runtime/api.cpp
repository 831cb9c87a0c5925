// The C ABI. Never throws, never aborts: errors are recorded per thread and
// reported by the tool at the end; calls return a status code.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "rprof/rprof.h"
#include "runtime/region_table.h"
#include "runtime/session.h"

using rprof::runtime::current_thread;
using rprof::runtime::ErrorKind;
using rprof::runtime::g_active;
using rprof::runtime::intern_region;
using rprof::runtime::ThreadState;

namespace {

inline bool active() { return g_active.load(std::memory_order_relaxed); }

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
  const uint32_t id = intern_region(name);
  if (id == 0) {
    t->record_error(ErrorKind::kTooManyRegions, 0, 0);
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

template <class Key>
int begin(Key key) {
  if (!active()) return RPROF_INACTIVE;
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const uint32_t id = region_of(t, key);
  return id == 0 ? RPROF_ERR_NAME : t->begin(id);
}

template <class Key>
int end(Key key) {
  if (!active()) return RPROF_INACTIVE;
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  const uint32_t id = region_of(t, key);
  return id == 0 ? RPROF_ERR_NAME : t->end(id);
}

}  // namespace

extern "C" {

RPROF_API int rprof_begin(const char* name) { return begin(name); }
RPROF_API int rprof_end(const char* name) { return end(name); }
RPROF_API int rprof_begin_site(rprof_site* site) { return begin(site); }
RPROF_API int rprof_end_site(rprof_site* site) { return end(site); }

RPROF_API int rprof_work(double flops, double bytes) {
  if (!active()) return RPROF_INACTIVE;
  ThreadState* t = current_thread();
  if (t == nullptr) return RPROF_ERR_CAPACITY;
  return t->work(flops, bytes);
}

RPROF_API int rprof_active(void) { return active() ? 1 : 0; }

RPROF_API int rprof_flush(void) {
  if (!active()) return RPROF_INACTIVE;
  return rprof::runtime::flush_profile("explicit", 0) == 0 ? RPROF_OK
                                                           : RPROF_ERR_IO;
}

}  // extern "C"
