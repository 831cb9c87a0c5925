// A strict reader of the small part of TOML that rprof's own files use (the
// rules of `rprof check`, docs/ci.md): comments, `[table]` and `[[array of
// tables]]` headers with bare names, `key = value` with a bare or quoted key,
// and values that are strings ("basic" with \" \\ \n \t \uXXXX escapes, or
// 'literal'), integers, floats, booleans and one-line arrays of those.
// Anything else (dotted keys, inline tables, multi-line strings or arrays,
// dates) is refused with the line and column and what to write instead: a
// file never means something else than it says.
#ifndef RPROF_COMMON_TOML_SUBSET_H_
#define RPROF_COMMON_TOML_SUBSET_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rprof {

struct TomlDocument {
  // Tables as JSON objects, arrays of tables as arrays of objects; integers
  // as JSON integers, floats as JSON numbers.
  nlohmann::json root = nlohmann::json::object();
  // For each array of tables, the 1-based line of each element's header.
  std::map<std::string, std::vector<int>> table_lines;
  // For each array of tables, per element, the 1-based line of each key.
  std::map<std::string, std::vector<std::map<std::string, int>>> key_lines;
};

// Parses `text` (`name` for messages: "rules.toml"). Throws Error (exit code
// 2) "name:LINE:COL: what is wrong".
TomlDocument parse_toml_subset(const std::string& text, const std::string& name);

}  // namespace rprof

#endif  // RPROF_COMMON_TOML_SUBSET_H_
