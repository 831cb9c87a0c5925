// The raw profile one process writes (format "rprof-raw"), parsed and
// validated. Every defect is reported as an Error naming the file and what is
// wrong; nothing is guessed.
#ifndef RPROF_PROFILE_RAW_PROFILE_H_
#define RPROF_PROFILE_RAW_PROFILE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/handshake.h"

namespace rprof {

class JsonText;  // common/json_reader.h

inline constexpr int kRawSchemaVersion = RPROF_RAW_SCHEMA_VERSION;

struct RawNode {
  int64_t parent = -1;  // index into RawThread::nodes, or -1 for a top region
  uint32_t region = 0;  // id into RawProfile::region_names
  uint64_t calls = 0;
  uint64_t incl_ns = 0;
  uint64_t excl_ns = 0;
  uint64_t work_calls = 0;
  double work_flops = 0;
  double work_bytes = 0;
  std::vector<uint64_t> incl;  // per RawProfile::counters
  std::vector<uint64_t> excl;
  uint64_t open_calls = 0;     // instances still open at the flush
  uint64_t open_ns = 0;        // their elapsed time up to the flush
};

struct RawError {
  std::string kind;
  uint32_t expected = 0;
  uint32_t got = 0;
  uint64_t count = 0;
};

struct RawThread {
  uint32_t index = 0;
  int64_t tid = 0;
  bool exited = false;
  std::vector<RawNode> nodes;
  std::vector<RawError> errors;
};

struct RawProfile {
  std::string file;
  int schema_version = 0;
  std::string host;
  int64_t pid = 0;
  int64_t parent_pid = 0;
  int64_t rank = -1;
  int64_t world_size = -1;  // ranks in the MPI job, -1 when not MPI
  std::string backend;
  int64_t start_unix_s = 0;
  uint64_t duration_ns = 0;
  // The clock the runtime timed regions with ("tsc" or "monotonic") and its
  // rate; every *_ns field is already converted to ns with that rate.
  // Profiles written before the field existed used CLOCK_MONOTONIC.
  std::string clock_source = "monotonic";
  uint64_t clock_ticks_per_s = 1000000000ull;
  std::string reason;  // exit, signal, explicit
  int signal = 0;
  std::vector<std::string> counters;
  std::map<uint32_t, std::string> region_names;
  std::vector<RawThread> threads;
};

// Sizes are capped (common/limits.h): a file beyond one is refused with one
// line naming the file, the field and the limit. The text is read as a
// stream, each node converted as it ends (raw_profile_reader.cpp), and
// read_raw_profile reads the file as it parses it (1 MiB at a time): memory
// is the RawProfile, whatever the file holds.
RawProfile parse_raw_profile(const std::string& text, const std::string& file);
RawProfile parse_raw_profile(JsonText& text, const std::string& file);
RawProfile read_raw_profile(const std::string& file);

// The raw profile as the runtime writes it (the inverse of
// parse_raw_profile): what the launcher recovered from a process's shared
// region tables is saved next to the raw profiles, so `rprof merge` of the
// output directory sees it too.
std::string raw_profile_to_json(const RawProfile& p);
// Reads many files on all cores, in order. A file that fails is skipped with
// its message appended to *errors, or, when errors is null, the first failure
// (in file order) is thrown.
std::vector<RawProfile> read_raw_profiles(const std::vector<std::string>& files,
                                          std::vector<std::string>* errors);
// Raw profile files (rprof-raw.*.json) in a directory, sorted.
std::vector<std::string> list_raw_profiles(const std::string& dir);

}  // namespace rprof

#endif  // RPROF_PROFILE_RAW_PROFILE_H_
