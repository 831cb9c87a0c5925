// librprof-likwid: LIKWID's marker API (C and Fortran entry points) on top of
// the rprof C API. Linked by programs built with `pkg-config rprof-likwid`,
// and preloaded by the `rprof` launcher into programs built against the real
// liblikwid, whose marker symbols these then take the place of.
//
// Mapping (docs/migrating.md): START/STOP open and close rprof regions;
// INIT, THREADINIT, REGISTER, SWITCH and CLOSE have nothing to do (rprof
// starts with the program and writes its profile at exit); GET returns what
// rprof measured for the region on this thread; RESET sets a per-thread
// baseline for GET only, so the report keeps every call.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compat/fortran_name.h"
#include "rprof/likwid/likwid-marker.h"
#include "rprof/rprof.h"

#define RPROF_COMPAT_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kMaxEvents = 32;  // as many counters as a backend has

struct Reading {
  uint64_t calls = 0;
  double seconds = 0;
  int n = 0;
  uint64_t counters[kMaxEvents] = {};
};

Reading read_region(const char* tag) {
  Reading r;
  r.n = kMaxEvents;
  if (rprof_region_read(tag, &r.calls, &r.seconds, r.counters, &r.n) != RPROF_OK) {
    r = Reading{};
  }
  return r;
}

// LIKWID_MARKER_RESET baselines of this thread (few regions are ever reset).
struct Baseline {
  std::string tag;
  Reading at;
};
thread_local std::vector<Baseline> t_baselines;

const Reading* baseline_of(const char* tag) {
  for (const Baseline& b : t_baselines) {
    if (b.tag == tag) return &b.at;
  }
  return nullptr;
}

// LIKWID's convention: 0 on success, negative on failure. Inactive markers
// (the program runs without `rprof`) are not a failure.
int likwid_status(int rprof_status) { return rprof_status >= 0 ? 0 : -1; }

}  // namespace

RPROF_COMPAT_API void likwid_markerInit(void) {}
RPROF_COMPAT_API void likwid_markerThreadInit(void) {}
RPROF_COMPAT_API void likwid_markerNextGroup(void) {}
RPROF_COMPAT_API void likwid_markerClose(void) {}

RPROF_COMPAT_API int likwid_markerRegisterRegion(const char* regionTag) {
  return regionTag != nullptr && *regionTag != '\0' ? 0 : -1;
}

RPROF_COMPAT_API int likwid_markerStartRegion(const char* regionTag) {
  return likwid_status(rprof_begin(regionTag));
}

RPROF_COMPAT_API int likwid_markerStopRegion(const char* regionTag) {
  return likwid_status(rprof_end(regionTag));
}

RPROF_COMPAT_API int likwid_markerResetRegion(const char* regionTag) {
  if (regionTag == nullptr || *regionTag == '\0') return -1;
  const Reading now = read_region(regionTag);
  for (Baseline& b : t_baselines) {
    if (b.tag == regionTag) {
      b.at = now;
      return 0;
    }
  }
  t_baselines.push_back({regionTag, now});
  return 0;
}

RPROF_COMPAT_API void likwid_markerGetRegion(const char* regionTag, int* nr_events, double* events,
                                             double* time, int* count) {
  Reading r = regionTag != nullptr ? read_region(regionTag) : Reading{};
  if (const Reading* b = regionTag != nullptr ? baseline_of(regionTag) : nullptr) {
    r.calls -= b->calls;
    r.seconds -= b->seconds;
    for (int k = 0; k < r.n && k < b->n; ++k) r.counters[k] -= b->counters[k];
  }
  if (nr_events != nullptr) {
    const int n = events == nullptr ? 0 : (*nr_events < r.n ? *nr_events : r.n);
    for (int k = 0; k < n; ++k) events[k] = static_cast<double>(r.counters[k]);
    *nr_events = n > 0 ? n : 0;
  }
  if (time != nullptr) *time = r.seconds;
  if (count != nullptr) *count = static_cast<int>(r.calls);
}

// Fortran (gfortran: lower case, one trailing underscore, hidden lengths at
// the end), the symbols LIKWID's module `likwid` calls.
RPROF_COMPAT_API void likwid_markerinit_(void) {}
RPROF_COMPAT_API void likwid_markerthreadinit_(void) {}
RPROF_COMPAT_API void likwid_markernextgroup_(void) {}
RPROF_COMPAT_API void likwid_markerclose_(void) {}

RPROF_COMPAT_API void likwid_markerregisterregion_(const char* tag, long len) {
  likwid_markerRegisterRegion(rprof::compat::FortranName(tag, len).c_str());
}
RPROF_COMPAT_API void likwid_markerstartregion_(const char* tag, long len) {
  likwid_markerStartRegion(rprof::compat::FortranName(tag, len).c_str());
}
RPROF_COMPAT_API void likwid_markerstopregion_(const char* tag, long len) {
  likwid_markerStopRegion(rprof::compat::FortranName(tag, len).c_str());
}
RPROF_COMPAT_API void likwid_markerresetregion_(const char* tag, long len) {
  likwid_markerResetRegion(rprof::compat::FortranName(tag, len).c_str());
}
RPROF_COMPAT_API void likwid_markergetregion_(const char* tag, int* nr_events, double* events,
                                              double* time, int* count, long len) {
  likwid_markerGetRegion(rprof::compat::FortranName(tag, len).c_str(), nr_events, events, time,
                         count);
}
