#include "backends/likwid/likwid_api.h"

#include <dlfcn.h>

#include <mutex>

namespace rprof {
namespace {

template <typename F>
bool bind(void* lib, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(lib, name));
  return *f != nullptr;
}

}  // namespace

const LikwidApi* likwid_api(std::string* why) {
  static LikwidApi api;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* n : {"liblikwid.so", "liblikwid.so.5", "liblikwid.so.5.2"}) {
      if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (lib == nullptr) {
      error = "likwid is not installed (liblikwid.so not found; apt-get install likwid)";
      return;
    }
    ok = bind(lib, "topology_init", &api.topology_init) &&
         bind(lib, "perfmon_init", &api.perfmon_init) &&
         bind(lib, "perfmon_addEventSet", &api.perfmon_add_event_set) &&
         bind(lib, "perfmon_setupCounters", &api.perfmon_setup_counters) &&
         bind(lib, "perfmon_startCounters", &api.perfmon_start_counters) &&
         bind(lib, "perfmon_readCountersCpu", &api.perfmon_read_counters_cpu) &&
         bind(lib, "perfmon_getResult", &api.perfmon_get_result) &&
         bind(lib, "perfmon_getNumberOfEvents", &api.perfmon_get_number_of_events);
    if (!ok) error = "the likwid library lacks functions rprof needs (" + std::string(dlerror()) + ")";
  });
  if (!ok) {
    *why = error;
    return nullptr;
  }
  return &api;
}

}  // namespace rprof
