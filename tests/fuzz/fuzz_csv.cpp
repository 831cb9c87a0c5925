// Fuzz target: the CSV writer's fields (csv_field, what every profile.csv
// cell goes through). The input is split at NUL bytes into the fields of one
// row; the row written must read back (RFC 4180) as those fields, each with
// no control character a terminal or spreadsheet acts on, none readable as
// a formula, and every field without such characters unchanged.
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "report/data_reports.h"

namespace {

// RFC 4180 fields of one record (the whole text); traps on malformed text.
std::vector<std::string> parse_row(const std::string& row) {
  std::vector<std::string> fields;
  size_t i = 0;
  for (;;) {
    std::string f;
    if (i < row.size() && row[i] == '"') {
      for (++i;; ++i) {
        if (i >= row.size()) __builtin_trap();  // unterminated quote
        if (row[i] == '"') {
          if (i + 1 < row.size() && row[i + 1] == '"') {
            f += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          f += row[i];
        }
      }
    } else {
      while (i < row.size() && row[i] != ',' && row[i] != '\n') {
        if (row[i] == '"') __builtin_trap();  // a quote in an unquoted field
        f += row[i++];
      }
    }
    fields.push_back(f);
    if (i < row.size() && row[i] == ',') {
      ++i;
      continue;
    }
    if (i + 1 != row.size() || row[i] != '\n') __builtin_trap();  // junk after a field
    return fields;
  }
}

bool has_control(const std::string& s, bool allow_lf) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && !(allow_lf && c == '\n')) || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      return true;
    }
  }
  return false;
}

bool formula_start(const std::string& s) {
  return !s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = rprof::fuzz::text_of(data, size);
  std::vector<std::string> in;
  for (size_t at = 0;;) {
    const size_t nul = text.find('\0', at);
    in.push_back(text.substr(at, nul == std::string::npos ? std::string::npos : nul - at));
    if (nul == std::string::npos) break;
    at = nul + 1;
  }
  std::string row;
  for (size_t i = 0; i < in.size(); ++i) row += (i ? "," : "") + rprof::csv_field(in[i]);
  row += "\n";
  const std::vector<std::string> out = parse_row(row);
  if (out.size() != in.size()) __builtin_trap();
  for (size_t i = 0; i < in.size(); ++i) {
    if (has_control(out[i], /*allow_lf=*/true) || formula_start(out[i])) __builtin_trap();
    if (!has_control(in[i], true) && !formula_start(in[i]) && out[i] != in[i]) __builtin_trap();
  }
  return 0;
}
