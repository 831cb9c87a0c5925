// librprof-papi: PAPI's high-level API (C and Fortran entry points) on top of
// the rprof C API. Linked by programs built with `pkg-config rprof-papi`, and
// preloaded by the `rprof` launcher into programs built against the real
// libpapi, whose PAPI_hl_* symbols these then take the place of.
//
// Mapping (docs/migrating.md): region_begin/end open and close rprof regions;
// PAPI_hl_read and PAPI_hl_stop keep PAPI's return codes (thread-local, as in
// PAPI 7) and record nothing.
#include "compat/fortran_name.h"
#include "rprof/papi/papi.h"
#include "rprof/rprof.h"

#define RPROF_COMPAT_API extern "C" __attribute__((visibility("default")))

namespace {

// Regions this thread has open through this API, and whether one began since
// the last PAPI_hl_stop (PAPI's "events running").
thread_local int t_open = 0;
thread_local bool t_running = false;

int papi_status(int rprof_status) {
  switch (rprof_status) {
    case RPROF_OK:
    case RPROF_INACTIVE:
      return PAPI_OK;
    case RPROF_ERR_NAME:
      return PAPI_EINVAL;
    case RPROF_ERR_CAPACITY:
    case RPROF_ERR_DEPTH:
      return PAPI_ENOMEM;
    default:
      return PAPI_EMISC;
  }
}

}  // namespace

RPROF_COMPAT_API int PAPI_hl_region_begin(const char* region) {
  const int rc = papi_status(rprof_begin(region));
  if (rc == PAPI_OK) {
    ++t_open;
    t_running = true;
  }
  return rc;
}

RPROF_COMPAT_API int PAPI_hl_read(const char* region) {
  if (region == nullptr || *region == '\0') return PAPI_EINVAL;
  return t_open > 0 ? PAPI_OK : PAPI_EMISC;
}

RPROF_COMPAT_API int PAPI_hl_region_end(const char* region) {
  if (t_open == 0) {
    rprof_end(region);  // recorded as an end without a begin, with its name
    return PAPI_EMISC;
  }
  const int rc = papi_status(rprof_end(region));
  if (rc == PAPI_OK && t_open > 0) --t_open;
  return rc;
}

RPROF_COMPAT_API int PAPI_hl_stop(void) {
  if (!t_running) return PAPI_ENOEVNT;
  t_running = false;
  return PAPI_OK;
}

// Fortran (gfortran: lower case, one trailing underscore; `check` receives
// the status; the hidden string length comes last), as libpapi exports them.
RPROF_COMPAT_API void papif_hl_region_begin_(const char* region, int* check, long len) {
  const int rc = PAPI_hl_region_begin(rprof::compat::FortranName(region, len).c_str());
  if (check != nullptr) *check = rc;
}
RPROF_COMPAT_API void papif_hl_read_(const char* region, int* check, long len) {
  const int rc = PAPI_hl_read(rprof::compat::FortranName(region, len).c_str());
  if (check != nullptr) *check = rc;
}
RPROF_COMPAT_API void papif_hl_region_end_(const char* region, int* check, long len) {
  const int rc = PAPI_hl_region_end(rprof::compat::FortranName(region, len).c_str());
  if (check != nullptr) *check = rc;
}
RPROF_COMPAT_API void papif_hl_stop_(int* check) {
  const int rc = PAPI_hl_stop();
  if (check != nullptr) *check = rc;
}
