// The sim backend's two runs of one program (timed natively, counted under
// Valgrind): both read the same stdin; a counted run that fails names its
// real cause and makes rprof fail; SIGINT, SIGTERM or SIGUSR1 during either
// run are forwarded and keep the partial profile, then rprof dies by the same
// signal; SIGKILL to rprof
// takes Valgrind with it. Skipped (exit 77) where the sim backend cannot run.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

const char* const kCaches = "l1=32K:8:64,l2=1M:8:64,llc=8M:16:64";

std::string app(const std::string& name) {
  return std::string(RPROF_TEST_BIN_DIR) + "/apps/" + name;
}

std::string notes_of(const nlohmann::json& p) {
  std::string all;
  for (const auto& n : p["notes"]) all += n.get<std::string>() + "\n";
  return all;
}

std::string q(const std::string& text) { return shell_quote(text); }

RunResult shell(const std::string& line) { return run_command({"/bin/sh", "-c", line}); }

// rprof --backend=sim -o DIR --sim-cache ... (a shell command's prefix).
std::string rprof_sim(const std::string& dir) {
  return q(RPROF_BIN) + " --backend=sim -q --sim-cache " + kCaches + " -o " + q(dir) + " ";
}

void require_sim() {
  const RunResult r = shell(rprof_sim(fresh_path("probe")) + "--sim-only " + q(app("sum_stdin")) +
                            " </dev/null");
  if (r.status == 0) return;
  skip_test("rprof --backend=sim does not run here: " + r.err);
}

uint64_t flops_of(const nlohmann::json& region) {
  uint64_t n = 0;
  for (const auto& [k, v] : region["counters"].items()) {
    if (k.rfind("flops.", 0) == 0) n += v.get<uint64_t>();
  }
  return n;
}

bool alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

template <typename F>
bool wait_for(F cond, int seconds = 60) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

