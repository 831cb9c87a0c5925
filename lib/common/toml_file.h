// A TOML file as JSON, read with toml++ (rprof's rules files; docs/ci.md):
// tables become objects, arrays of tables arrays of objects, integers JSON
// integers, floats JSON numbers (nan and inf too: a reader checks them),
// dates and times their TOML text (a reader refuses them as not numbers).
// With the lines of each [[table]] header and of each key in it, for
// messages that name where the file is wrong.
#ifndef RPROF_COMMON_TOML_FILE_H_
#define RPROF_COMMON_TOML_FILE_H_

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rprof {

struct TomlDocument {
  nlohmann::json root = nlohmann::json::object();
  // For each array of tables, the 1-based line of each element's header.
  std::map<std::string, std::vector<int>> table_lines;
  // For each array of tables, per element, the 1-based line of each key.
  std::map<std::string, std::vector<std::map<std::string, int>>> key_lines;
};

// Parses `text` (`name` for messages: "rules.toml"). Throws Error (exit code
// 2) "name:LINE:COLUMN: what is wrong" (toml++'s description).
TomlDocument parse_toml(const std::string& text, const std::string& name);

}  // namespace rprof

#endif  // RPROF_COMMON_TOML_FILE_H_
