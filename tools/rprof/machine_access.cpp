#include "tools/rprof/machine_access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "machine/calibrate.h"
#include "machine/machine_file.h"
#include "machine/thread_team.h"
#include "analysis/analysis.h"
#include "tools/rprof/cli.h"
#include "runtime/handshake.h"

namespace rprof {

std::string machine_file_path(const std::string& explicit_file) {
  if (!explicit_file.empty()) return explicit_file;
  const char* env = std::getenv(RPROF_ENV_MACHINE_FILE);
  if (env != nullptr && env[0] != '\0') return env;
  return machine_cache_path(detect_topology().cpu, static_cast<int>(allowed_cpus().size()));
}

namespace {

// Where a measured machine is cached when the cache directory cannot hold it
// (a read-only HOME, an XDG_CACHE_HOME that is a file, no HOME):
// $TMPDIR/rprof-cache-<uid>/, a directory of this user alone (mode 0700,
// checked before a file in it is trusted). Empty when there is none.
std::string fallback_cache_dir(bool create) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") +
                          "/rprof-cache-" + std::to_string(getuid());
  if (create) mkdir(dir.c_str(), 0700);
  struct stat st{};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 077) != 0) {
    return "";
  }
  return dir;
}

// The cache's file name for this CPU and thread count (machine_file.h).
std::string cache_file_name() {
  return "machine-" + cpu_key(detect_topology().cpu) + "-" +
         std::to_string(allowed_cpus().size()) + "t.json";
}

std::string fallback_cache_file(const std::string& name, bool create) {
  const std::string dir = fallback_cache_dir(create);
  return dir.empty() ? "" : dir + "/" + name;
}

// The cache file for this CPU: the cache directory's, or "" with *why when
// there is no cache directory (neither XDG_CACHE_HOME nor HOME).
std::string cache_file_or_why(std::string* why) {
  try {
    return machine_cache_path(detect_topology().cpu, static_cast<int>(allowed_cpus().size()));
  } catch (const Error& e) {
    *why = e.what();
    return "";
  }
}

}  // namespace

MachineChoice find_machine(const std::string& explicit_file, bool may_calibrate) {
  MachineChoice c;
  const char* env = std::getenv(RPROF_ENV_MACHINE_FILE);
  const bool chosen = !explicit_file.empty() || (env != nullptr && env[0] != '\0');
  std::string no_cache_dir;
  c.file = chosen ? machine_file_path(explicit_file) : cache_file_or_why(&no_cache_dir);
  std::error_code ec;
  if (!chosen) {
    // A machine measured while the cache directory was unusable.
    const std::string fallback = fallback_cache_file(
        cache_file_name(),
        false);
    if ((c.file.empty() || !std::filesystem::exists(c.file, ec)) && !fallback.empty() &&
        std::filesystem::exists(fallback, ec)) {
      c.file = fallback;
    }
  }
  const CpuId here = detect_topology().cpu;
  if (!chosen && (c.file.empty() || !std::filesystem::exists(c.file, ec))) {
    if (system_root() != "/") {
      // A recorded machine: measuring this one would give the wrong ceilings.
      c.notes.push_back("no roofline: RPROF_SYSROOT=" + system_root() +
                        " is a recorded machine; give its machine file with --machine FILE "
                        "or " RPROF_ENV_MACHINE_FILE);
      return c;
    }
    if (!may_calibrate) {
      c.notes.push_back("no roofline: no machine file for this CPU yet (run rprof machine, "
                        "or pass --machine FILE)");
      return c;
    }
    std::cerr << "rprof: no machine file for this CPU yet: measuring its ceilings once "
                 "(rprof machine --quick, under 20 s)\n";
    CalibrationOptions opt;
    opt.mode = CalibrationMode::kQuick;
    opt.rprof_version = kVersion;
    const auto t0 = std::chrono::steady_clock::now();
    Machine m = calibrate(opt);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string measured =
        "ceilings measured now by a quick calibration (" +
        std::to_string(static_cast<int>(s + 0.5)) + " s)";
    // The cache directory first; when it cannot hold the file, this user's
    // private folder under $TMPDIR; when neither can, this run keeps the
    // machine in memory and says once why later runs measure again.
    std::string why = no_cache_dir;
    if (!c.file.empty()) {
      try {
        save_machine_file(m, c.file);
        c.notes.push_back(measured + ", cached in " + c.file);
        std::cerr << "rprof: machine cached in " << c.file << "\n";
        c.machine = std::move(m);
        return c;
      } catch (const Error& e) {
        why = e.what();
      }
    }
    const std::string fallback = fallback_cache_file(
        cache_file_name(),
        true);
    std::string saved_in;
    if (!fallback.empty()) {
      try {
        save_machine_file(m, fallback);
        saved_in = fallback;
      } catch (const Error& e) {
        why += "; " + std::string(e.what());
      }
    }
    const std::string said =
        saved_in.empty()
            ? "not cached (" + why + "): each run measures again; pass --machine FILE (rprof "
              "machine -o FILE) to measure once"
            : "cached in " + saved_in + ", as the cache directory cannot hold it (" + why + ")";
    std::cerr << "rprof: machine " << said << "\n";
    c.notes.push_back(measured + ", " + said);
    c.file = saved_in;
    c.machine = std::move(m);
    return c;
  }
  Machine m = load_machine_file(c.file);
  const std::string why = cpu_mismatch(m.cpu, here);
  if (!why.empty()) {
    throw Error(c.file + ": refused: " + why +
                ". Measure this machine with: rprof machine (or pass its own --machine FILE)");
  }
  c.machine = std::move(m);
  return c;
}

bool profile_has_roofline_data(const Profile& p) {
  for (const Region& r : p.regions) {
    if (region_metrics(r.counters).has_flops) return true;
  }
  return false;
}

bool profile_needs_machine(const Profile& p) {
  for (const Region& r : p.regions) {
    const Metrics m = region_metrics(r.counters);
    if (m.has_flops || m.any_traffic()) return true;
  }
  return false;
}

}  // namespace rprof
