// rprof's private working directories under $TMPDIR (default /tmp): the
// shared region tables of a pass (rprof-tables.*) and the saved stdin of a
// run (rprof-stdin.*). Each is mkdtemp'd (mode 0700) and removed with
// everything in it when its owner is done.
//
// A name carries its owner: rprof-<kind>.<pid namespace>.<pid>.XXXXXX. An
// rprof killed by SIGKILL leaves its directories behind; the next rprof
// removes those whose owner is dead: same user, same pid namespace (a pid of
// another namespace says nothing here), and no process of that pid
// (kill(pid, 0) fails with ESRCH). A pid reused since is taken as alive: the
// directory then waits for a later start.
#ifndef RPROF_RUN_PRIVATE_DIR_H_
#define RPROF_RUN_PRIVATE_DIR_H_

#include <string>

namespace rprof {

class PrivateDir {
 public:
  // kind: "tables", "stdin". Made under $TMPDIR, else /tmp, else fallback
  // (when given); warning() then says where $TMPDIR failed and where it was
  // made instead. path() is empty when it cannot be made anywhere.
  explicit PrivateDir(const std::string& kind, const std::string& fallback = {});
  ~PrivateDir();
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::string& path() const { return path_; }
  const std::string& warning() const { return warning_; }

 private:
  std::string path_;
  std::string warning_;
};

// Removes the private directories of dead rprof processes (the rule above);
// returns how many.
int clean_stale_private_dirs();

}  // namespace rprof

#endif  // RPROF_RUN_PRIVATE_DIR_H_
