// JSON text without a DOM: the streaming writer of profile.json, the JSON
// reports and the machine file (profile.json of 100,000 regions is written
// region by region: issue 16). The text is what nlohmann::json's dump() of
// the same values gives: NaN and infinities as null, invalid UTF-8 replaced by U+FFFD, and
// with an indent the same line breaks and spaces as dump(indent); doubles
// either in their shortest round-trip form ("0.0", "2e-08",
// Doubles::kShortest) or exactly as dump() writes them (Doubles::kAsDom).
// Both read back as the same double; profile.json has always had its
// measured region members and verdicts in the first form and every other
// number in the second, and keeps them so (byte-identical). Members come out
// in the order they are written: rprof's documents write them sorted, as a
// DOM would.
#ifndef RPROF_COMMON_JSON_OUT_H_
#define RPROF_COMMON_JSON_OUT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/shared_text.h"

namespace rprof::json_out {

void string(std::string& out, std::string_view s);
// The shortest text that reads back as v (std::to_chars), ".0" added to an
// integral value; NaN and infinities as null.
void number(std::string& out, double v);
// v as nlohmann::json's dump() writes it (Grisu2: the same double, but not
// always the shortest text: 15.839961327802209 for 15.83996132780221).
void number_as_dom(std::string& out, double v);
void number(std::string& out, uint64_t v);
void number(std::string& out, int64_t v);

// A streaming writer into a string the caller owns (and may flush and clear
// between values: the writer keeps no offsets into it). Objects and arrays
// nest; key() names the next value of an object. indent < 0 writes compactly;
// indent >= 0 as dump(indent) does, and a container begun `compact` is written
// on one line however deep it is (profile.json's regions).
enum class Doubles { kShortest, kAsDom };

class Writer {
 public:
  explicit Writer(std::string& out, int indent = -1, Doubles doubles = Doubles::kAsDom)
      : out_(&out), indent_(indent), doubles_(doubles) {}

  // How doubles are written from here on; returns the previous setting.
  Doubles set_doubles(Doubles d) {
    const Doubles old = doubles_;
    doubles_ = d;
    return old;
  }

  Writer& begin_object(bool compact = false);
  Writer& end_object();
  Writer& begin_array(bool compact = false);
  Writer& end_array();
  Writer& key(std::string_view k);

  Writer& value(std::string_view s);
  Writer& value(const std::string& s) { return value(std::string_view(s)); }
  Writer& value(const char* s) { return value(std::string_view(s)); }
  Writer& value(const SharedText& s) { return value(std::string_view(s.str())); }
  Writer& value(double v);
  Writer& value(uint64_t v);
  Writer& value(int64_t v);
  Writer& value(uint32_t v) { return value(static_cast<uint64_t>(v)); }
  Writer& value(int v) { return value(static_cast<int64_t>(v)); }
  Writer& value(bool v);
  // A number, or null when absent.
  Writer& value(const std::optional<double>& v) { return v ? value(*v) : null(); }
  Writer& null();

  // key(k).value(v), for the common case.
  template <class T>
  Writer& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  // An array of values.
  template <class T>
  Writer& array(const std::vector<T>& v, bool compact = false) {
    begin_array(compact);
    for (const T& x : v) value(x);
    return end_array();
  }

  // Containers still open (0: the document is complete).
  size_t depth() const { return stack_.size(); }

 private:
  struct Frame {
    bool object = false;
    bool compact = false;
    bool empty = true;
  };
  bool pretty() const { return indent_ >= 0 && (stack_.empty() || !stack_.back().compact); }
  void before_value();  // the separator and line break before a value
  void newline(size_t level);
  Writer& end(bool object);

  std::string* out_;
  int indent_;
  Doubles doubles_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
};

// The text `write` writes (compactly), parsed: for a writer that embeds a
// DOM (the HTML report's data) and must not keep a second writer of it.
nlohmann::json parsed(const std::function<void(Writer&)>& write);

}  // namespace rprof::json_out

#endif  // RPROF_COMMON_JSON_OUT_H_
