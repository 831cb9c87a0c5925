// libpapi loaded with dlopen, so neither librprof.so nor rprof links it: a
// user program runs without PAPI installed, and only `--backend=papi` needs
// it. Compiled when papi.h is found (RPROF_HAVE_PAPI); the header's version
// must match the library's major.minor (PAPI_library_init checks it).
#ifndef RPROF_BACKENDS_PAPI_PAPI_API_H_
#define RPROF_BACKENDS_PAPI_PAPI_API_H_

#include <string>

namespace rprof {

struct PapiApi {
  int (*library_init)(int);
  int (*thread_init)(unsigned long (*)(void));
  int (*create_eventset)(int*);
  int (*add_named_event)(int, const char*);
  int (*start)(int);
  int (*stop)(int, long long*);
  int (*read)(int, long long*);
  int (*cleanup_eventset)(int);
  int (*destroy_eventset)(int*);
  int (*num_cmp_hwctrs)(int);
  char* (*strerror)(int);
};

// The library, loaded and initialised for threads once per process; null and
// *why (one line: not installed, wrong version, init failed) otherwise.
const PapiApi* papi_api(std::string* why);

// "PAPI_ENOEVNT (Event does not exist)" for people.
std::string papi_error(const PapiApi& api, int code);

}  // namespace rprof

#endif  // RPROF_BACKENDS_PAPI_PAPI_API_H_
