// The `perf` runtime backend: Linux perf_event counters of every thread that
// runs a marker, from the event list the tool passes in RPROF_PERF_EVENTS
// (format: perf_spec.h; RPROF_PERF_GROUP_BASE numbers its groups).
//
// Per-thread groups are opened on each thread at its first marker.
// System-wide (uncore) groups are opened once per process and read only by
// the thread that loaded the runtime (the main thread): a region's uncore
// counts are then the sockets' traffic while that thread was inside it,
// which covers parallel regions the main thread takes part in (OpenMP's
// master does), and are zero on other threads, so sums over threads are not
// multiplied. Regions the main thread never enters get no uncore counts.
#ifndef RPROF_BACKENDS_PERF_PERF_BACKEND_H_
#define RPROF_BACKENDS_PERF_PERF_BACKEND_H_

#include <memory>
#include <string>

#include "runtime/backend.h"

namespace rprof {

// Null (and *why, one line) when the spec is missing or invalid, or when the
// counters cannot be opened here (errno explained, perf_errors.h).
std::unique_ptr<Backend> make_perf_backend(std::string* why);

}  // namespace rprof

#endif  // RPROF_BACKENDS_PERF_PERF_BACKEND_H_
