// What the commands that render profiles share: the machine their analysis
// holds the regions against.
#ifndef RPROF_TOOLS_RPROF_REPORT_SETUP_H_
#define RPROF_TOOLS_RPROF_REPORT_SETUP_H_

#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "tools/rprof/machine_access.h"

namespace rprof {

// When some profile has FLOP or byte counts, the machine (--machine FILE, then
// $RPROF_MACHINE_FILE, then the cache; never calibrates); with no machine
// file at all, a note instead. A corrupt or foreign file throws Error with
// the fix.
MachineChoice load_report_machine(const std::vector<const Profile*>& profiles,
                                  const std::string& machine_file);

// The analysis' view of a choice (which must outlive it).
MachineSource machine_source(const MachineChoice& c);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_REPORT_SETUP_H_
