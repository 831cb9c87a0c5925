// Reads the shared region tables a process left in the launcher's private
// directory (runtime/shared_tables.h) after it is gone, as a RawProfile: what
// it completed however it ended (_exit, exec, any signal, SIGKILL included).
//
// The file is the app's: nothing in it is trusted. Magic, version and the
// sizes of every structure must be this build's; every record, count, index,
// parent link and name is bounds-checked; a file above kMaxTablesBytes is
// refused, and files beyond kMaxTablesFiles are not read. Anything wrong throws Error naming the file and the field.
#ifndef RPROF_PROFILE_SHARED_TABLES_READER_H_
#define RPROF_PROFILE_SHARED_TABLES_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "profile/raw_profile.h"
#include "runtime/shared_tables.h"

namespace rprof {

// Largest tables file read: the runtime's own limit, so every file it writes
// is read (runtime/shared_tables.h); and most files per run.
using runtime::kMaxTablesBytes;
inline constexpr size_t kMaxTablesFiles = 4096;

struct TablesImage {
  RawProfile raw;  // reason "tables"
  // What the image's runtime wrote as a raw profile: none, final (it has
  // everything), explicit (rprof_flush; later work only here), failed
  // (raw_errno says why).
  runtime::RawState raw_state = runtime::RawState::kNone;
  int raw_errno = 0;
  bool incomplete = false;  // some table could not be mapped (on the heap)
  int grow_errno = 0;       // why the file stopped growing (EFBIG: at kMaxTablesBytes)
  struct Open {
    std::string name;
    double open_s = 0;
  };
  std::vector<Open> open;  // regions open when the process ended, outermost first
};

// now_mono_ns: CLOCK_MONOTONIC when the launcher saw the app end (open
// regions' times run up to it).
TablesImage read_shared_tables(const std::string& file, uint64_t now_mono_ns);
// rprof-tables.<pid>.<seq> files in dir, sorted by pid then seq.
std::vector<std::string> list_shared_tables(const std::string& dir);

}  // namespace rprof

#endif  // RPROF_PROFILE_SHARED_TABLES_READER_H_
