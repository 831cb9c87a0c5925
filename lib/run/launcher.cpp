#include "run/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/error.h"
#include "common/fs.h"
#include "profile/run_layout.h"
#include "runtime/handshake.h"
#include "sampling/cpu_clock_sampler.h"

extern char** environ;

namespace rprof {
namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_stopped_by = 0;  // LaunchResult::stopped_by
volatile sig_atomic_t g_forwarded = 0;   // the last signal sent on to the app
bool g_sigchld_ignored = false;          // rprof inherited SIGCHLD = SIG_IGN
// The actions the handlers replace while the app runs, by signal number.
struct sigaction g_saved[NSIG];

// Every catchable signal is forwarded or handled while the app runs, except
// SIGCHLD (the app's end, rprof's own) and the job-control signals SIGCONT,
// SIGTSTP, SIGTTIN and SIGTTOU: those stop and continue rprof as they would a
// shell wrapper (Ctrl-Z reaches the whole foreground group, the app included).
// glibc keeps two real-time signals for itself; sigaction refuses them.
bool is_forwarded(int sig) {
  switch (sig) {
    case SIGKILL:
    case SIGSTOP:
    case SIGCHLD:
    case SIGCONT:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
      return false;
    default:
      return sig > 0 && sig < NSIG && (sig < 32 || sig >= SIGRTMIN);
  }
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (is_forwarded(sig)) sigaddset(&set, sig);
  }
  return set;
}

// Sent by a process other than rprof (kill, sigqueue, tgkill). The kernel's
// own have si_code > 0: a terminal's Ctrl-C (SI_KERNEL), a fault of rprof's
// (SEGV_MAPERR, ...). rprof's SIGPIPE from a write to a closed pipe and its
// own abort() carry rprof's pid.
bool from_other_process(const siginfo_t* info) {
  return info != nullptr &&
         (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL) &&
         info->si_pid != getpid();
}

// A signal that says rprof itself failed when no other process sent it.
bool is_own_failure(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS || sig == SIGABRT;
}

// While the app runs. A signal another process sends to rprof goes on to the
// app, so it ends (or carries on) as it would without rprof, and rprof lives
// to write the profile and remove its private directories. SIGTERM and
// SIGHUP go on whoever sent them, and SIGALRM too (an alarm set before rprof
// was exec'd is the app's). The kernel's others are not forwarded: SIGINT,
// SIGQUIT and SIGWINCH from the terminal reach the whole foreground group,
// the app included (a process that signals the whole group delivers them
// twice; the runtime's flush then ends in the shared tables, which keep the
// regions); a fault or abort() of rprof's own gets the action the handler
// replaced back, so the fault recurs (or abort() goes on) and ends rprof as
// it would have; the rest (rprof's own SIGPIPE, timers, limits) are ignored.
void on_signal(int sig, siginfo_t* info, void* /*context*/) {
  const int saved_errno = errno;
  if (sig == SIGINT || sig == SIGQUIT || sig == SIGTERM || sig == SIGHUP) g_stopped_by = sig;
  if (from_other_process(info) || sig == SIGTERM || sig == SIGHUP || sig == SIGALRM) {
    g_forwarded = sig;
    if (g_child > 0) kill(g_child, sig);
  } else if (is_own_failure(sig)) {
    sigaction(sig, &g_saved[sig], nullptr);
  }
  errno = saved_errno;
}

double tv_seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + 1e-6 * static_cast<double>(tv.tv_usec);
}

// Checks one candidate path: "" if executable, else the reason.
int check_executable(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (access(path.c_str(), X_OK) != 0) return EACCES;
  return 0;
}

}  // namespace

std::string resolve_program(const std::string& name) {
  if (name.empty()) throw Error("no program to run: give one after the options", 2);
  if (name.find('/') != std::string::npos) {
    const int err = check_executable(name);
    if (err == ENOENT || err == ENOTDIR) {
      throw Error(name + ": no such file", 127);
    }
    if (err == EISDIR) throw Error(name + ": is a directory, not a program", 126);
    if (err != 0) {
      throw Error(name + ": not executable (" + std::strerror(err) +
                      "); check its permissions (chmod +x)",
                  126);
    }
    return name;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_not_exec = false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    const int err = check_executable(candidate);
    if (err == 0) return candidate;
    if (err == EACCES) found_not_exec = true;
    start = end + 1;
  }
  if (found_not_exec) {
    throw Error(name + ": found in PATH but not executable; check its permissions", 126);
  }
  throw Error(name + ": command not found (not in PATH; use ./" + name +
                  " for a program in this directory)",
              127);
}

