#include "report/output_dir.h"

#include <sstream>

#include "common/fs.h"
#include "report/bandwidth_chart.h"
#include "report/reporter.h"
#include "profile/run_layout.h"

namespace rprof {

std::string write_output_files(const std::string& dir, const Analysis& a, bool with_csv) {
  std::string written;
  // The files hold every boundary and no per-thread rows (those are options
  // of what is printed).
  const ReportOptions opt;
  auto write = [&](const char* format, const char* name) {
    // Streamed into the file: profile.json of 100,000 regions is 100 MB.
    write_file_atomic(dir + "/" + name,
                      [&](std::ostream& out) { make_reporter(format)->write(a, opt, out); });
    written += (written.empty() ? "" : ", ") + std::string(name);
  };
  write("json", layout::kProfileJson);
  write("text", "report.txt");
  // The chart and the HTML report always exist; without FLOP counts or
  // ceilings they say what is missing instead of drawing it.
  write("svg", "roofline.svg");
  write("html", "report.html");
  // The bandwidth chart beside the roofline, when some region has a memory
  // view (FLOPs or not).
  if (a.any_memory) {
    write_file_atomic(dir + "/bandwidth.svg", render_bandwidth_svg(a, /*standalone=*/true));
    written += ", bandwidth.svg";
  }
  if (with_csv) write("csv", "profile.csv");
  return written;
}

}  // namespace rprof
