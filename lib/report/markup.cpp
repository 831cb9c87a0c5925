#include "report/markup.h"

namespace rprof {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not valid.
size_t utf8_length(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  unsigned min = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
  else return 0;
  if (i + n > s.size()) return 0;
  unsigned cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  // U+FFFE and U+FFFF are not XML characters.
  if (cp == 0xFFFE || cp == 0xFFFF) return 0;
  return n;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    if (n == 1) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
          if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += static_cast<char>(c);
      }
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
  return out;
}

std::string script_safe_json(const std::string& json) {
  // '<' '>' '&' occur in JSON text only inside strings, where \u escapes
  // read back as the same characters.
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string ellipsize(const std::string& s, size_t max) {
  size_t points = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (points == max) break;
    ++points;
  }
  if (i >= s.size()) return s;
  // Cut three code points earlier to make room for the dots.
  size_t keep = 0, cut = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    if ((static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) continue;
    if (keep == max - 3) { cut = k; break; }
    ++keep;
  }
  return s.substr(0, cut) + "...";
}

}  // namespace rprof