namespace {

// What a run's output directory holds (profile/run_layout.h, report/output_dir.cpp).
bool rprof_output_entry(const std::string& name) {
  static const char* const kEntries[] = {
      layout::kProfileJson, "report.txt",         "roofline.svg",     "report.html",
      "bandwidth.svg",      "profile.csv",        layout::kRawDir,    layout::kSimRawDir,
      layout::kCountedRawDir, layout::kSimDir,    layout::kRepeatDir};
  for (const char* e : kEntries) {
    if (name == e) return true;
  }
  return false;
}

// Empties `dir` when everything in it is rprof's; else throws, naming the
// first entry that is not (nothing is removed then).
void empty_rprof_output_dir(const std::string& dir) {
  std::vector<fs::path> entries;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!rprof_output_entry(name) || e.is_symlink()) {
      throw Error("--force replaces only an rprof output directory: " + printable(dir) +
                      " holds " + printable(name) + ", which rprof does not write (nothing removed)",
                  2);
    }
    entries.push_back(e.path());
  }
  for (const fs::path& p : entries) fs::remove_all(p);
}

}  // namespace

std::string make_output_dir(const std::string& requested, const std::string& app, bool replace) {
  std::error_code ec;
  if (!requested.empty()) {
    if (fs::exists(requested, ec)) {
      if (!fs::is_directory(requested, ec)) {
        throw Error("output " + printable(requested) + " exists and is not a directory", 2);
      }
      if (!fs::is_empty(requested, ec) && replace) empty_rprof_output_dir(requested);
      if (!fs::is_empty(requested, ec)) {
        throw Error("output directory " + printable(requested) +
                        " is not empty; choose a new one so profiles are not mixed, or "
                        "replace it with --force (only an rprof output directory)",
                    2);
      }
      if (access(requested.c_str(), W_OK | X_OK) != 0) {
        throw Error("cannot write to output directory " + printable(requested) + ": " +
                        std::strerror(errno),
                    2);
      }
    } else if (mkdir(requested.c_str(), 0700) != 0) {
      throw Error(
          "cannot create output directory " + printable(requested) + ": " + std::strerror(errno),
          2);
    }
    return fs::absolute(requested).lexically_normal().string();
  }
  std::string base = fs::path(app).filename().string();
  for (char& c : base) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  if (base.empty() || base.size() > 64) base = "app";
  std::string templ = "rprof-" + base + "-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    throw Error("cannot create an output directory in " + printable(fs::current_path(ec).string()) +
                    ": " + std::strerror(errno) + "; choose one with -o DIR",
                2);
  }
  return fs::absolute(templ).lexically_normal().string();
}

