// How rprof starts a program (the time backend): an inherited SIGCHLD =
// SIG_IGN, a daemon that outlives the program (reported as running, merged
// once), a leftover launcher variable in the environment,
// SIGKILL to rprof, stale private directories; and the writers: write errors
// on stdout and files, the HTML chart for any time value, CSV cells.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

std::string app(const std::string& name) {
  return std::string(RPROF_TEST_BIN_DIR) + "/apps/" + name;
}

std::string notes_of(const nlohmann::json& p) {
  std::string all;
  for (const auto& n : p["notes"]) all += n.get<std::string>() + "\n";
  return all;
}

// A shell command line (sh -c), for redirections and traps.
RunResult shell(const std::string& line, const std::vector<std::string>& env = {}) {
  return run_command({"/bin/sh", "-c", line}, env);
}

std::string q(const std::string& text) { return shell_quote(text); }

bool alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// Waits (up to 30 s) until cond() holds; false when it never did.
template <typename F>
bool wait_for(F cond) {
  for (int i = 0; i < 3000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

// The pid namespace inode, as run/private_dir.cpp names its directories.
std::string pid_ns() {
  char buf[64];
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  unsigned long ino = 0;
  if (n > 0) {
    buf[n] = '\0';
    std::sscanf(buf, "pid:[%lu]", &ino);
  }
  return std::to_string(ino);
}

// A profile of endings.c written by a time run (for the report tests).
std::string endings_profile() {
  static const std::string dir = [] {
    const RunResult r = run_rprof({"--backend=time", "-q", app("endings"), "_exit"});
    REQUIRE(fs::exists(r.dir + "/profile.json"));
    return r.dir;
  }();
  return dir;
}

}  // namespace

TEST_CASE("SIGCHLD ignored by rprof's parent: the run works, the app inherits SIG_IGN") {
  // A parent that sets SIGCHLD to SIG_IGN, then execs the command.
  const std::vector<std::string> ignoring = {
      "/usr/bin/python3", "-c",
      "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); "
      "os.execv(sys.argv[1], sys.argv[2:])"};
  std::vector<std::string> native = ignoring;
  native.insert(native.end(), {app("launch_probe"), "launch_probe", "sigchld"});
  const RunResult n = run_command(native);
  REQUIRE(n.status == 3);
  REQUIRE(n.out == "sigchld=ign\n");
  const std::string dir = fresh_path("sigchld");
  std::vector<std::string> under = ignoring;
  under.insert(under.end(), {RPROF_BIN, RPROF_BIN, "--backend=time", "-q", "-o", dir,
                             app("launch_probe"), "sigchld"});
  const RunResult r = run_command(under);
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.out == n.out);
  CHECK(fs::exists(dir + "/profile.json"));
}

TEST_CASE("a daemon that outlives the program: reported running, merged once") {
  const std::string go = fresh_path("daemon-go");
  const RunResult r = run_rprof({"--backend=time", "-q", app("launch_probe"), "daemon", go});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json p = load_json(r.dir + "/profile.json");
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("is still running (it outlived the program") != std::string::npos);
  CHECK(notes.find("so far kept from the shared tables") != std::string::npos);
  CHECK(notes.find("ended by _exit(), exec() or a signal") == std::string::npos);
  CHECK(find_region(p, "daemon")["calls"] == 2);
  // The daemon ends: its own raw profile (3 calls) lands beside the copy.
  std::ofstream(go) << "go\n";
  auto finals = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(r.dir + "/raw")) {
      const std::string name = e.path().filename().string();
      n += name.find(".tables") == std::string::npos && name.find(".json") != std::string::npos;
    }
    return n;
  };
  REQUIRE(wait_for([&] { return finals() == 2; }));  // the parent's and the daemon's
  const std::string merged = fresh_path("daemon-merged");
  const RunResult m = run_command({RPROF_BIN, "merge", "-o", merged, r.dir});
  INFO(m.err);
  REQUIRE(m.status == 0);
  const nlohmann::json mp = load_json(merged + "/profile.json");
  CHECK(find_region(mp, "daemon")["calls"] == 3);  // the final profile, not 2 + 3
  CHECK(find_region(mp, "parent")["calls"] == 1);
}

TEST_CASE("a leftover RPROF_PRELOAD_PROGRAM does not turn the markers off") {
  const RunResult r = run_rprof({"--backend=time", "-q", app("endings"), "_exit"},
                                {"RPROF_PRELOAD_PROGRAM=/bin/true"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "step")["calls"] == 3);
  CHECK(notes_of(p).find("no marker data") == std::string::npos);
}

