// Which machine file a command uses, in this order: --machine FILE, the
// RPROF_MACHINE_FILE environment variable (tests set it so they never
// recalibrate), then the cache entry for this CPU and CPU count. When none
// exists and calibration is allowed, the quick calibration runs once and
// the result is cached.
#ifndef RPROF_TOOLS_RPROF_MACHINE_ACCESS_H_
#define RPROF_TOOLS_RPROF_MACHINE_ACCESS_H_

#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "profile/profile.h"

namespace rprof {

struct MachineChoice {
  std::optional<Machine> machine;
  std::string file;                 // where it came from
  std::vector<std::string> notes;   // for the report
};

// The file a lookup would use (explicit, environment or cache path).
std::string machine_file_path(const std::string& explicit_file);

// Loads the machine for this CPU. Throws Error for a corrupt file (with the
// command that recalibrates) and for a file measured on another CPU.
MachineChoice find_machine(const std::string& explicit_file, bool may_calibrate);

// True when some region has counters a roofline can use (FLOPs).
bool profile_has_roofline_data(const Profile& p);

// True when some region has counters the analysis holds against the
// machine: FLOPs (the roofline) or bytes (the memory view).
bool profile_needs_machine(const Profile& p);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_MACHINE_ACCESS_H_
