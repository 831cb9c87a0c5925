// Checked reading of the tool's JSON files (raw profiles, profiles, machine
// files): every failure names the file, what kind of file it should be, and
// the field, so a user can tell a truncated file from a foreign one.
//
// Two styles of the same checks, both used by existing files and their
// tests: get<T>(obj, key) ("missing 'key'", "'key' has the wrong type") and
// the typed accessors with the object's role (where.key: "region has no
// 'id'", "region.id is not a non-negative integer").
#ifndef RPROF_COMMON_JSON_READER_H_
#define RPROF_COMMON_JSON_READER_H_

#include <cstdint>
#include <limits>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rprof {

class JsonReader {
 public:
  using json = nlohmann::json;

  // Failures read "<file>: not a valid <kind>: <what><advice>".
  JsonReader(std::string file, std::string kind, std::string advice = "")
      : file_(std::move(file)), kind_(std::move(kind)), advice_(std::move(advice)) {}

  const std::string& file() const { return file_; }
  [[noreturn]] void fail(const std::string& what) const;

  // The member `key` of obj converted to T. Integers must be integers and
  // fit T: -5 is no count, 1e30 no call count, 4294967297 no schema version.
  template <class T>
  T get(const json& obj, const char* key) const {
    if (!obj.is_object()) fail(std::string("expected an object holding '") + key + "'");
    auto it = obj.find(key);
    if (it == obj.end()) fail(std::string("missing '") + key + "'");
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      check_integer(*it, key, static_cast<int64_t>(std::numeric_limits<T>::min()),
                    static_cast<uint64_t>(std::numeric_limits<T>::max()));
    }
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      fail(std::string("'") + key + "' has the wrong type");
    }
  }
  template <class T>
  T get_or(const json& obj, const char* key, T fallback) const {
    return obj.is_object() && obj.contains(key) ? get<T>(obj, key) : fallback;
  }

  // `where` names the object's role in messages ("profile", "region").
  const json& field(const json& obj, const char* key, const char* where) const;
  uint64_t u64(const json& obj, const char* key, const char* where) const;
  int64_t i64(const json& obj, const char* key, const char* where) const;
  std::string str(const json& obj, const char* key, const char* where) const;
  const json& array(const json& obj, const char* key, const char* where) const;
  // An array of n counts; absent is fine when n == 0.
  std::vector<uint64_t> counts(const json& obj, const char* key, size_t n,
                               const char* where) const;

 private:
  // Fails unless v is an integer in [lo, hi].
  void check_integer(const json& v, const char* key, int64_t lo, uint64_t hi) const;

  std::string file_, kind_, advice_;
};

}  // namespace rprof

#endif  // RPROF_COMMON_JSON_READER_H_
