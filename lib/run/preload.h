// Libraries the launcher puts in the program's LD_PRELOAD. The dynamic
// loader splits LD_PRELOAD at spaces and colons, with no way to quote one,
// so a library under a path that holds either (a checkout in "My Projects")
// is reached through a symbolic link in a directory whose path holds neither.
#ifndef RPROF_RUN_PRELOAD_H_
#define RPROF_RUN_PRELOAD_H_

#include <map>
#include <string>
#include <vector>

namespace rprof {

// `lib` itself when LD_PRELOAD can name it; else a symbolic link to it in
// rprof-preload-<uid>/ under the first of $TMPDIR, /tmp, /dev/shm and
// /var/tmp whose path can be named (a directory of this user's, mode 0700,
// links named after a hash of the target, kept for later runs). Throws
// Error when no such directory can be made.
std::string preloadable_path(const std::string& lib);

// Puts `libs` (each through preloadable_path) at the front of env's
// LD_PRELOAD, before the user's own (env's, else the inherited one).
void prepend_preload(std::map<std::string, std::string>& env,
                     const std::vector<std::string>& libs);

}  // namespace rprof

#endif  // RPROF_RUN_PRELOAD_H_
