// Bad input, each case: marker misuse, programs that cannot run or crash,
// corrupt or foreign profiles given to `rprof report`, bad options, numbers
// in rules files, paths that cannot be written or hold control characters.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "integration/harness.h"
#include "skip.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {
std::string app(const std::string& name) {
  return std::string(RPROF_TEST_BIN_DIR) + "/apps/" + name;
}
size_t count_lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
}  // namespace

TEST_CASE("marker misuse is recorded once with both names -- good regions stay correct") {
  auto r = run_rprof({"--backend=time", app("bad_markers")});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  auto good = find_region(p, "good");
  REQUIRE(good.is_object());
  CHECK(good["calls"] == 2);
  CHECK(good["complete"] == true);
  CHECK(find_region(p, "good/a")["calls"] == 1);
  auto errors = p["errors"];
  auto has = [&](const std::string& kind, const std::string& expected,
                 const std::string& got) {
    for (const auto& e : errors) {
      if (e["kind"] == kind && e["expected"] == expected && e["got"] == got &&
          e["count"] == (kind == "empty_name" ? 3 : 1)) {
        return true;
      }
    }
    return false;
  };
  CHECK(has("mismatched_end", "a", "b"));
  CHECK(has("end_without_begin", "", "never_begun"));
  CHECK(has("empty_name", "", ""));  // "", NULL begin, NULL end
  // Names with quotes, newlines, tabs and non-UTF-8 bytes survive as JSON.
  CHECK(find_region(p, "quote\"back\\slash\nnewline\ttab")["calls"] == 1);
  CHECK(find_region(p, "bad-utf8-\xEF\xBF\xBD\xEF\xBF\xBD-end")["calls"] == 1);
  CHECK(find_region(p, "utf8-\xc3\xa9t\xc3\xa9")["calls"] == 1);
  // A name longer than the runtime keeps (4096 bytes; this one is 4999) is
  // refused and counted, never cut into a name that could merge with another.
  CHECK(find_region(p, std::string(1024, 'x')).is_null());
  CHECK(find_region(p, std::string(4096, 'x')).is_null());
  bool too_long = false;
  for (const auto& e : errors) too_long |= e["kind"] == "name_too_long" && e["count"] >= 1;
  CHECK(too_long);
  // The text report names both regions of the mismatch and stays one line
  // per region (newlines in names are escaped).
  CHECK(r.out.find("end \"b\" while \"a\" was the innermost open region") != std::string::npos);
  CHECK(r.out.find("quote\"back\\slash\\nnewline\\ttab") != std::string::npos);
}

TEST_CASE("programs that cannot run: 127 not found, 126 not executable") {
  auto r = run_rprof({"./definitely-not-here"});
  CHECK(r.status == 127);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::StartsWith("rprof: ") && Catch::Contains("no such file"));
  CHECK_FALSE(fs::exists(r.dir));  // nothing created for a program that cannot run

  r = run_rprof({"definitely-not-a-command-xyz"});
  CHECK(r.status == 127);
  CHECK_THAT(r.err, Catch::Contains("command not found"));

  const std::string d = fresh_dir("noexec");
  const std::string f = d + "/script";
  std::ofstream(f) << "#!/bin/sh\necho hi\n";
  chmod(f.c_str(), 0644);
  r = run_rprof({f});
  CHECK(r.status == 126);
  CHECK_THAT(r.err, Catch::Contains("not executable"));
  r = run_rprof({d});
  CHECK(r.status == 126);
  CHECK_THAT(r.err, Catch::Contains("directory"));
}

TEST_CASE("the app's exit code is preserved") {
  auto r = run_rprof({"--backend=time", app("crash"), "exit3"});
  CHECK(r.status == 3);
  auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["exit_code"] == 3);
  CHECK(find_region(p, "done")["calls"] == 2);
  // exit() flushes at exit: the regions left open are reported incomplete.
  CHECK(find_region(p, "open_outer")["complete"] == false);
}