namespace {

// The child after fork(): redirections, the handshake environment, exec.
// What fails is sent to the parent through err_fd (errno), exit code 127.
[[noreturn]] void exec_child(const LaunchSpec& spec, const std::string& program,
                             const std::vector<std::string>& args,
                             const std::vector<std::string>& env, int err_fd, int gate_fd,
                             pid_t parent);

// --- sampling (LaunchSpec::sample_functions) ---------------------------------
// The child waits at a gate (a pipe) before exec until the parent has opened
// the cpu-clock event on it; the event starts counting at the exec.
struct SamplingGate {
  int read_fd = -1;   // the child's end
  int write_fd = -1;  // the parent's end: closing it lets the child go
  int error = 0;      // pipe2's errno when there is no gate
};

SamplingGate open_sampling_gate(const LaunchSpec& spec) {
  SamplingGate g;
  int fds[2];
  if (!spec.sample_functions) return g;
  if (pipe2(fds, O_CLOEXEC) == 0) {
    g.read_fd = fds[0];
    g.write_fd = fds[1];
  } else {
    g.error = errno;
  }
  return g;
}

// In the child: blocks until the parent closes its end.
void wait_at_gate(int read_fd) {
  char c;
  while (read(read_fd, &c, 1) < 0 && errno == EINTR) {
  }
  close(read_fd);
}

// In the parent: opens the event on the waiting child, starts reading
// samples, and lets the child go. Null when not asked for.
std::unique_ptr<CpuClockSampler> start_sampling(const LaunchSpec& spec, pid_t child,
                                                SamplingGate& gate) {
  if (!spec.sample_functions) return nullptr;
  if (gate.read_fd >= 0) close(gate.read_fd);
  std::unique_ptr<CpuClockSampler> sampler;
  if (gate.write_fd >= 0) sampler = std::make_unique<CpuClockSampler>(child, spec.sample_period_ns);
  if (sampler) sampler->start();
  if (gate.write_fd >= 0) close(gate.write_fd);
  return sampler;
}

// After the app has ended: the times per function, or why there are none.
FunctionTimes finish_sampling(std::unique_ptr<CpuClockSampler>& sampler,
                              const SamplingGate& gate) {
  if (sampler) return sampler->finish();
  FunctionTimes t;
  t.why = std::string("cpu-clock sampling failed: cannot create a pipe (") +
          std::strerror(gate.error) + "); raise the limit on open files (ulimit -n)";
  return t;
}

void close_gate(const SamplingGate& gate) {
  if (gate.read_fd >= 0) close(gate.read_fd);
  if (gate.write_fd >= 0) close(gate.write_fd);
}

// Opens path on fd (flags as open(2)); false with errno set when it fails.
bool open_on(const std::string& path, int flags, int fd) {
  const int f = open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (f < 0) return false;
  if (f == fd) return fcntl(fd, F_SETFD, 0) == 0;
  const bool ok = dup2(f, fd) >= 0;
  close(f);
  return ok;
}

[[noreturn]] void exec_child(const LaunchSpec& spec, const std::string& program,
                             const std::vector<std::string>& args,
                             const std::vector<std::string>& env, int err_fd, int gate_fd,
                             pid_t parent) {
  // The app (and Valgrind, whose exec of its tool keeps this) dies with rprof.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // rprof died before the line above
  if (g_sigchld_ignored) signal(SIGCHLD, SIG_IGN);
  if (spec.stdin_fd >= 0 && spec.stdin_fd != 0 && dup2(spec.stdin_fd, 0) < 0) {
    const int err = errno;
    (void)!write(err_fd, &err, sizeof(err));
    _exit(127);
  }
  const struct {
    const std::string* path;
    int fd, flags;
  } redirects[] = {{&spec.stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC},
                   {&spec.stderr_path, 2, O_WRONLY | O_CREAT | O_TRUNC}};
  for (const auto& r : redirects) {
    // Applied even where rprof found the fd closed (its close-on-exec
    // /dev/null, tools/rprof/main.cpp): under Valgrind a closed fd 1 would
    // be taken by Valgrind's own log, and the app's output would land there.
    if (r.path->empty()) continue;
    if (!open_on(*r.path, r.flags, r.fd)) {
      const int err = errno;
      (void)!write(err_fd, &err, sizeof(err));
      _exit(127);
    }
  }
  // The environment was built before fork() (fixed_stack_environment):
  // the child only points at it.
  std::vector<char*> cargv;
  for (const std::string& a : args) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  if (gate_fd >= 0) wait_at_gate(gate_fd);
  execve(program.c_str(), cargv.data(), cenv.data());
  const int err = errno;
  (void)!write(err_fd, &err, sizeof(err));
  _exit(127);
}

// on_signal for every forwarded signal while the app runs; the previous
// actions back when it has ended.
class SignalsWhileWaiting {
 public:
  explicit SignalsWhileWaiting(pid_t child) {
    g_child = child;
    struct sigaction act{};
    act.sa_sigaction = on_signal;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig) {
      installed_[sig] = is_forwarded(sig) && sigaction(sig, &act, &g_saved[sig]) == 0;
    }
  }
  ~SignalsWhileWaiting() {
    g_child = 0;
    for (int sig = 1; sig < NSIG; ++sig) {
      if (installed_[sig]) sigaction(sig, &g_saved[sig], nullptr);
    }
  }
  SignalsWhileWaiting(const SignalsWhileWaiting&) = delete;
  SignalsWhileWaiting& operator=(const SignalsWhileWaiting&) = delete;

 private:
  bool installed_[NSIG] = {};
};

