#include "tools/rprof/report_setup.h"

#include "tools/rprof/machine_access.h"

namespace rprof {

void load_report_machine(const std::vector<const Profile*>& profiles,
                         const std::string& machine_file, std::optional<Machine>& storage,
                         ReportOptions& opt) {
  bool needed = false;
  for (const Profile* p : profiles) needed |= profile_has_roofline_data(*p);
  if (!needed) return;
  MachineChoice mc = find_machine(machine_file, /*may_calibrate=*/false);
  storage = std::move(mc.machine);
  opt.machine = storage ? &*storage : nullptr;
  opt.machine_file = mc.file;
  opt.machine_notes = mc.notes;
}

void attach_verdicts(ReportOptions& opt) { opt.verdicts = classified_verdicts(opt.machine); }

}  // namespace rprof