TEST_CASE("a crashing app leaves its completed regions -- signal in exit code") {
  for (auto [how, sig] : {std::pair{"segv", SIGSEGV}, std::pair{"abort", SIGABRT}}) {
    INFO(how);
    auto r = run_rprof({"--backend=time", app("crash"), how});
    CHECK(r.status == 128 + sig);
    auto p = load_json(r.dir + "/profile.json");
    CHECK(p["run"]["signal"] == sig);
    auto done = find_region(p, "done");
    REQUIRE(done.is_object());
    CHECK(done["calls"] == 2);
    CHECK(done["complete"] == true);
    auto outer = find_region(p, "open_outer");
    auto inner = find_region(p, "open_outer/open_inner");
    REQUIRE(outer.is_object());
    REQUIRE(inner.is_object());
    CHECK(outer["complete"] == false);
    CHECK(outer["calls"] == 0);
    CHECK(outer["open_calls"] == 1);
    CHECK(inner["complete"] == false);
    CHECK(r.out.find("incomplete") != std::string::npos);
  }
}

TEST_CASE("SIGTERM and SIGINT sent to the app: report kept") {
  for (int sig : {SIGTERM, SIGINT}) {
    INFO(sig);
    // rprof runs the app, which prints "ready <pid>" and waits; the test then
    // signals the app only, as a terminal's Ctrl-C or a batch system would.
    const std::string dir = fresh_path("sig");
    int out[2];
    REQUIRE(pipe(out) == 0);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      execl(RPROF_BIN, RPROF_BIN, "--backend=time", "-q", "-o", dir.c_str(), app("crash").c_str(), "wait",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    REQUIRE_THAT(line, Catch::StartsWith("ready "));
    const pid_t app_pid = std::stoi(line.substr(6));
    REQUIRE(kill(app_pid, sig) == 0);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    // rprof ends as the app did: killed by the same signal, after the report.
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    auto p = load_json(dir + "/profile.json");
    CHECK(p["run"]["signal"] == sig);
    CHECK(find_region(p, "done")["calls"] == 2);
    CHECK(find_region(p, "open_outer")["complete"] == false);
  }
}

TEST_CASE("a program without markers gets one region for the whole program") {
  auto r = run_rprof({"--backend=time", app("no_markers")});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  REQUIRE(p["regions"].size() == 1);
  CHECK(p["regions"][0]["name"] == "[program]");
  CHECK(p["regions"][0]["time_s"].get<double>() > 0);
  CHECK_THAT(r.out, Catch::Contains("no marker data"));
}

TEST_CASE("markers without the launcher are silent -- RPROF_VERBOSE says why") {
  auto r = run_command({sample("daxpy"), "1000", "1"});
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  r = run_command({sample("daxpy"), "1000", "1"}, {"RPROF_VERBOSE=1"});
  CHECK_THAT(r.err, Catch::Contains("markers inactive") && Catch::Contains("RPROF_OUTPUT_DIR"));
}

TEST_CASE("rprof report on corrupt, truncated, foreign and missing profiles") {
  auto good = run_rprof({"--backend=time", sample("daxpy"), "1000", "2"});
  REQUIRE(good.status == 0);
  const std::string raw = [&] {
    for (const auto& e : fs::directory_iterator(good.dir + "/raw")) return e.path().string();
    return std::string();
  }();
  REQUIRE(!raw.empty());
  const std::string text = read_text(raw);
  const std::string d = fresh_dir("corrupt");
  struct Case { std::string name, content, expect; };
  for (const Case& c : {Case{"truncated.json", text.substr(0, text.size() / 2), "truncated"},
                        Case{"empty.json", "", "empty"},
                        Case{"foreign.json", R"({"traceEvents":[]})", "foreign"},
                        Case{"garbage.json", "\x7f" "ELF\x01\x02", "not JSON"},
                        Case{"version.json", R"({"format":"rprof-raw","schema_version":99})",
                             "schema_version 99"}}) {
    INFO(c.name);
    const std::string f = d + "/" + c.name;
    std::ofstream(f, std::ios::binary) << c.content;
    auto r = run_command({RPROF_BIN, "report", f});
    CHECK(r.status != 0);
    CHECK(count_lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains(f) && Catch::Contains(c.expect));
  }
  auto r = run_command({RPROF_BIN, "report", d + "/missing.json"});
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Catch::Contains("no such file"));
  // The raw profile itself re-renders.
  r = run_command({RPROF_BIN, "report", raw});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("daxpy"));
}

