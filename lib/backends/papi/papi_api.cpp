#include "backends/papi/papi_api.h"

#include <dlfcn.h>
#include <papi.h>
#include <pthread.h>

#include <mutex>

namespace rprof {
namespace {

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

template <typename F>
bool bind(void* lib, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(lib, name));
  return *f != nullptr;
}

}  // namespace

const PapiApi* papi_api(std::string* why) {
  static PapiApi api;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string versioned = "libpapi.so." + std::to_string(PAPI_VERSION_MAJOR(PAPI_VERSION)) +
                                  "." + std::to_string(PAPI_VERSION_MINOR(PAPI_VERSION));
    void* lib = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      error = "PAPI is not installed (" + versioned + " not found; apt-get install libpapi-dev)";
      return;
    }
    const bool bound =
        bind(lib, "PAPI_library_init", &api.library_init) &&
        bind(lib, "PAPI_thread_init", &api.thread_init) &&
        bind(lib, "PAPI_create_eventset", &api.create_eventset) &&
        bind(lib, "PAPI_add_named_event", &api.add_named_event) &&
        bind(lib, "PAPI_start", &api.start) && bind(lib, "PAPI_stop", &api.stop) &&
        bind(lib, "PAPI_read", &api.read) &&
        bind(lib, "PAPI_cleanup_eventset", &api.cleanup_eventset) &&
        bind(lib, "PAPI_destroy_eventset", &api.destroy_eventset) &&
        bind(lib, "PAPI_num_cmp_hwctrs", &api.num_cmp_hwctrs) &&
        bind(lib, "PAPI_strerror", &api.strerror);
    if (!bound) {
      error = "the PAPI library lacks functions rprof needs (" + std::string(dlerror()) + ")";
      return;
    }
    const int v = api.library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
      error = v > 0 ? "the PAPI library's version differs from the papi.h rprof was built with; "
                      "rebuild rprof"
                    : "PAPI_library_init failed: " + papi_error(api, v);
      return;
    }
    const int t = api.thread_init(thread_id);
    if (t != PAPI_OK) {
      error = "PAPI_thread_init failed: " + papi_error(api, t);
      return;
    }
    ok = true;
  });
  if (!ok) {
    *why = error;
    return nullptr;
  }
  return &api;
}

std::string papi_error(const PapiApi& api, int code) {
  const char* s = api.strerror(code);
  return std::string(s ? s : "unknown PAPI error") + " (PAPI code " + std::to_string(code) + ")";
}

}  // namespace rprof
