#include "integration/harness.h"
#include "run/preload.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace rprof::test {
namespace fs = std::filesystem;

namespace {

// Built before fork: the child only calls putenv on these strings.
const std::vector<std::string>& hermetic_env() {
  static const std::vector<std::string> env = [] {
    const fs::path home = fs::path(RPROF_TEST_BIN_DIR) / "work" / "home";
    fs::create_directories(home);
    std::vector<std::string> e = {"HOME=" + home.string(),
                                  "XDG_CACHE_HOME=" + (home / ".cache").string()};
    for (const std::string& m : machine_env(default_machine())) e.push_back(m);
    return e;
  }();
  return env;
}

}  // namespace

std::string default_machine() { return "zen4-desktop"; }

std::string machine_root(const std::string& name) {
  return std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/" + name;
}

std::string machine_file(const std::string& name) { return machine_root(name) + "/machine.json"; }

std::vector<std::string> machine_env(const std::string& name) {
  return {"RPROF_SYSROOT=" + machine_root(name), "RPROF_MACHINE_FILE=" + machine_file(name)};
}

std::vector<std::string> real_machine_env() { return {"RPROF_SYSROOT=", "RPROF_MACHINE_FILE="}; }

uint64_t host_largest_cache() {
  uint64_t largest = 0;
  for (int i = 0; i < 16; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    if (!in) break;
    uint64_t v = 0;
    char unit = 0;
    if (!(in >> v)) continue;
    in >> unit;
    v <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    largest = std::max(largest, v);
  }
  return largest > 0 ? largest : uint64_t{32} << 20;
}

RunResult run_command(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env) {
  const std::vector<std::string>& base_env = hermetic_env();
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(err[0]);
    close(out[1]);
    close(err[1]);
    for (const std::string& e : base_env) putenv(const_cast<char*>(e.c_str()));
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> a;
    for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  RunResult r;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string fresh_path(const std::string& tag) {
  static std::atomic<int> counter{0};
  const fs::path base = fs::path(RPROF_TEST_BIN_DIR) / "work";
  fs::create_directories(base);
  return (base / (tag + "-" + std::to_string(getpid()) + "-" +
                  std::to_string(counter++)))
      .string();
}

std::string fresh_dir(const std::string& tag) {
  const std::string d = fresh_path(tag);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

RunResult run_tool(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {RPROF_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env);
}

RunResult run_rprof(const std::vector<std::string>& args,
                    const std::vector<std::string>& env) {
  const std::string dir = fresh_path("out");
  fs::remove_all(dir);
  std::vector<std::string> argv = {RPROF_BIN, "-o", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run_command(argv, env);
  r.dir = dir;
  return r;
}

RunResult run_rprof_on_cpu(const std::vector<std::string>& args, const std::string& region,
                           const std::vector<std::string>& env, int tries) {
  for (int i = 1;; ++i) {
    RunResult r = run_rprof(args, env);
    if (i >= tries || r.status != 0) return r;
    nlohmann::json reg;
    try {
      reg = find_region(load_json(r.dir + "/profile.json"), region);
    } catch (const std::exception&) {
      return r;  // the caller's checks say what is wrong with it
    }
    if (!reg.is_object() || !reg.contains("verdict") ||
        reg["verdict"].value("bound", "") != "waiting") {
      return r;
    }
    std::cerr << "WARNING: run " << i << " of " << tries << ": region " << region
              << " was off the CPU for most of its time (a busy host): "
              << reg["verdict"].value("summary", "") << "; running it again" << std::endl;
  }
}

namespace {

// mpirun's --get-stack-traces runs `gstack PID`; Debian's gdb has no gstack.
// A directory holding one (gdb bounded by `timeout`: a gdb that cannot attach
// must not hold mpirun up), or "" without gdb.
const std::string& gstack_dir() {
  static const std::string dir = [] {
    if (std::system("command -v gdb >/dev/null 2>&1") != 0) return std::string();
    const std::string d = fresh_dir("gstack");
    std::ofstream f(d + "/gstack");
    f << "#!/bin/sh\nexec timeout 30 gdb -batch -nx -p \"$1\" -ex 'thread apply all bt' </dev/null 2>&1\n";
    f.close();
    fs::permissions(d + "/gstack", fs::perms::owner_all);
    return d;
  }();
  return dir;
}

}  // namespace

std::vector<std::string> mpirun_np2(const std::vector<std::string>& app) {
  std::vector<std::string> a = {"mpirun",    "--allow-run-as-root",
                                "--oversubscribe", "-np",
                                "2",         "--bind-to",
                                "none",      "--mca",
                                "btl",       "self,vader",
                                "--mca",     "pml",
                                "ob1",       "--timeout",
                                std::to_string(kMpiTimeLimitS), "--report-state-on-timeout"};
  if (!gstack_dir().empty()) a.push_back("--get-stack-traces");
  a.insert(a.end(), app.begin(), app.end());
  return a;
}

RunResult run_rprof_mpi(const std::vector<std::string>& args,
                        const std::vector<std::string>& env) {
  std::vector<std::string> e = env;
  if (!gstack_dir().empty()) {
    const char* path = std::getenv("PATH");
    e.push_back("PATH=" + gstack_dir() + ":" + (path != nullptr ? path : "/usr/bin:/bin"));
  }
  RunResult r = run_rprof(args, e);
  // mpirun's words when its --timeout ended the job.
  if (r.err.find("time limit for job execution has been reached") == std::string::npos) return r;
  std::cerr << "WARNING: mpirun ended the job at its time limit (" << kMpiTimeLimitS
            << " s); running it once more. Its report:\n"
            << r.err << std::endl;
  return run_rprof(args, e);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json load_json(const std::string& path) {
  return nlohmann::json::parse(read_text(path));
}

nlohmann::json find_region(const nlohmann::json& profile, const std::string& path) {
  for (const auto& r : profile.at("regions")) {
    std::string p;
    for (const auto& part : r.at("path")) {
      p += (p.empty() ? "" : "/") + part.get<std::string>();
    }
    if (p == path) return r;
  }
  return nullptr;
}

std::string sample(const std::string& name) {
  return std::string(RPROF_SAMPLES_DIR) + "/" + name;
}

std::string preload_env(const std::string& lib) {
  return "LD_PRELOAD=" + rprof::preloadable_path(lib);
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace rprof::test
