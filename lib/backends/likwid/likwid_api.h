// liblikwid loaded with dlopen (as for PAPI, so user programs never link it).
// Compiled when likwid.h is found (RPROF_HAVE_LIKWID).
#ifndef RPROF_BACKENDS_LIKWID_LIKWID_API_H_
#define RPROF_BACKENDS_LIKWID_LIKWID_API_H_

#include <string>

namespace rprof {

struct LikwidApi {
  int (*topology_init)();
  int (*perfmon_init)(int, const int*);
  int (*perfmon_add_event_set)(const char*);
  int (*perfmon_setup_counters)(int);
  int (*perfmon_start_counters)();
  int (*perfmon_read_counters_cpu)(int);
  double (*perfmon_get_result)(int, int, int);
  int (*perfmon_get_number_of_events)(int);
};

// The library with its symbols bound; null and *why when it is not installed.
const LikwidApi* likwid_api(std::string* why);

}  // namespace rprof

#endif  // RPROF_BACKENDS_LIKWID_LIKWID_API_H_
