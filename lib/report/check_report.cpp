#include "report/check_report.h"

#include <fmt/format.h>

#include "report/markup.h"
#include "report/table.h"

namespace rprof {
namespace {

size_t failures(const std::vector<CheckItem>& items, const std::string& suite = "") {
  size_t n = 0;
  for (const CheckItem& it : items) n += it.failed && (suite.empty() || it.suite == suite);
  return n;
}

// GitHub workflow commands: data escapes %, CR and LF; properties also : and ,.
std::string gh_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string gh_property(const std::string& s) {
  std::string out;
  for (char c : gh_data(s)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

}  // namespace

void write_check_text(const std::vector<CheckItem>& items, std::ostream& out) {
  TextTable table({"result", "suite", "region", "check", "measured", "expected"});
  for (const CheckItem& it : items) {
    table.add_row({it.failed ? "FAIL" : "ok", it.suite, printable(it.region), it.check,
                   printable(it.measured), printable(it.expected)});
  }
  out << table.render();
  const size_t failed = failures(items);
  if (failed > 0) {
    out << "\nFailed:\n";
    for (const CheckItem& it : items) {
      if (it.failed) out << "  " << printable(it.message) << "\n";
    }
    out << "\nrprof check: FAILED: " << failed << " of " << items.size() << " checks failed\n";
  } else {
    out << "\nrprof check: passed: " << items.size() << " checks\n";
  }
}

std::string check_junit_xml(const std::vector<CheckItem>& items) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"rprof check\" tests=\"{}\" failures=\"{}\">\n",
                     items.size(), failures(items));
  for (const char* suite : {"rules", "baseline"}) {
    size_t n = 0;
    for (const CheckItem& it : items) n += it.suite == suite;
    if (n == 0) continue;
    xml +=
        fmt::format("  <testsuite name=\"rprof.{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                    suite, n, failures(items, suite));
    for (const CheckItem& it : items) {
      if (it.suite != suite) continue;
      // The name stays the same from run to run (CI views track a test by
      // it); what was measured is in the failure's message.
      const std::string name = it.check + ": " + it.expected;
      xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\"",
                         xml_escape("rprof." + std::string(suite) + "." + it.region),
                         xml_escape(name));
      if (it.file.empty()) {
        xml += it.failed ? ">\n" : "/>\n";
      } else {
        xml += fmt::format(" file=\"{}\"", xml_escape(it.file));
        if (it.line > 0) xml += fmt::format(" line=\"{}\"", it.line);
        xml += it.failed ? ">\n" : "/>\n";
      }
      if (!it.failed) continue;
      xml += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                         xml_escape(it.message), it.suite == "rules" ? "rule" : "regression",
                         xml_escape(it.message));
      xml += "    </testcase>\n";
    }
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

void write_github_annotations(const std::vector<CheckItem>& items, const std::string& run_file,
                              std::ostream& out) {
  for (const CheckItem& it : items) {
    if (!it.failed) continue;
    std::string props = "file=" + gh_property(it.file.empty() ? run_file : it.file);
    if (!it.file.empty() && it.line > 0) props += fmt::format(",line={}", it.line);
    props += ",title=" + gh_property("rprof check (" + it.suite + ")");
    out << "::error " << props << "::" << gh_data(it.message) << "\n";
  }
}

}  // namespace rprof
