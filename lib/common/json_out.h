// Appending JSON text without building a DOM, for the writers of files that
// grow with the number of regions (profile.json of 100,000 regions: issue 16).
// The text parses to what nlohmann::json's dump() of the same values gives:
// doubles in their shortest round-trip form ("0.0", "2e-08"), NaN and
// infinities as null, invalid UTF-8 replaced by U+FFFD.
#ifndef RPROF_COMMON_JSON_OUT_H_
#define RPROF_COMMON_JSON_OUT_H_

#include <cstdint>
#include <string>

namespace rprof::json_out {

void string(std::string& out, const std::string& s);
void number(std::string& out, double v);
void number(std::string& out, uint64_t v);
void number(std::string& out, int64_t v);
// "key": (the key escaped, with its colon).
inline void key(std::string& out, const char* k) {
  out += '"';
  out += k;
  out += "\":";
}

}  // namespace rprof::json_out

#endif  // RPROF_COMMON_JSON_OUT_H_
