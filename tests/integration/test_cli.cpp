// The command line: help, version, formats, re-rendering a saved profile,
// paths printed with their control characters escaped.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("cli: --help, --version, help for every subcommand") {
  auto r = run_command({RPROF_BIN, "--help"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("rprof [options] [--] ./app") &&
                        Catch::Contains("--backend") && Catch::Contains("report"));
  r = run_command({RPROF_BIN, "--version"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("rprof ") && Catch::Contains("."));
  r = run_command({RPROF_BIN, "help"});
  CHECK(r.status == 0);
  // Every subcommand listed by `rprof help` answers --help.
  std::istringstream lines(r.out);
  std::string line;
  int subcommands = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  rprof ", 0) != 0 || line.find("./app") != std::string::npos) continue;
    const std::string name = line.substr(8, line.find(' ', 8) - 8);
    INFO(name);
    auto h = run_command({RPROF_BIN, name, "--help"});
    CHECK(h.status == 0);
    CHECK_FALSE(h.out.empty());
    ++subcommands;
  }
  CHECK(subcommands >= 2);
}

TEST_CASE("cli: --format json and csv on stdout -- rprof report re-renders the same data") {
  auto r = run_rprof({"--backend=time", "--format", "json", sample("nested"), "2"});
  REQUIRE(r.status == 0);
  // stdout holds the app's line then the JSON document.
  const auto start = r.out.find("{\n");
  REQUIRE(start != std::string::npos);
  auto doc = nlohmann::json::parse(r.out.substr(start));
  CHECK(find_region(doc, "solve/iterate/smooth")["calls"] == 8);

  auto csv = run_command({RPROF_BIN, "report", "--format", "csv", r.dir});
  REQUIRE(csv.status == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("path,name,depth,calls,time_s"));
  CHECK_THAT(csv.out, Catch::Contains("\nsolve/iterate/smooth,smooth,2,8,"));

  auto text = run_command({RPROF_BIN, "report", r.dir});
  REQUIRE(text.status == 0);
  CHECK(text.out == read_text(r.dir + "/report.txt"));

  // JSON round trip: report --format json of the saved profile equals it.
  auto json = run_command({RPROF_BIN, "report", "--format", "json", r.dir + "/profile.json"});
  REQUIRE(json.status == 0);
  CHECK(nlohmann::json::parse(json.out) == load_json(r.dir + "/profile.json"));
}

TEST_CASE("default output directory: fresh, private, unpredictable, in the cwd") {
  const std::string cwd = fresh_dir("cwd");
  const std::string run = shell_quote(RPROF_BIN) + " -q " + shell_quote(sample("daxpy")) +
                          " 1000 1";
  auto r = run_command({"/bin/sh", "-c", "cd " + shell_quote(cwd) + " && " + run + " && " + run});
  REQUIRE(r.status == 0);
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(cwd)) dirs.push_back(e.path());
  REQUIRE(dirs.size() == 2);  // two runs, two directories
  for (const auto& d : dirs) {
    CHECK_THAT(d.filename().string(), Catch::StartsWith("rprof-daxpy-"));
    CHECK((fs::status(d).permissions() & fs::perms::all) == fs::perms::owner_all);
    CHECK(fs::exists(d / "profile.json"));
  }
  CHECK_THAT(r.err, Catch::Contains("profile written to " + cwd));
}

TEST_CASE("cli: a newline in the -o path is printed escaped, never as a line of its own") {
  const std::string out = fresh_path("nl") + "\nrprof: all good";
  auto r = run_command({RPROF_BIN, "-q", "-o", out, "--backend=time", "/bin/true"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::is_directory(out));
  CHECK(r.err.find("\nrprof: all good") == std::string::npos);
  CHECK(r.err.find("\\nrprof: all good (") != std::string::npos);
  // An error naming the path escapes it too.
  r = run_command({RPROF_BIN, "-o", out, "--backend=time", "/bin/true"});
  CHECK(r.status == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("\\nrprof: all good is not empty") != std::string::npos);
  fs::remove_all(out);
}

TEST_CASE("cli: a mistyped subcommand or option gets the one meant") {
  auto r = run_command({RPROF_BIN, "reprot", "run"});
  CHECK(r.status == 127);
  CHECK_THAT(r.err, Catch::Contains("did you mean the subcommand 'rprof report'?"));
  r = run_command({RPROF_BIN, "help", "mrege"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean 'merge'?"));
  r = run_command({RPROF_BIN, "--bakend=time", "/bin/true"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("(did you mean --backend?)"));
  r = run_command({RPROF_BIN, "report", "--formt", "json", "x"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("(did you mean --format?)"));
  // Nothing near: no guess (a program of that name is simply not found).
  r = run_command({RPROF_BIN, "no-such-program-xyz"});
  CHECK(r.status == 127);
  CHECK_THAT(r.err, !Catch::Contains("did you mean"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("cli: --force replaces an earlier run's directory and nothing else") {
  const std::string out = fresh_path("forced");
  auto r = run_command({RPROF_BIN, "-q", "-o", out, "--backend=time", sample("daxpy"), "1000", "1"});
  REQUIRE(r.status == 0);
  // Again without --force: refused, and the message says how to replace it.
  r = run_command({RPROF_BIN, "-q", "-o", out, "--backend=time", sample("daxpy"), "1000", "1"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--force"));
  // With --force: the old files are replaced by the new run's.
  write_text(out + "/report.txt", "stale");
  r = run_command(
      {RPROF_BIN, "-q", "-o", out, "--force", "--backend=time", sample("daxpy"), "1000", "1"});
  CHECK(r.status == 0);
  CHECK(read_text(out + "/report.txt") != "stale");
  CHECK(fs::exists(out + "/profile.json"));
  // A file rprof does not write: refused, nothing removed.
  write_text(out + "/my-notes.txt", "keep me");
  r = run_command(
      {RPROF_BIN, "-q", "-o", out, "--force", "--backend=time", sample("daxpy"), "1000", "1"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("my-notes.txt") && Catch::Contains("nothing removed"));
  CHECK(read_text(out + "/my-notes.txt") == "keep me");
  CHECK(fs::exists(out + "/profile.json"));
  // merge --force never replaces one of its inputs.
  fs::remove(out + "/my-notes.txt");
  r = run_command({RPROF_BIN, "merge", out, "-o", out, "--force"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("is an input of this merge"));
  CHECK(fs::exists(out + "/raw"));
  fs::remove_all(out);
}
