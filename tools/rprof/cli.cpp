#include "tools/rprof/cli.h"

#include <algorithm>
#include <cstdint>
#include <iostream>

#include "common/error.h"

namespace rprof {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "--bakend=inst" -> "--bakend"; "-x" stays.
std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

std::string suggest_option(const CLI::App& app, const std::string& arg) {
  if (arg.rfind("--", 0) != 0) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  const std::string name = option_name(arg);
  if (std::find(names.begin(), names.end(), name) != names.end()) return "";
  return nearest_word(name, names);
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best_d == 0 || best_d > 2 || 2 * best_d >= word.size()) return "";
  return best;
}

bool parse_cli(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return false;
  } catch (const CLI::Success&) {  // --version and similar: already printed
    return false;
  } catch (const CLI::ParseError& e) {
    std::string hint;
    for (size_t k = 1; k < args.size() && hint.empty() && args[k] != "--"; ++k) {
      const std::string near = suggest_option(app, args[k]);
      if (!near.empty()) hint = " (did you mean " + near + "?)";
    }
    throw Error(std::string(e.what()) + (hint.empty() ? " (see " + app.get_name() + " --help)" : hint),
                2);
  }
  return true;
}

}  // namespace rprof
