#include "tools/rprof/report_setup.h"

namespace rprof {

MachineChoice load_report_machine(const std::vector<const Profile*>& profiles,
                                  const std::string& machine_file) {
  bool needed = false;
  for (const Profile* p : profiles) needed |= profile_needs_machine(*p);
  if (!needed) return {};
  return find_machine(machine_file, /*may_calibrate=*/false);
}

MachineSource machine_source(const MachineChoice& c) {
  return {c.machine ? &*c.machine : nullptr, c.file, c.notes};
}

}  // namespace rprof