TEST_CASE("SIGKILL to rprof takes the app with it, the next rprof cleans its tables") {
  const std::string tmp = fresh_dir("kill-tmp");
  const std::string ready = fresh_dir("kill-ready");
  std::ofstream(ready + "/hold-time") << "1\n";  // the app waits until killed
  const std::string out = fresh_path("kill-out");
  const pid_t rprof = fork();
  if (rprof == 0) {
    for (const std::string& e : machine_env(default_machine())) putenv(strdup(e.c_str()));
    setenv("HOME", fresh_dir("kill-home").c_str(), 1);
    unsetenv("XDG_CACHE_HOME");
    setenv("TMPDIR", tmp.c_str(), 1);
    execl(RPROF_BIN, RPROF_BIN, "--backend=time", "-q", "-o", out.c_str(),
          app("launch_probe").c_str(), "sleeper", ready.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const std::string pid_file = ready + "/ready-time";
  REQUIRE(wait_for([&] { return fs::exists(pid_file) && fs::file_size(pid_file) > 0; }));
  pid_t app_pid = 0;
  std::ifstream(pid_file) >> app_pid;
  REQUIRE(app_pid > 0);
  REQUIRE(alive(app_pid));
  auto tables_dirs = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(tmp)) {
      n += e.path().filename().string().rfind("rprof-tables.", 0) == 0;
    }
    return n;
  };
  CHECK(tables_dirs() == 1);
  kill(rprof, SIGKILL);
  int status = 0;
  waitpid(rprof, &status, 0);
  CHECK(wait_for([&] { return !alive(app_pid); }));  // PR_SET_PDEATHSIG
  CHECK(tables_dirs() == 1);                          // left behind by the killed rprof
  // A directory of a live owner (this test) and one of another pid
  // namespace stay; the dead rprof's goes.
  const std::string live = tmp + "/rprof-tables." + pid_ns() + "." + std::to_string(getpid()) + ".abcdef";
  const std::string other_ns = tmp + "/rprof-tables.1." + std::to_string(rprof) + ".abcdef";
  fs::create_directories(live);
  fs::create_directories(other_ns);
  const RunResult next = run_rprof({"--backend=time", "-q", app("endings"), "_exit"},
                                   {"TMPDIR=" + tmp});
  INFO(next.err);
  CHECK(next.status == 0);
  CHECK(tables_dirs() == 2);
  CHECK(fs::exists(live));
  CHECK(fs::exists(other_ns));
}

TEST_CASE("write errors: a report to a full stdout or file fails with one line") {
  const std::string dir = endings_profile();
  for (const char* format : {"html", "text", "json", "csv"}) {
    INFO(format);
    const RunResult r =
        shell(q(RPROF_BIN) + " report " + q(dir) + " --format " + format + " >/dev/full");
    CHECK(r.status == 1);
    CHECK(r.err ==
          "rprof: cannot write to stdout: No space left on device (the output is incomplete)\n");
  }
  const RunResult o = run_command({RPROF_BIN, "report", dir, "--format", "json", "-o", "/dev/full"});
  CHECK(o.status == 1);
  CHECK(o.err == "rprof: cannot write /dev/full: No space left on device\n");
  CHECK(o.err.find("written") == std::string::npos);
  struct stat st{};
  REQUIRE(stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));  // written in place, never replaced by a file
  // A run whose report cannot reach stdout says so and fails too.
  const std::string run_dir = fresh_path("run-full");
  const RunResult run = shell(q(RPROF_BIN) + " --backend=time -o " + q(run_dir) + " " +
                              q(app("endings")) + " _exit >/dev/full");
  CHECK(run.status == 1);
  CHECK(run.err.find("rprof: cannot write to stdout: No space left on device") !=
        std::string::npos);
}

TEST_CASE("HTML report: any time value, however small or large, renders at once") {
  nlohmann::json p = load_json(endings_profile() + "/profile.json");
  // Counters so the report draws the roofline and the bandwidth chart.
  if (std::find(p["counters"].begin(), p["counters"].end(), "flops.dp.scalar") ==
      p["counters"].end()) {
    p["counters"].push_back("flops.dp.scalar");
    p["counters"].push_back("bytes.dram.read");
  }
  for (double t : {1e-305, 4.9e-324, 2.2e-310, 0.0, 1e305, 1.7976931348623157e308}) {
    INFO("time_s " << t);
    for (auto& reg : p["regions"]) {
      reg["time_s"] = t;
      reg["exclusive_time_s"] = t;
      reg["counters"]["flops.dp.scalar"] = 1000000000;
      reg["counters"]["bytes.dram.read"] = 1000000000;
    }
    const std::string file = fresh_path("crafted") + ".json";
    std::ofstream(file) << p.dump();
    const RunResult r = run_command({RPROF_BIN, "report", file, "--format", "html"});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.size() < 4000000);
    CHECK(r.out.find("</html>") != std::string::npos);
  }
}

TEST_CASE("CSV: RFC 4180 quoting, control characters shown, formula cells neutralised") {
  nlohmann::json p = load_json(endings_profile() + "/profile.json");
  const std::vector<std::pair<std::string, std::string>> names = {
      {"\x1b[31mred\x07", "\\x1b[31mred\\x07"},
      {"=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""},
      {"a,b", "\"a,b\""},
      {"cr\rhere", "cr\\x0dhere"},
      {"+1", "'+1"},
      {"@sum", "'@sum"},
      {"-x", "'-x"}};
  size_t i = 0;
  for (auto& reg : p["regions"]) {
    if (reg["path"].size() != 1 || reg["path"][0] == "[program]" || i >= names.size()) continue;
    reg["name"] = names[i].first;
    reg["path"][0] = names[i].first;
    ++i;
  }
  REQUIRE(i >= 2);
  const std::string file = fresh_path("csv") + ".json";
  std::ofstream(file) << p.dump();
  const RunResult r = run_command({RPROF_BIN, "report", file, "--format", "csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (size_t k = 0; k < i; ++k) {
    INFO(names[k].second);
    CHECK(r.out.find("\n" + names[k].second + "," + names[k].second + ",") != std::string::npos);
  }
  for (char c : r.out) {
    const unsigned char u = static_cast<unsigned char>(c);
    CHECK_FALSE(((u < 0x20 && u != '\n') || u == 0x7f));
  }
}
