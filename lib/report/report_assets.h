// The HTML report's template, style sheet and scripts, kept as real files in
// lib/report/assets/ (so they can be read, linted and tested as such) and
// compiled in by cmake/RprofEmbed.cmake: the report needs no files at run time.
#ifndef RPROF_REPORT_REPORT_ASSETS_H_
#define RPROF_REPORT_REPORT_ASSETS_H_

namespace rprof::assets {

extern const char kReportHtml[];  // assets/report.html, with @NAME@ placeholders
extern const char kReportCss[];   // assets/report.css
extern const char kReportJs[];    // assets/report.js: table, sorting, conventions
extern const char kLabJs[];       // assets/lab.js: the Roofline lab

}  // namespace rprof::assets

#endif  // RPROF_REPORT_REPORT_ASSETS_H_
