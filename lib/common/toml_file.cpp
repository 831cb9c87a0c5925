#include "common/toml_file.h"

#include <fmt/format.h>

#include <sstream>
#include <toml++/toml.h>

#include "common/error.h"
#include "common/fs.h"

namespace rprof {
namespace {

using nlohmann::json;

json to_json(const toml::node& n) {
  if (const toml::table* t = n.as_table()) {
    json o = json::object();
    for (const auto& [key, value] : *t) o[std::string(key.str())] = to_json(value);
    return o;
  }
  if (const toml::array* a = n.as_array()) {
    json out = json::array();
    for (const toml::node& v : *a) out.push_back(to_json(v));
    return out;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  // A date, a time or a date-time: its text.
  std::ostringstream text;
  n.visit([&](const auto& v) { text << v; });
  return text.str();
}

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

}  // namespace

TomlDocument parse_toml(const std::string& text, const std::string& name) {
  toml::table table;
  try {
    table = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const toml::source_region& at = e.source();
    throw Error(printable(fmt::format("{}:{}:{}: {}", name, at.begin.line, at.begin.column,
                                      e.description())),
                2);
  }
  TomlDocument doc;
  doc.root = to_json(table);
  for (const auto& [key, value] : table) {
    const toml::array* a = value.as_array();
    if (a == nullptr || !a->is_array_of_tables()) continue;
    const std::string k(key.str());
    for (const toml::node& element : *a) {
      const toml::table& t = *element.as_table();
      doc.table_lines[k].push_back(line_of(t));
      std::map<std::string, int>& lines = doc.key_lines[k].emplace_back();
      for (const auto& [tk, tv] : t) lines[std::string(tk.str())] = static_cast<int>(tk.source().begin.line);
    }
  }
  return doc;
}

}  // namespace rprof
