// Writes the raw profile (versioned JSON, docs/profile-schema.md) of this
// process. Async-signal-safe: no allocation, no stdio, no locale; integers
// only (times converted from clock ticks to ns, counts, declared work rounded to integers). The file is
// written to a temporary name and renamed, so readers never see half a file.
#ifndef RPROF_RUNTIME_RAW_WRITER_H_
#define RPROF_RUNTIME_RAW_WRITER_H_

#include <cstdint>

#include "runtime/handshake.h"

namespace rprof::runtime {

class ThreadState;

inline constexpr int kRawSchemaVersion = RPROF_RAW_SCHEMA_VERSION;

struct RawRunInfo {
  const char* dir;       // output directory
  const char* host;
  const char* backend;   // runtime backend name
  const char* const* counter_names;
  int num_counters;
  int pid;
  int parent_pid;        // pid this process was forked from, or 0
  int rank;              // MPI rank or -1
  int world_size;        // MPI ranks in the job, or -1
  uint64_t start_ticks;  // runtime clock (runtime/clock.h) at runtime start
  uint64_t end_ticks;    // runtime clock at flush
  int64_t start_unix_s;  // wall clock at runtime start
  const char* reason;    // "exit", "signal", "explicit"
  int signal;            // fatal signal number or 0
};

// Returns 0 on success, -errno on failure.
int write_raw_profile(const RawRunInfo& info, const ThreadState* threads);

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_RAW_WRITER_H_
