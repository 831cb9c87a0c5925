#include "common/toml_subset.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/error.h"

namespace rprof {
namespace {

using nlohmann::json;

// A key for a one-line message: control characters as \xNN.
std::string shown(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

bool is_bare(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// One line being read; positions are 0-based, reported 1-based.
class LineReader {
 public:
  LineReader(const std::string& line, const std::string& name, int number)
      : s_(line), name_(name), number_(number) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}:{}:{}: {}", name_, number_, pos_ + 1, what), 2);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Nothing but spaces and a comment left.
  void expect_end() {
    skip_space();
    if (!at_end() && peek() != '#') fail(fmt::format("unexpected '{}' after the value", peek()));
  }

  std::string bare_name(const char* what) {
    const size_t start = pos_;
    while (pos_ < s_.size() && is_bare(s_[pos_])) ++pos_;
    if (pos_ == start) fail(fmt::format("expected {} (letters, digits, '_' or '-')", what));
    return s_.substr(start, pos_ - start);
  }

  std::string key() {
    if (peek() == '"') return basic_string();
    if (peek() == '\'') return literal_string();
    std::string k = bare_name("a key");
    if (peek() == '.') fail("dotted keys are not in rprof's TOML subset: use a [table] header");
    return k;
  }

  json value() {
    skip_space();
    const char c = peek();
    if (c == '"') {
      if (s_.compare(pos_, 3, "\"\"\"") == 0)
        fail("multi-line strings are not in rprof's TOML subset");
      return basic_string();
    }
    if (c == '\'') {
      if (s_.compare(pos_, 3, "'''") == 0)
        fail("multi-line strings are not in rprof's TOML subset");
      return literal_string();
    }
    if (c == '[') return array();
    if (c == '{') fail("inline tables are not in rprof's TOML subset: use a [table] header");
    if (s_.compare(pos_, 4, "true") == 0 && !is_bare(s_.c_str()[pos_ + 4])) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "false") == 0 && !is_bare(s_.c_str()[pos_ + 5])) {
      pos_ += 5;
      return false;
    }
    return number();
  }

 private:
  std::string basic_string() {
    ++pos_;  // "
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string (strings end on their line)");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
        --pos_;
        fail("control character in a string: write it as an escape");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          out += unicode_escape();
          break;
        default:
          pos_ -= 2;
          fail("unknown escape in a string (\\\" \\\\ \\n \\t \\uXXXX)");
      }
    }
  }

  std::string unicode_escape() {
    if (pos_ + 4 > s_.size()) fail("\\u needs 4 hexadecimal digits");
    unsigned cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        cp |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        cp |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("\\u needs 4 hexadecimal digits");
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) fail("\\u of a surrogate is not a character");
    std::string out;
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
  }

  std::string literal_string() {
    ++pos_;  // '
    const size_t end = s_.find('\'', pos_);
    if (end == std::string::npos) fail("unterminated string (strings end on their line)");
    std::string out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }

  json array() {
    ++pos_;  // [
    json out = json::array();
    while (true) {
      skip_space();
      if (eat(']')) return out;
      if (at_end() || peek() == '#') fail("arrays end on their line in rprof's TOML subset");
      if (peek() == '[') fail("nested arrays are not in rprof's TOML subset");
      out.push_back(value());
      skip_space();
      if (eat(',')) continue;
      if (eat(']')) return out;
      fail("expected ',' or ']' in the array");
    }
  }

  json number() {
    const size_t start = pos_;
    std::string digits;
    bool is_float = false;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '_') {
        ++pos_;
        continue;
      }
      if ((c >= '0' && c <= '9') || c == '+' || c == '-') {
        digits += c;
      } else if (c == '.' || c == 'e' || c == 'E') {
        digits += c;
        is_float = true;
      } else {
        break;
      }
      ++pos_;
    }
    if (digits.empty()) {
      pos_ = start;
      fail("expected a value: a \"string\", a number, true, false or a [list]");
    }
    errno = 0;
    char* end = nullptr;
    bool out_of_range = false;
    if (!is_float) {
      const long long v = std::strtoll(digits.c_str(), &end, 10);
      if (*end == '\0' && errno == 0) return v;
      out_of_range = *end == '\0' && errno == ERANGE;
    } else {
      const double v = std::strtod(digits.c_str(), &end);
      // ERANGE with a finite result is an underflow: a subnormal (4.9e-324)
      // or zero, still the nearest double, as TOML reads it.
      if (*end == '\0' && std::isfinite(v) && (errno == 0 || errno == ERANGE)) return v;
      out_of_range = *end == '\0' && errno == ERANGE;
    }
    pos_ = start;
    // The value is echoed whole only when short: the message stays one line.
    constexpr size_t kShown = 32;
    const std::string shown =
        digits.size() <= kShown
            ? "'" + digits + "'"
            : fmt::format("'{}...' ({} characters)", digits.substr(0, kShown), digits.size());
    if (out_of_range) {
      fail(shown + " is out of range (integers are 64-bit, floats at most about 1.8e308)");
    }
    fail(shown + " is not a number (dates and special floats are not in rprof's subset)");
  }

  const std::string& s_;
  const std::string& name_;
  int number_;
  size_t pos_ = 0;
};

}  // namespace

TomlDocument parse_toml_subset(const std::string& text, const std::string& name) {
  TomlDocument doc;
  json* table = &doc.root;  // where key = value lines go
  std::map<std::string, int>* lines_of_keys = nullptr;  // its key lines, in an array of tables
  size_t begin = 0;
  int number = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++number;
    begin = end + 1;
    LineReader r(line, name, number);
    r.skip_space();
    if (r.at_end() || r.peek() == '#') continue;
    if (r.eat('[')) {
      const bool array = r.eat('[');
      r.skip_space();
      const std::string t = r.bare_name("a table name");
      if (r.peek() == '.') r.fail("dotted table names are not in rprof's TOML subset");
      r.skip_space();
      if (!r.eat(']') || (array && !r.eat(']'))) r.fail(array ? "expected ']]'" : "expected ']'");
      r.expect_end();
      json& slot = doc.root[t];
      if (array) {
        if (slot.is_null()) slot = json::array();
        if (!slot.is_array()) r.fail("'" + t + "' is already a table or a key, not [[" + t + "]]");
        slot.push_back(json::object());
        doc.table_lines[t].push_back(number);
        lines_of_keys = &doc.key_lines[t].emplace_back();
        table = &slot.back();
      } else {
        if (!slot.is_null()) r.fail("'" + t + "' is defined twice");
        slot = json::object();
        table = &slot;
        lines_of_keys = nullptr;
      }
      continue;
    }
    const std::string key = r.key();
    r.skip_space();
    if (!r.eat('=')) r.fail("expected '=' after the key '" + shown(key) + "'");
    json value = r.value();
    r.expect_end();
    if (table->contains(key)) r.fail("the key '" + shown(key) + "' is set twice");
    (*table)[key] = std::move(value);
    if (lines_of_keys != nullptr) (*lines_of_keys)[key] = number;
  }
  return doc;
}

}  // namespace rprof
