// What the commands that render profiles share: the machine ceilings a
// report uses and the verdict source.
#ifndef RPROF_TOOLS_RPROF_REPORT_SETUP_H_
#define RPROF_TOOLS_RPROF_REPORT_SETUP_H_

#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "report/reporter.h"

namespace rprof {

// When some profile has FLOP counts, loads the machine (--machine FILE, then
// $RPROF_MACHINE_FILE, then the cache; never calibrates) into `storage` and
// points opt.machine at it; with no machine file at all, opt gets a note
// instead. A corrupt or foreign file throws Error with the fix.
void load_report_machine(const std::vector<const Profile*>& profiles,
                         const std::string& machine_file, std::optional<Machine>& storage,
                         ReportOptions& opt);

// Plugs the classifier's verdicts (roofline/classify.h) into opt.verdicts,
// against opt.machine: call it after the machine is set.
void attach_verdicts(ReportOptions& opt);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_REPORT_SETUP_H_
