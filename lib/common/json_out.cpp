#include "common/json_out.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rprof::json_out {

void string(std::string& out, std::string_view s) {
  bool plain = true;
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  // Escapes and UTF-8 checks as the DOM writer does them.
  out += nlohmann::json(std::string(s)).dump(-1, ' ', false,
                                             nlohmann::json::error_handler_t::replace);
}

void number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";  // stays a double
}

void number_as_dom(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  // The serializer's own conversion (nlohmann::json's dump of a double).
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(end - buf));
}

void number(std::string& out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

void number(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

void Writer::newline(size_t level) {
  *out_ += '\n';
  out_->append(level * static_cast<size_t>(indent_), ' ');
}

void Writer::before_value() {
  if (stack_.empty()) return;
  Frame& f = stack_.back();
  if (f.object) {
    // The key wrote the separator; a value without one is a writer's bug.
    if (!after_key_) throw Error("internal error: a JSON object member without a key");
    after_key_ = false;
    return;
  }
  if (!f.empty) *out_ += ',';
  f.empty = false;
  if (pretty()) newline(stack_.size());
}

Writer& Writer::key(std::string_view k) {
  if (stack_.empty() || !stack_.back().object || after_key_) {
    throw Error("internal error: a JSON key outside an object");
  }
  Frame& f = stack_.back();
  if (!f.empty) *out_ += ',';
  f.empty = false;
  const bool p = pretty();
  if (p) newline(stack_.size());
  string(*out_, k);
  *out_ += p ? ": " : ":";
  after_key_ = true;
  return *this;
}

Writer& Writer::begin_object(bool compact) {
  before_value();
  *out_ += '{';
  stack_.push_back({true, compact || !pretty(), true});
  return *this;
}

Writer& Writer::begin_array(bool compact) {
  before_value();
  *out_ += '[';
  stack_.push_back({false, compact || !pretty(), true});
  return *this;
}

Writer& Writer::end(bool object) {
  if (stack_.empty() || stack_.back().object != object || after_key_) {
    throw Error("internal error: a JSON container ended out of order");
  }
  const Frame f = stack_.back();
  stack_.pop_back();
  if (!f.empty && !f.compact && indent_ >= 0) newline(stack_.size());
  *out_ += object ? '}' : ']';
  return *this;
}

Writer& Writer::end_object() { return end(true); }
Writer& Writer::end_array() { return end(false); }

Writer& Writer::value(std::string_view s) {
  before_value();
  string(*out_, s);
  return *this;
}

Writer& Writer::value(double v) {
  before_value();
  if (doubles_ == Doubles::kShortest) {
    number(*out_, v);
  } else {
    number_as_dom(*out_, v);
  }
  return *this;
}

Writer& Writer::value(uint64_t v) {
  before_value();
  number(*out_, v);
  return *this;
}

Writer& Writer::value(int64_t v) {
  before_value();
  number(*out_, v);
  return *this;
}

Writer& Writer::value(bool v) {
  before_value();
  *out_ += v ? "true" : "false";
  return *this;
}

Writer& Writer::null() {
  before_value();
  *out_ += "null";
  return *this;
}

nlohmann::json parsed(const std::function<void(Writer&)>& write) {
  std::string text;
  Writer w(text);
  write(w);
  return nlohmann::json::parse(text);
}

}  // namespace rprof::json_out
