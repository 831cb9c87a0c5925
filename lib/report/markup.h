// Escaping for the SVG and HTML writers. Names come from user programs and
// may hold anything: the output must stay well-formed XML/HTML regardless.
#ifndef RPROF_REPORT_MARKUP_H_
#define RPROF_REPORT_MARKUP_H_

#include <string>

namespace rprof {

// Text or attribute value for XML/HTML: & < > " ' escaped, bytes that are not
// valid UTF-8 replaced by U+FFFD, control characters XML 1.0 forbids dropped.
std::string xml_escape(const std::string& s);

// JSON text made safe inside <script type="application/json">: < > & are
// written as \u003c \u003e \u0026, so nothing can close the script element.
std::string script_safe_json(const std::string& json);

// Shortens to at most `max` code points, with "..." when cut.
std::string ellipsize(const std::string& s, size_t max);

}  // namespace rprof

#endif  // RPROF_REPORT_MARKUP_H_
