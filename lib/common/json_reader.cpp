#include "common/json_reader.h"

#include "common/error.h"

namespace rprof {

void JsonReader::fail(const std::string& what) const {
  throw Error(file_ + ": not a valid " + kind_ + ": " + what + advice_);
}

void JsonReader::check_integer(const json& v, const char* key, int64_t lo, uint64_t hi) const {
  if (!v.is_number_integer()) fail(std::string("'") + key + "' has the wrong type");
  const bool fits = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= hi
                        : v.get<int64_t>() >= lo &&
                              (v.get<int64_t>() < 0 || static_cast<uint64_t>(v.get<int64_t>()) <= hi);
  if (!fits) {
    fail(std::string("'") + key + "' = " + v.dump() + " is out of range (" + std::to_string(lo) +
         " to " + std::to_string(hi) + ")");
  }
}

const JsonReader::json& JsonReader::field(const json& obj, const char* key,
                                          const char* where) const {
  if (!obj.is_object()) fail(std::string(where) + " is not an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(std::string(where) + " has no '" + key + "'");
  return *it;
}

uint64_t JsonReader::u64(const json& obj, const char* key, const char* where) const {
  const json& v = field(obj, key, where);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    fail(std::string(where) + "." + key + " is not a non-negative integer");
  }
  return v.get<uint64_t>();
}

int64_t JsonReader::i64(const json& obj, const char* key, const char* where) const {
  const json& v = field(obj, key, where);
  if (!v.is_number_integer()) fail(std::string(where) + "." + key + " is not an integer");
  return v.get<int64_t>();
}

std::string JsonReader::str(const json& obj, const char* key, const char* where) const {
  const json& v = field(obj, key, where);
  if (!v.is_string()) fail(std::string(where) + "." + key + " is not a string");
  return v.get<std::string>();
}

const JsonReader::json& JsonReader::array(const json& obj, const char* key,
                                          const char* where) const {
  const json& v = field(obj, key, where);
  if (!v.is_array()) fail(std::string(where) + "." + key + " is not an array");
  return v;
}

std::vector<uint64_t> JsonReader::counts(const json& obj, const char* key, size_t n,
                                         const char* where) const {
  std::vector<uint64_t> out;
  if (n == 0 && obj.find(key) == obj.end()) return out;
  const json& a = array(obj, key, where);
  if (a.size() != n) fail(std::string(where) + "." + key + " has the wrong length");
  for (const json& v : a) {
    if (!v.is_number_unsigned()) fail(std::string(where) + "." + key + " holds a non-count");
    out.push_back(v.get<uint64_t>());
  }
  return out;
}

}  // namespace rprof
