// The files of an rprof output directory, the same for `rprof ./app` and
// `rprof merge`: profile.json, report.txt, roofline.svg and report.html
// (plus profile.csv when asked for), each written atomically.
#ifndef RPROF_REPORT_OUTPUT_DIR_H_
#define RPROF_REPORT_OUTPUT_DIR_H_

#include <string>

#include "analysis/analysis.h"

namespace rprof {

void write_output_files(const std::string& dir, const Analysis& a, bool with_csv);

}  // namespace rprof

#endif  // RPROF_REPORT_OUTPUT_DIR_H_
