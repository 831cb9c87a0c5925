// CLI11 glue shared by the subcommands.
#ifndef RPROF_TOOLS_RPROF_CLI_H_
#define RPROF_TOOLS_RPROF_CLI_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rprof {

// Parses args (args[0] is the program name). Returns false when help was
// printed (the caller exits 0); throws Error (exit 2) on a usage error.
bool parse_cli(CLI::App& app, const std::vector<std::string>& args);

// The candidate closest to `word` when it is a likely typo of it (edit
// distance at most 2, and under half its length); "" when none is.
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

// For `arg`, an option `app` does not have ("--bakend=inst"), the one it
// likely meant ("--backend"); "" when none is near or `arg` is known.
std::string suggest_option(const CLI::App& app, const std::string& arg);

inline const char* kVersion = RPROF_VERSION;

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_CLI_H_
