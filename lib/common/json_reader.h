// Checked reading of the tool's JSON files (raw profiles, profiles, machine
// files): every failure is one line naming the file, what kind of file it
// should be, and where: the byte offset (line:column) of a syntax error and
// what was expected there, or the path of a field ("regions[3].calls:
// expected an integer"), so a user can tell a truncated file from a foreign
// one. Sizes are capped (common/limits.h) before anything is built.
#ifndef RPROF_COMMON_JSON_READER_H_
#define RPROF_COMMON_JSON_READER_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/limits.h"

namespace rprof {

class InputFile;

// The text of one JSON document, read in pieces: a string in memory (one
// piece), or a file read as it is parsed, kChunkBytes at a time, so a
// reader never holds a file's text. What needs a part again (the line and
// column of an error) reads it again from the file.
class JsonText {
 public:
  static constexpr size_t kChunkBytes = 1u << 20;  // 1 MiB

  // Both refer to their argument, which must outlive this.
  explicit JsonText(const std::string& text) : text_(&text), size_(text.size()) {}
  explicit JsonText(const InputFile& file);

  // The bytes from `offset` on: all of them (memory) or the next piece
  // (file); empty at the end. The view lasts until the next call.
  std::string_view at(uint64_t offset);
  // The text's length: a file's is known once it has been read to its end
  // (the file may grow, and is then read as it was).
  uint64_t size() const { return size_; }
  bool size_known() const { return size_known_; }
  void set_size(uint64_t size) { size_ = size, size_known_ = true; }

 private:
  const std::string* text_ = nullptr;
  const InputFile* file_ = nullptr;
  std::unique_ptr<char[]> buf_;
  uint64_t size_ = 0;
  bool size_known_ = true;
};

// Caps on one JSON text, checked while it is parsed.
struct JsonLimits {
  size_t depth = limits::kJsonDepth;
  size_t string_bytes = limits::kJsonStringBytes;
  uint64_t values = limits::kJsonValues;
  // What a document read piece by piece (parse with `keep`) may hold at
  // once, in bytes as estimated from its values (common/limits.h).
  uint64_t kept_bytes = limits::kJsonKeptBytes;
};

class JsonReader {
 public:
  using json = nlohmann::json;

  // Failures read "<file>: not a valid <kind>: <path>: <what><advice>".
  JsonReader(std::string file, std::string kind, std::string advice = "");

  // A reader of the member `key` (or element `index`) of what this one reads:
  // its failures name the path ("regions[3].threads"). It refers to *this
  // and must not outlive it.
  JsonReader at(const char* key) const;
  JsonReader at(size_t index) const;

  const std::string& file() const { return root_->file; }
  // "regions[3].threads", or "" for the whole document.
  std::string path() const;
  // path() followed by a member: "regions[3].calls".
  std::string path(const std::string& key) const;

  // "<file>: not a valid <kind>: <path>: <what>" (no path at the root).
  [[noreturn]] void fail(const std::string& what) const;
  // The same for the member `key`: "<path>.<key>: <what>".
  [[noreturn]] void fail_at(const std::string& key, const std::string& what) const;

  // Parses a whole text within `lim`: the empty file, syntax errors (byte,
  // line:column, what was expected), too deep, too long a string and too many
  // values are refused with one line.
  json parse(const std::string& text, const JsonLimits& lim = JsonLimits()) const;
  // The same, asking `keep` (nlohmann's parser callback) whether to keep
  // each value as it is parsed: a large file read piece by piece. What the
  // document holds at once is capped (JsonLimits::kept_bytes), so a value
  // kept whole (an unknown member, a list of a million zeros) cannot take
  // more than that before it is refused.
  json parse(const std::string& text, const json::parser_callback_t& keep,
             const JsonLimits& lim = JsonLimits()) const;
  // The same on a text read in pieces (a file read as it is parsed): the
  // same caps and the same errors, the byte offsets and lines of the file.
  json parse(JsonText& text, const json::parser_callback_t& keep,
             const JsonLimits& lim = JsonLimits()) const;

