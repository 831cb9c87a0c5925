// Helpers for integration tests: run the built `rprof` (or any command),
// capture exit status, stdout and stderr, and load the profile it wrote.
#ifndef RPROF_TESTS_INTEGRATION_HARNESS_H_
#define RPROF_TESTS_INTEGRATION_HARNESS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rprof::test {

struct RunResult {
  int status = -1;     // exit code, or 128 + signal
  std::string out;     // stdout
  std::string err;     // stderr
  std::string dir;     // output directory passed with -o (when run_rprof made one)
};

// Runs argv (no shell), with extra environment "K=V" entries.
RunResult run_command(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env = {});

// Runs `rprof -o <fresh dir> <args...>` and returns the result with .dir set.
RunResult run_rprof(const std::vector<std::string>& args,
                    const std::vector<std::string>& env = {});

// A fresh empty directory under the test binary dir (removed at exit).
std::string fresh_dir(const std::string& tag);
// A path for a directory that does not exist yet (for rprof -o).
std::string fresh_path(const std::string& tag);

nlohmann::json load_json(const std::string& path);
// The region of profile.json with this path ("a/b"), or null json.
nlohmann::json find_region(const nlohmann::json& profile, const std::string& path);

std::string sample(const std::string& name);  // path of a built sample
std::string read_text(const std::string& path);

}  // namespace rprof::test

#endif  // RPROF_TESTS_INTEGRATION_HARNESS_H_