// Blocks the forwarded signals; restore() (idempotent, also at destruction)
// puts the previous mask back.
class BlockForwarded {
 public:
  BlockForwarded() {
    const sigset_t set = forwarded_set();
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~BlockForwarded() { restore(); }
  void restore() const { sigprocmask(SIG_SETMASK, &old_, nullptr); }
  BlockForwarded(const BlockForwarded&) = delete;
  BlockForwarded& operator=(const BlockForwarded&) = delete;

 private:
  sigset_t old_{};
};

}  // namespace

void take_over_sigchld() {
  struct sigaction old{};
  if (sigaction(SIGCHLD, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
    g_sigchld_ignored = true;
    signal(SIGCHLD, SIG_DFL);
  }
}

std::vector<std::string> fixed_stack_environment(const LaunchSpec& spec, char** base) {
  std::vector<std::string> env;
  for (char** e = base; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  const auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  const auto find = [&](const std::string& name) {
    return std::find_if(env.begin(), env.end(),
                        [&](const std::string& e) { return name_of(e) == name; });
  };
  if (spec.env.count(RPROF_ENV_PRELOAD_PROGRAM) == 0) {
    std::erase_if(env,
                  [&](const std::string& e) { return name_of(e) == RPROF_ENV_PRELOAD_PROGRAM; });
  }
  for (const auto& [k, v] : spec.env) {
    auto it = find(k);
    if (it != env.end()) {
      *it = k + "=" + v;
    } else {
      env.push_back(k + "=" + v);
    }
  }
  if (!spec.fixed_stack) return env;
  for (const char* name : kFixedStackPaths) {
    auto it = find(name);
    if (it == env.end()) continue;
    const size_t value = it->size() - std::strlen(name) - 1;
    const size_t padded =
        std::max<size_t>(1, (value + kFixedStackPathBytes - 1) / kFixedStackPathBytes) *
        kFixedStackPathBytes;
    // Only a path gains slashes (an empty or relative value stays as it is).
    if (value > 0 && (*it)[std::strlen(name) + 1] == '/') it->append(padded - value, '/');
  }
  return env;
}

LaunchResult launch(const LaunchSpec& spec) {
  std::vector<std::string> args = spec.wrapper;
  args.insert(args.end(), spec.argv.begin(), spec.argv.end());
  const std::string program = resolve_program(args.front());
  const std::vector<std::string> env = fixed_stack_environment(spec, environ);

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  SamplingGate gate = open_sampling_gate(spec);
  const auto t0 = std::chrono::steady_clock::now();
  // The signals rprof forwards stay blocked from before fork() until their
  // handlers know the app's pid, so none sent in between is lost (the app
  // may be ready, and signalled, before the parent runs again).
  const BlockForwarded blocked;
  g_stopped_by = 0;
  g_forwarded = 0;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close_gate(gate);
    throw Error(std::string("cannot fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    blocked.restore();
    close(pipefd[0]);
    if (gate.write_fd >= 0) close(gate.write_fd);
    exec_child(spec, program, args, env, pipefd[1], gate.read_fd, parent);
  }
  close(pipefd[1]);
  std::unique_ptr<CpuClockSampler> sampler = start_sampling(spec, pid, gate);
  int exec_errno = 0;
  ssize_t n;
  int status = 0;
  rusage ru{};
  pid_t w;
  {
    const SignalsWhileWaiting signals(pid);
    blocked.restore();
    do {
      n = read(pipefd[0], &exec_errno, sizeof(exec_errno));
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    do {
      w = wait4(pid, &status, 0, &ru);
    } while (w < 0 && errno == EINTR);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (n == sizeof(exec_errno)) {
    throw Error(program + ": cannot execute: " + std::strerror(exec_errno),
                exec_errno == ENOENT ? 127 : 126);
  }
  if (w < 0) throw Error(std::string("waiting for the app failed: ") + std::strerror(errno));
  LaunchResult r;
  r.wall_time_s = std::chrono::duration<double>(t1 - t0).count();
  r.user_time_s = tv_seconds(ru.ru_utime);
  r.system_time_s = tv_seconds(ru.ru_stime);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (spec.sample_functions) r.functions = finish_sampling(sampler, gate);
  r.pid = static_cast<int>(pid);
  r.stopped_by = g_stopped_by;
  if (r.stopped_by == 0 && r.signal != 0 && r.signal == g_forwarded) r.stopped_by = r.signal;
  return r;
}

}  // namespace rprof
