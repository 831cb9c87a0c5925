// The files of an rprof output directory, the same for `rprof ./app` and
// `rprof merge`: profile.json, report.txt, roofline.svg, report.html, and
// bandwidth.svg when some region has a memory view (plus profile.csv when
// asked for), each written atomically.
#ifndef RPROF_REPORT_OUTPUT_DIR_H_
#define RPROF_REPORT_OUTPUT_DIR_H_

#include <string>

#include "analysis/analysis.h"

namespace rprof {

// Returns the names written, for people: "profile.json, report.txt, ...".
std::string write_output_files(const std::string& dir, const Analysis& a, bool with_csv);

}  // namespace rprof

#endif  // RPROF_REPORT_OUTPUT_DIR_H_