TEST_CASE("bad options: one line, exit 2") {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--format", "xml", sample("daxpy")},
        {"--no-such-option", sample("daxpy")},
        {"--backend", "nonsense", sample("daxpy")},
        {"report"}}) {
    auto r = run_command([&] {
      std::vector<std::string> a = {RPROF_BIN};
      a.insert(a.end(), args.begin(), args.end());
      return a;
    }());
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
  }
  // -o pointing at a non-empty directory is refused (profiles would mix).
  const std::string d = fresh_dir("nonempty");
  std::ofstream(d + "/x") << "x";
  auto r = run_command({RPROF_BIN, "-o", d, sample("daxpy")});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("not empty"));
}

TEST_CASE("hostile inputs to report, diff and merge: one line naming the file, the field and the limit") {
  const std::string d = fresh_dir("hostile");
  const std::string corpus = std::string(RPROF_SOURCE_DIR) + "/tests/fuzz/corpus";
  const std::string fifo = d + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // A raw profile whose one region name is 200 MB: refused at the string,
  // before the parser builds it.
  const std::string huge_name = d + "/huge-name.json";
  {
    std::string text = read_text(corpus + "/raw/valid-two-threads.json");
    const std::string at = "\"name\": \"a\"";
    const size_t i = text.find(at);
    REQUIRE(i != std::string::npos);
    text.replace(i, at.size(), "\"name\": \"" + std::string(200000000, 'n') + "\"");
    std::ofstream(huge_name, std::ios::binary) << text;
  }
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"report", "/dev/zero"},
       "rprof: /dev/zero: is a device, not an rprof profile (rprof reads regular files only)\n"},
      {{"report", fifo},
       "rprof: " + fifo +
           ": is a FIFO (named pipe), not an rprof profile (rprof reads regular files only)\n"},
      {{"diff", "/dev/zero", corpus + "/profile/valid-two-threads.json"},
       "rprof: /dev/zero: is a device, not an rprof profile (rprof reads regular files only)\n"},
      {{"merge", "/dev/zero"},
       "rprof: /dev/zero: is a device, not an rprof output directory or raw profile\n"},
      {{"report", corpus + "/raw/hostile-world-size.json"},
       "rprof: " + corpus + "/raw/hostile-world-size.json: not a valid rprof raw profile: "
       "world_size: 2147483646 is out of range (-1 to 1048576)\n"},
      {{"merge", corpus + "/raw/hostile-world-size.json"},
       "rprof: " + corpus + "/raw/hostile-world-size.json: not a valid rprof raw profile: "
       "world_size: 2147483646 is out of range (-1 to 1048576)\n"},
      {{"report", corpus + "/raw/hostile-deep-arrays.json"},
       "rprof: " + corpus + "/raw/hostile-deep-arrays.json: not a valid rprof profile: arrays "
       "and objects nested deeper than 64 levels (the limit)\n"},
      {{"report", corpus + "/profile/hostile-world-size.json"},
       "rprof: " + corpus + "/profile/hostile-world-size.json: not a valid rprof profile: "
       "run.world_size: 50000000 is out of range (-1 to 1048576)\n"},
      {{"report", huge_name},
       "rprof: " + huge_name + ": not a valid rprof profile: a string of 200000000 bytes at "
       "byte 343 (line 1, column 344) is beyond the limit of 1048576 bytes\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {RPROF_BIN};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    INFO(c.args.front() << " " << c.args[1]);
    auto r = run_command(argv);
    CHECK(r.status == 1);
    CHECK(r.err == c.expect);
  }
  fs::remove(huge_name);
}