// Starts rprof --backend=sim on launch_probe sleeper; returns its pid once
// the run `ready` (time or sim) has begun, and that run's app pid.
pid_t start_sleeper(const std::string& out, const std::string& ready_dir, const char* ready,
                    pid_t* app_pid) {
  const pid_t pid = fork();
  if (pid == 0) {
    // Hermetic as run_command: the recorded machine, a private HOME.
    for (const std::string& e : machine_env(default_machine())) putenv(strdup(e.c_str()));
    setenv("HOME", fresh_dir("sleeper-home").c_str(), 1);
    unsetenv("XDG_CACHE_HOME");
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    execl(RPROF_BIN, RPROF_BIN, "--backend=sim", "-q", "--sim-cache", kCaches, "-o",
          out.c_str(), app("launch_probe").c_str(), "sleeper", ready_dir.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const std::string file = ready_dir + "/ready-" + ready;
  REQUIRE(wait_for([&] { return fs::exists(file) && fs::file_size(file) > 0; }));
  std::ifstream(file) >> *app_pid;
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// rprof ended by `sig` as the program did (a shell's 128 + sig), not an exit.
bool killed_by(pid_t pid, int sig) {
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

}  // namespace

TEST_CASE("sim: stdin from a pipe reaches both runs, the counted FLOPs are exact") {
  require_sim();
  const std::string dir = fresh_path("stdin");
  const RunResult r = shell("seq 1 200 | " + rprof_sim(dir) + q(app("sum_stdin")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json p = load_json(dir + "/profile.json");
  CHECK(flops_of(find_region(p, "sum")) == 200u * 2000u);  // 2 FLOPs x 1000 per number
  CHECK(read_text(dir + "/sim/stdout.txt").rfind("read 200 numbers", 0) == 0);
  // seq 1 200: 9 numbers of 1 digit, 90 of 2, 101 of 3, each with its newline.
  CHECK(notes_of(p).find("stdin: 692 bytes, given to both runs") != std::string::npos);
}

TEST_CASE("sim: stdin from a file reaches both runs") {
  require_sim();
  const std::string input = fresh_path("numbers") + ".txt";
  std::ofstream(input) << "1\n2\n3\n";
  const std::string dir = fresh_path("stdin-file");
  const RunResult r = shell(rprof_sim(dir) + q(app("sum_stdin")) + " < " + q(input));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json p = load_json(dir + "/profile.json");
  CHECK(flops_of(find_region(p, "sum")) == 3u * 2000u);
  CHECK(notes_of(p).find("stdin: a file of 6 bytes (from offset 0), opened again for both runs") !=
        std::string::npos);
}

TEST_CASE("sim: a '%' in the output directory's name is not Valgrind's") {
  require_sim();
  const std::string dir = fresh_path("pct") + "-100%p%q%%";
  const RunResult r = shell("echo 5 | " + rprof_sim(dir) + q(app("sum_stdin")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(flops_of(find_region(load_json(dir + "/profile.json"), "sum")) == 2000u);
  bool log = false;
  for (const auto& e : fs::directory_iterator(dir + "/sim")) {
    log |= e.path().filename().string().rfind("valgrind.", 0) == 0;
  }
  CHECK(log);
}

TEST_CASE("sim: a set-user-ID program fails the counted run with the cause") {
  require_sim();
  const std::string copy = fresh_dir("suid") + "/sum_stdin";
  fs::copy_file(app("sum_stdin"), copy);
  REQUIRE(chmod(copy.c_str(), 04755) == 0);
  const RunResult r = shell("echo 1 | " + q(RPROF_BIN) + " --backend=sim -q --sim-cache " +
                            kCaches + " -o " + q(fresh_path("suid-out")) + " " + q(copy));
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("is set-user-ID, set-group-ID or has file capabilities") != std::string::npos);
  CHECK(r.err.find("not deterministic") == std::string::npos);
}

TEST_CASE("sim: a symbol bound only at start fails the counted run with the cause, exit 1") {
  require_sim();
  // Natively (lazy binding) the program runs; the counted run binds every
  // symbol at start (LD_BIND_NOW=1), and the loader refuses its library's
  // never-called, undefined one.
  const RunResult native = run_command({app("unbound_app")});
  REQUIRE(native.status == 0);
  REQUIRE(native.out == "42\n");
  const RunResult r = shell(rprof_sim(fresh_path("unbound")) + q(app("unbound_app")));
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.out == "42\n");  // the timed run's output, once
  CHECK(r.err.find("undefined symbol: never_defined") != std::string::npos);
  CHECK(r.err.find("binds every symbol at start") != std::string::npos);
  CHECK(r.err.find("not deterministic") == std::string::npos);
  // The user's own LD_BIND_NOW=1: the program itself fails, natively too;
  // rprof exits with its status.
  const RunResult own = shell("LD_BIND_NOW=1 " + rprof_sim(fresh_path("unbound-own")) +
                              q(app("unbound_app")));
  INFO(own.err);
  CHECK(own.status == 127);
  CHECK(own.err.find("not deterministic") == std::string::npos);
}

TEST_CASE("sim: 600 threads at once run under Valgrind, beyond its default of 500") {
  require_sim();
  const RunResult r = run_rprof(
      {"--backend=sim", "-q", "--sim-cache", kCaches, app("launch_probe"), "threads", "600"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("Max number of threads") == std::string::npos);
}

TEST_CASE("sim: SIGTERM, SIGINT or SIGUSR1 during the counted run: forwarded, partial profile") {
  require_sim();
  for (const int sig : {SIGTERM, SIGINT, SIGUSR1}) {
    INFO("signal " << sig);
    const std::string out = fresh_path("stop-sim");
    const std::string ready = fresh_dir("stop-sim-ready");
    pid_t app_pid = 0;
    const pid_t rprof = start_sleeper(out, ready, "sim", &app_pid);
    kill(rprof, sig);
    CHECK(killed_by(rprof, sig));
    CHECK(wait_for([&] { return !alive(app_pid); }));
    const nlohmann::json p = load_json(out + "/profile.json");
    const std::string notes = notes_of(p);
    INFO(notes);
    CHECK(notes.find("the counted (simulated) run was stopped by signal " + std::to_string(sig)) !=
          std::string::npos);
    CHECK(notes.find("not deterministic") == std::string::npos);
    CHECK(flops_of(find_region(p, "before")) == 2000u);  // counted before the stop
  }
}

TEST_CASE("sim: SIGTERM or SIGUSR1 during the timed run: no counted run, rprof dies by it") {
  require_sim();
  for (const auto& [sig, name] : {std::pair{SIGTERM, "15 (SIGTERM)"}, {SIGUSR1, "10 (SIGUSR1)"}}) {
    INFO(name);
    const std::string out = fresh_path("stop-timed");
    const std::string ready = fresh_dir("stop-timed-ready");
    std::ofstream(ready + "/hold-time") << "1\n";
    pid_t app_pid = 0;
    const pid_t rprof = start_sleeper(out, ready, "time", &app_pid);
    kill(rprof, sig);
    CHECK(killed_by(rprof, sig));
    CHECK_FALSE(fs::exists(ready + "/ready-sim"));
    const std::string notes = notes_of(load_json(out + "/profile.json"));
    CHECK(notes.find(std::string("the timed run was stopped by signal ") + name +
                     ", so the counted") != std::string::npos);
  }
}

TEST_CASE("sim: SIGKILL to rprof during the counted run takes Valgrind and the app with it") {
  require_sim();
  const std::string out = fresh_path("kill-sim");
  const std::string ready = fresh_dir("kill-sim-ready");
  pid_t app_pid = 0;
  const pid_t rprof = start_sleeper(out, ready, "sim", &app_pid);
  REQUIRE(alive(app_pid));
  kill(rprof, SIGKILL);
  wait_status(rprof);
  CHECK(wait_for([&] { return !alive(app_pid); }));
}
