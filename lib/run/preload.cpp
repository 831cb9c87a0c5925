#include "run/preload.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "common/error.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

bool nameable(const std::string& path) {
  return !path.empty() && path.find_first_of(" :\t\n") == std::string::npos;
}

// A directory of this user's only (not a link, owner uid, mode 0700): one
// another user made first under a shared /tmp is not used.
bool private_dir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st {};
  return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
         (st.st_mode & 0077) == 0;
}

}  // namespace

std::string preloadable_path(const std::string& lib) {
  if (nameable(lib)) return lib;
  std::error_code ec;
  const fs::path target = fs::absolute(lib, ec);
  const std::string name = fmt::format("{:016x}-{}", std::hash<std::string>{}(target.string()),
                                       target.filename().string());
  std::vector<std::string> bases;
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t == '/') bases.push_back(t);
  for (const char* b : {"/tmp", "/dev/shm", "/var/tmp"}) bases.push_back(b);
  for (const std::string& base : bases) {
    const std::string dir = fmt::format("{}/rprof-preload-{}", base, getuid());
    std::string link = dir + "/" + name;
    for (char& c : link) {
      if (c == ' ' || c == ':' || c == '\t' || c == '\n') c = '_';
    }
    if (!nameable(dir) || !private_dir(dir)) continue;
    std::error_code read_ec;
    if (fs::read_symlink(link, read_ec) == target) return link;
    // A fresh link renamed over any older one: runs that start together
    // each see a whole link.
    const std::string tmp = fmt::format("{}.{}", link, getpid());
    unlink(tmp.c_str());
    if (symlink(target.c_str(), tmp.c_str()) != 0) continue;
    if (rename(tmp.c_str(), link.c_str()) != 0) {
      unlink(tmp.c_str());
      continue;
    }
    return link;
  }
  throw Error("cannot preload " + lib +
              ": LD_PRELOAD splits paths at spaces and colons, and no directory for a link to "
              "it could be made in $TMPDIR, /tmp, /dev/shm or /var/tmp; install rprof under a "
              "path without spaces");
}

void prepend_preload(std::map<std::string, std::string>& env,
                     const std::vector<std::string>& libs) {
  std::string preload;
  for (const std::string& lib : libs) {
    if (lib.empty()) continue;
    preload += (preload.empty() ? "" : ":") + preloadable_path(lib);
  }
  if (preload.empty()) return;
  std::string user;
  if (auto it = env.find("LD_PRELOAD"); it != env.end()) {
    user = it->second;
  } else if (const char* inherited = std::getenv("LD_PRELOAD"); inherited != nullptr) {
    user = inherited;
  }
  env["LD_PRELOAD"] = user.empty() ? preload : preload + ":" + user;
}

}  // namespace rprof
