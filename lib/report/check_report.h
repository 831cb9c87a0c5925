// The outputs of `rprof check` (report/check_rules.h, check_baseline.h): a
// summary table for people, JUnit XML for CI test views, and GitHub Actions
// workflow commands (`::error file=...::`) that annotate the rules file.
#ifndef RPROF_REPORT_CHECK_REPORT_H_
#define RPROF_REPORT_CHECK_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

#include "report/check_rules.h"

namespace rprof {

// The table (one row per check), the failures one per line, and the
// verdict line: "rprof check: FAILED: 2 of 14 checks failed" or
// "rprof check: passed: 14 checks".
void write_check_text(const std::vector<CheckItem>& items, std::ostream& out);

// JUnit XML: one <testsuite> per suite ("rprof.rules", "rprof.baseline"), one
// <testcase> per check (named by the check and what it expects), a <failure>
// with the message for each failed one.
std::string check_junit_xml(const std::vector<CheckItem>& items);

// One `::error` line per failed check: on the rule's file and line when the
// check comes from a rules file, else on `run_file` (the new profile).
void write_github_annotations(const std::vector<CheckItem>& items, const std::string& run_file,
                              std::ostream& out);

}  // namespace rprof

#endif  // RPROF_REPORT_CHECK_REPORT_H_
