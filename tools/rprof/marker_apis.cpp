#include "tools/rprof/marker_apis.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "runtime/handshake.h"
#include "common/elf_file.h"
#include "common/fs.h"
#include "run/preload.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLikwidApi = "LIKWID marker API";
constexpr const char* kPapiApi = "PAPI high-level API";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// "liblikwid.so", "liblikwid.so.5", "liblikwid.so.5.2": the library itself,
// not liblikwidpin.so.
bool names_library(const std::string& needed, const std::string& stem) {
  return needed == stem + ".so" || starts_with(needed, stem + ".so.");
}

// The drop-in beside this rprof's librprof: <prefix>/<libdir> of an
// installation, <build>/lib of the build tree.
std::string find_shim(const std::string& file, std::string* problem) {
  const std::string dir = self_exe_dir();
  std::vector<std::string> candidates;
  if (!dir.empty()) {
    candidates.push_back(dir + "/" RPROF_LIBDIR_FROM_BINDIR "/" + file);
    candidates.push_back(dir + "/../lib/" + file);
  }
  for (const std::string& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) return fs::path(c).lexically_normal().string();
  }
  *problem = "rprof's drop-in " + file + " was not found beside its librprof (" +
             (candidates.empty() ? std::string("cannot read /proc/self/exe") : candidates[0]) +
             "); reinstall rprof";
  return "";
}

std::vector<MarkerApiUse> uses_of(const std::string& binary) {
  std::vector<MarkerApiUse> uses;
  for (const std::string& needed : elf_needed(binary)) {
    const ShimFor s = shim_for_library(needed);
    if (s.api.empty()) continue;
    MarkerApiUse u;
    u.api = s.api;
    u.binary = binary;
    u.library = needed;
    if (!s.is_shim) u.shim = find_shim(s.shim_file, &u.problem);
    uses.push_back(u);
  }
  return uses;
}

}  // namespace

ShimFor shim_for_library(const std::string& needed) {
  if (names_library(needed, "librprof-likwid")) return {"librprof-likwid.so", kLikwidApi, true};
  if (names_library(needed, "librprof-papi")) return {"librprof-papi.so", kPapiApi, true};
  if (names_library(needed, "liblikwid")) return {"librprof-likwid.so", kLikwidApi, false};
  if (names_library(needed, "libpapi")) return {"librprof-papi.so", kPapiApi, false};
  return {};
}

std::vector<MarkerApiUse> detect_marker_apis(const std::string& program,
                                             const std::vector<std::string>& argv) {
  std::vector<MarkerApiUse> uses = uses_of(program);
  for (size_t i = 1; uses.empty() && i < argv.size(); ++i) {
    std::error_code ec;
    if (!fs::is_regular_file(argv[i], ec)) continue;
    uses = uses_of(argv[i]);
  }
  return uses;
}

void preload_marker_shims(const std::vector<MarkerApiUse>& uses,
                          std::map<std::string, std::string>& env) {
  std::vector<std::string> libs;
  for (const MarkerApiUse& u : uses) {
    if (!u.shim.empty()) libs.push_back(u.shim);
  }
  if (libs.empty()) return;
  // librprof itself too, beside the drop-ins: preloaded, it comes before libc
  // in the search order (as a drop-in's dependency it would come after), so
  // its sigaction & co wrap the program's signal handlers (markers called in
  // them are refused; docs/profile-schema.md).
  const std::string runtime = (fs::path(libs.front()).parent_path() / "librprof.so").string();
  if (access(runtime.c_str(), R_OK) == 0) libs.push_back(runtime);
  // Only the program itself records (not mpirun, nor what it starts).
  std::error_code ec;
  const fs::path target = fs::canonical(uses.front().binary, ec);
  env[RPROF_ENV_PRELOAD_PROGRAM] = ec ? uses.front().binary : target.string();
  prepend_preload(env, libs);
}

void note_marker_apis(const std::vector<MarkerApiUse>& uses, Profile& p) {
  for (const MarkerApiUse& u : uses) {
    const std::string file = fs::path(u.binary).filename().string();
    if (!u.problem.empty()) {
      std::cerr << "rprof: warning: " << u.problem << "\n";
      p.notes.push_back("regions of the " + u.api + " were not recorded: " + u.problem);
    } else if (u.shim.empty()) {
      p.notes.push_back("regions from the " + u.api + ": " + file + " is built against " +
                        u.library + ", rprof's drop-in");
    } else {
      p.notes.push_back(
          "regions from the " + u.api + ": " + file + " is built against " + u.library +
          "; rprof preloaded its drop-in " + fs::path(u.shim).filename().string() +
          ", so those markers became rprof regions and the library itself counted nothing");
    }
  }
}

}  // namespace rprof
