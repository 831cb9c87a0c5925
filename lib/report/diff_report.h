// Writers for rprof diff: a text table per matched region (before, after,
// difference, ratio, every number with its unit) and JSON
// (format "rprof-diff", docs/reports.md).
#ifndef RPROF_REPORT_DIFF_REPORT_H_
#define RPROF_REPORT_DIFF_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "report/profile_diff.h"

namespace rprof {

// A run as the diff names it: where it was read from and what it ran.
struct DiffRun {
  std::string file;
  const Profile* profile = nullptr;
};

void write_diff_text(const ProfileDiff& d, const DiffRun& before, const DiffRun& after,
                     std::ostream& out);
nlohmann::json diff_to_json(const ProfileDiff& d, const DiffRun& before, const DiffRun& after);

}  // namespace rprof

#endif  // RPROF_REPORT_DIFF_REPORT_H_
