// Keeping the runtime's own work out of every simulated count, [program]
// included: start-up (the session, the backend), registering a thread, and
// every flush (the raw writer at exit, on a fatal signal, rprof_flush()).
//
// The runtime's own instructions are never instrumented (tool/rp_exclude.h),
// but what it calls outside itself (getenv, malloc, gethostname, open, write,
// clock_gettime) is ordinary library code. Between sim_quiet_begin() and
// sim_quiet_end() the tool counts nothing on this thread and its cache model
// sees no access (RPROF_SIM_REQ_SUSPEND/RESUME, sim_protocol.h): the counters
// and the simulated caches are left as the program left them.
//
// Outside rprof's Valgrind tool, or when the launcher did not ask for the sim
// backend, both are a load and a branch: no client request is issued, so other
// Valgrind tools never see (and warn about) a request they do not know.
// Brackets nest. Not for the markers' hot path (Backend::enter_marker is).
#ifndef RPROF_BACKENDS_SIM_SIM_QUIET_H_
#define RPROF_BACKENDS_SIM_SIM_QUIET_H_

namespace rprof {

void sim_quiet_begin();
void sim_quiet_end();

// sim_quiet_begin() for the life of a scope.
class SimQuiet {
 public:
  SimQuiet() { sim_quiet_begin(); }
  ~SimQuiet() { sim_quiet_end(); }
  SimQuiet(const SimQuiet&) = delete;
  SimQuiet& operator=(const SimQuiet&) = delete;
};

}  // namespace rprof

#endif  // RPROF_BACKENDS_SIM_SIM_QUIET_H_