  // The member `key` of obj converted to T, checked: integers must be
  // integers that fit T (-5 is no count, 1e30 no call count, 4294967297 no
  // schema version), numbers finite, strings strings; vectors and maps
  // (std::map<std::string, U>) check each element.
  template <class T>
  T get(const json& obj, const char* key) const {
    return convert<T>(member(obj, key), key);
  }
  template <class T>
  T get_or(const json& obj, const char* key, T fallback) const {
    if (!obj.is_object()) fail("expected an object");
    auto it = obj.find(key);
    return it == obj.end() ? fallback : convert<T>(*it, key);
  }
  // A member that must exist, of any type.
  const json& member(const json& obj, const char* key) const;
  // A member that must be an array (or an object) of at most `max` entries.
  const json& array(const json& obj, const char* key, size_t max) const;
  const json& object(const json& obj, const char* key) const;
  // A string of at most max_bytes bytes.
  std::string str(const json& obj, const char* key, size_t max_bytes) const;
  // A number that is finite and >= 0 (seconds, bytes, FLOPs).
  double nonneg(const json& obj, const char* key) const;
  // An integer in [lo, hi].
  int64_t in_range(const json& obj, const char* key, int64_t lo, int64_t hi) const;
  // An array of n counts; absent is fine when n == 0.
  std::vector<uint64_t> counts(const json& obj, const char* key, size_t n) const;

 private:
  struct Root {
    std::string file, kind, advice;
  };
  JsonReader(const JsonReader* parent, const char* key, size_t index)
      : root_(parent->root_), parent_(parent), key_(key), index_(index) {}

  // Fails unless v is an integer in [lo, hi].
  void check_integer(const json& v, const std::string& key, int64_t lo, uint64_t hi) const;

  template <class T>
  struct is_vector : std::false_type {};
  template <class U>
  struct is_vector<std::vector<U>> : std::true_type {};
  template <class T>
  struct is_map : std::false_type {};
  template <class U>
  struct is_map<std::map<std::string, U>> : std::true_type {};

  template <class T>
  T convert(const json& v, const std::string& key) const {
    if constexpr (std::is_same_v<T, json>) {
      return v;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) fail_at(key, "expected true or false, got " + type_of(v));
      return v.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      check_integer(v, key, static_cast<int64_t>(std::numeric_limits<T>::min()),
                    static_cast<uint64_t>(std::numeric_limits<T>::max()));
      return v.is_number_unsigned() ? static_cast<T>(v.get<uint64_t>())
                                    : static_cast<T>(v.get<int64_t>());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) fail_at(key, "expected a number, got " + type_of(v));
      const T x = v.get<T>();
      if (!std::isfinite(x)) fail_at(key, "the number is not finite");
      return x;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) fail_at(key, "expected a string, got " + type_of(v));
      return v.get<std::string>();
    } else if constexpr (is_vector<T>::value) {
      if (!v.is_array()) fail_at(key, "expected an array, got " + type_of(v));
      T out;
      out.reserve(v.size());
      const JsonReader in = at(key.c_str());
      for (size_t i = 0; i < v.size(); ++i) {
        out.push_back(in.convert<typename T::value_type>(v[i], "[" + std::to_string(i) + "]"));
      }
      return out;
    } else {
      static_assert(is_map<T>::value, "JsonReader cannot convert to this type");
      if (!v.is_object()) fail_at(key, "expected an object, got " + type_of(v));
      T out;
      const JsonReader in = at(key.c_str());
      for (const auto& [k, x] : v.items()) {
        out.emplace(k, in.convert<typename T::mapped_type>(x, k));
      }
      return out;
    }
  }
  static std::string type_of(const json& v);

  std::shared_ptr<const Root> root_;
  const JsonReader* parent_ = nullptr;
  const char* key_ = nullptr;  // member name, or null for an element
  size_t index_ = 0;
};

}  // namespace rprof

#endif  // RPROF_COMMON_JSON_READER_H_
