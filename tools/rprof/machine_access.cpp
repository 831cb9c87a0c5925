#include "tools/rprof/machine_access.h"

#include <chrono>
#include <cstdlib>
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

MachineChoice find_machine(const std::string& explicit_file, bool may_calibrate) {
  MachineChoice c;
  const char* env = std::getenv(RPROF_ENV_MACHINE_FILE);
  const bool chosen = !explicit_file.empty() || (env != nullptr && env[0] != '\0');
  c.file = machine_file_path(explicit_file);
  const CpuId here = detect_topology().cpu;
  std::error_code ec;
  if (!chosen && !std::filesystem::exists(c.file, ec)) {
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
                 "(rprof machine --quick, under 20 s); cached in "
              << c.file << "\n";
    CalibrationOptions opt;
    opt.mode = CalibrationMode::kQuick;
    opt.rprof_version = kVersion;
    const auto t0 = std::chrono::steady_clock::now();
    Machine m = calibrate(opt);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    save_machine_file(m, c.file);
    c.notes.push_back("ceilings measured now by a quick calibration (" +
                      std::to_string(static_cast<int>(s + 0.5)) + " s), cached in " + c.file);
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