TEST_CASE("a machine file that is a directory is named as one") {
  const std::string d = fresh_dir("machine-dir");
  const std::string profile = std::string(RPROF_SOURCE_DIR) +
                              "/tests/fuzz/corpus/profile/valid-two-threads.json";
  auto r = run_command({RPROF_BIN, "report", profile}, {"RPROF_MACHINE_FILE=" + d});
  CHECK(r.status == 1);
  CHECK(r.err == "rprof: " + d +
                     ": is a directory, not an rprof machine file (rprof reads regular files "
                     "only)\n");
  r = run_command({RPROF_BIN, "report", profile, "--machine", d});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("is a directory") && !Catch::Contains("empty"));
}

// root writes anywhere: the command prefix that runs as nobody (setpriv)
// where this runs as root, empty otherwise. Skips where nobody cannot be
// had, or cannot reach `dir` (a checkout under a private directory, a home
// of mode 0700, is closed to it).
static std::vector<std::string> unprivileged_reaching(const std::string& dir) {
  if (geteuid() != 0) return {};
  if (access("/usr/bin/setpriv", X_OK) != 0) skip_test("root writes into a read-only directory");
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                   "--clear-groups"};
  std::vector<std::string> reach = argv;
  reach.insert(reach.end(), {"/usr/bin/test", "-x", dir});
  if (run_command(reach).status != 0) {
    skip_test("nobody cannot reach " + dir + " (a private directory above the build tree)");
  }
  return argv;
}

TEST_CASE("an output directory that cannot be written: one line with the directory and why") {
  const std::string d = fresh_dir("readonly");
  std::vector<std::string> argv = unprivileged_reaching(d);
  REQUIRE(chmod(d.c_str(), 0555) == 0);
  argv.insert(argv.end(), {RPROF_BIN, "-o", d, "--backend=time", "/bin/true"});
  auto r = run_command(argv);
  chmod(d.c_str(), 0700);
  CHECK(r.status == 2);
  CHECK(r.err == "rprof: cannot write to output directory " + d + ": Permission denied\n");
}

TEST_CASE("rules files: a subnormal is a number, a 5,000-digit one is echoed short") {
  const std::string d = fresh_dir("rules-numbers");
  const std::string profile =
      std::string(RPROF_SOURCE_DIR) + "/tests/fuzz/corpus/profile/valid-two-threads.json";
  // 4.9e-324 is valid TOML (the smallest subnormal double): the rule is read
  // and judged (region a takes longer: it fails, exit 1), not refused (exit 2).
  const std::string tiny = d + "/tiny.toml";
  std::ofstream(tiny) << "[[rule]]\nregion = \"a\"\nmax_time_s = 4.9e-324\n";
  auto r = run_command({RPROF_BIN, "check", profile, "--rules", tiny});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("not a number") == std::string::npos);
  CHECK(r.out.find("<= 4.94066e-324 s") != std::string::npos);
  // 5,000 digits: one short line, not the digits.
  const std::string huge = d + "/huge.toml";
  std::ofstream(huge) << "[[rule]]\nregion = \"a\"\nmax_time_s = " << std::string(5000, '7')
                      << "\n";
  r = run_command({RPROF_BIN, "check", profile, "--rules", huge});
  CHECK(r.status == 2);
  // toml++'s reason at the value's line and column, without the digits.
  CHECK_THAT(r.err, Catch::StartsWith("rprof: " + huge + ":3:14: ") &&
                        Catch::Contains("numeric value too long"));
  CHECK(r.err.find(std::string(200, '7')) == std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("rprof machine --output to a file it cannot write: one line before measuring") {
  const std::string d = fresh_dir("machine-readonly");
  std::vector<std::string> argv = unprivileged_reaching(d);
  REQUIRE(chmod(d.c_str(), 0555) == 0);
  argv.insert(argv.end(), {RPROF_BIN, "machine", "--tiny", "--output", d + "/m.json"});
  auto r = run_command(argv, real_machine_env());
  chmod(d.c_str(), 0700);
  CHECK(r.status == 2);
  CHECK(r.out.empty());  // nothing measured, nothing printed
  CHECK(r.err == "rprof: cannot write " + d + "/m.json: Permission denied\n");
}
