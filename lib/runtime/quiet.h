// Keeping the runtime's own work out of a counting backend's counts, [program]
// included: start-up (the session, the backend), registering a thread, and
// every flush (the raw writer at exit, on a fatal signal, rprof_flush()).
//
// What the runtime calls outside itself (getenv, malloc, gethostname, open,
// write, clock_gettime) is ordinary library code that a backend counting
// instructions (sim) would count as the program's. Between quiet_begin() and
// quiet_end() every backend that declared quiet hooks (rprof_backend(... QUIET)
// in its folder's CMakeLists.txt; the sim backend: its tool counts nothing on
// this thread and its cache model sees no access) is told so. A backend
// without hooks costs nothing here; the hooks themselves must be cheap when
// their backend is not the one running (sim: a load and a branch).
// Brackets nest. Not for the markers' hot path (Backend::enter_marker is).
#ifndef RPROF_RUNTIME_QUIET_H_
#define RPROF_RUNTIME_QUIET_H_

namespace rprof {

void quiet_begin();
void quiet_end();

// quiet_begin() for the life of a scope.
class Quiet {
 public:
  Quiet() { quiet_begin(); }
  ~Quiet() { quiet_end(); }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;
};

}  // namespace rprof

#endif  // RPROF_RUNTIME_QUIET_H_
