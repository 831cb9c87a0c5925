#include <cstdlib>

#include "backends/backend.h"
#include "backends/fake/fake_backend.h"
#include "backends/perf/perf_backend.h"
#include "backends/sim/sim_quiet.h"
#include "backends/time/time_backend.h"
#include "runtime/handshake.h"

namespace rprof {

#if defined(RPROF_HAVE_SIM_CLIENT)
std::unique_ptr<Backend> make_sim_backend(std::string* why);
#endif
#if !defined(RPROF_HAVE_SIM_CLIENT)
// No sim backend in this runtime: nothing to keep out of its counts.
void sim_quiet_begin() {}
void sim_quiet_end() {}
#endif
#if defined(RPROF_HAVE_PAPI)
std::unique_ptr<Backend> make_papi_backend(std::string* why);
#endif
#if defined(RPROF_HAVE_LIKWID)
std::unique_ptr<Backend> make_likwid_backend(std::string* why);
#endif

std::unique_ptr<Backend> make_runtime_backend(std::string_view name,
                                              std::string* why) {
  if (name.empty() || name == "time") return std::make_unique<TimeBackend>();
  if (name == "fake") {
    const char* step = std::getenv(RPROF_ENV_FAKE_STEP);
    return std::make_unique<FakeBackend>(step ? std::strtoull(step, nullptr, 10)
                                              : 1);
  }
#if defined(RPROF_HAVE_SIM_CLIENT)
  if (name == "sim") return make_sim_backend(why);
#endif
  if (name == "perf") return make_perf_backend(why);
#if defined(RPROF_HAVE_PAPI)
  if (name == "papi") return make_papi_backend(why);
#endif
#if defined(RPROF_HAVE_LIKWID)
  if (name == "likwid") return make_likwid_backend(why);
#endif
  *why = "backend '" + std::string(name) + "' is not built into this runtime";
  return nullptr;
}

}  // namespace rprof
