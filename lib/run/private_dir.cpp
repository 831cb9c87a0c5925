#include "run/private_dir.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace rprof {
namespace {

namespace fs = std::filesystem;

std::string tmp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp == '/' ? tmp : "/tmp";
}

// The inode of this process's pid namespace ("pid:[4026531836]"), 0 when
// /proc does not say.
unsigned long pid_namespace() {
  char buf[64];
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long ino = 0;
  return std::sscanf(buf, "pid:[%lu]", &ino) == 1 ? ino : 0;
}

}  // namespace

PrivateDir::PrivateDir(const std::string& kind, const std::string& fallback) {
  const std::string wanted = tmp_root();
  const std::string name = "/rprof-" + kind + "." + std::to_string(pid_namespace()) + "." +
                           std::to_string(getpid()) + ".XXXXXX";
  int err = 0;
  for (const std::string& base : {wanted, std::string("/tmp"), fallback}) {
    if (base.empty()) continue;
    std::string templ = base + name;
    if (mkdtemp(templ.data()) != nullptr) {
      path_ = templ;
      break;
    }
    if (err == 0) err = errno;
  }
  if (err != 0 && kind == "tables") {
    warning_ = "the shared region tables could not be made in " + wanted + " (" +
               std::strerror(err) + ")" +
               (path_.empty() ? ": regions are kept only by a raw profile written at exit, "
                                "not when the program ends by _exit(), exec() or a signal"
                              : "; they were made in " + fs::path(path_).parent_path().string());
  } else if (err != 0) {
    warning_ = "rprof's " + kind + " directory could not be made in " + wanted + " (" +
               std::strerror(err) + ")" +
               (path_.empty() ? "" : "; it was made in " + fs::path(path_).parent_path().string());
  }
}

PrivateDir::~PrivateDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

int clean_stale_private_dirs() {
  const unsigned long ns = pid_namespace();
  int removed = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp_root(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rprof-", 0) != 0) continue;
    char kind[16];
    unsigned long dir_ns = 0;
    long pid = 0;
    int end = 0;
    if (std::sscanf(name.c_str(), "rprof-%15[a-z].%lu.%ld.%n", kind, &dir_ns, &pid, &end) != 3 ||
        end == 0 || name.size() != static_cast<size_t>(end) + 6) {
      continue;
    }
    if (std::string(kind) != "tables" && std::string(kind) != "stdin") continue;
    struct stat st{};
    if (lstat(e.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
      continue;
    }
    if (dir_ns != ns || pid <= 0 || kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) {
      continue;
    }
    std::error_code rm;
    fs::remove_all(e.path(), rm);
    removed += rm ? 0 : 1;
  }
  return removed;
}

}  // namespace rprof
