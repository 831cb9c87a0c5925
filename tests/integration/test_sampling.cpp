// cpu-clock sampling of a native run (LaunchSpec::sample_functions): which
// function the samples land in. Attribution tests, not timing tests: the
// test app spins for fixed amounts of CPU time in known functions
// (apps/sampling_app.c) and the shares are asserted with wide margins.
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run/launcher.h"
#include "sampling/cpu_clock_sampler.h"
#include "skip.h"

namespace fs = std::filesystem;
using rprof::FunctionTime;
using rprof::FunctionTimes;

namespace {

const std::string kApp = std::string(RPROF_TEST_BIN_DIR) + "/apps/sampling_app";

std::string scratch_dir() {
  std::string t = (fs::temp_directory_path() / "rprof-sampling-XXXXXX").string();
  REQUIRE(mkdtemp(t.data()) != nullptr);
  return t;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

rprof::LaunchResult run_app(const std::string& app, const std::string& mode,
                            const std::string& out_file = "/dev/null") {
  rprof::LaunchSpec spec;
  spec.argv = {app, mode};
  spec.stdout_path = out_file;
  spec.sample_functions = true;
  return rprof::launch(spec);
}

// Runs the app sampled; skips (with the kernel's reason) where sampling is refused.
FunctionTimes sampled(const std::string& app, const std::string& mode) {
  const rprof::LaunchResult r = run_app(app, mode);
  REQUIRE(r.exit_code == 0);
  if (!r.functions.sampled) rprof::test::skip_test(r.functions.why);
  return r.functions;
}

const FunctionTime* find(const FunctionTimes& t, const std::string& symbol) {
  for (const FunctionTime& f : t.functions) {
    if (f.symbol == symbol) return &f;
  }
  return nullptr;
}

// More than 80 % of `total`.
bool overwhelming(uint64_t part, uint64_t total) { return part * 5 > total * 4; }

uint64_t self_of(const FunctionTimes& t, const std::string& symbol) {
  const FunctionTime* f = find(t, symbol);
  return f ? f->self_samples : 0;
}

std::string describe(const FunctionTimes& t) {
  std::ostringstream os;
  os << t.samples << " samples, " << t.lost << " lost:";
  for (const FunctionTime& f : t.functions) {
    os << "\n  " << f.object << " '" << f.symbol << "' @" << f.start << " self " << f.self_samples
       << " incl " << f.inclusive_samples << " threads " << f.threads;
  }
  return os.str();
}

}  // namespace

TEST_CASE("sampling: a program that spins in one function has nearly all samples there") {
  const FunctionTimes t = sampled(kApp, "spin");
  INFO(describe(t));
  CHECK(t.why.empty());
  // The default period (250 us of CPU per sample), unless this kernel's
  // maximum sample rate is lower (then 1 / that rate, with a note).
  const uint64_t max_rate = rprof::kernel_max_sample_rate();
  const uint64_t want =
      rprof::grant_sample_period(rprof::kSamplingPeriodNs, max_rate).period_ns;
  CHECK(t.period_s == Approx(static_cast<double>(want) * 1e-9).epsilon(1e-6));
  CHECK(t.period_note.empty() == (want == rprof::kSamplingPeriodNs));
  // 0.42 s of CPU: about 1700 samples at 250 us.
  REQUIRE(t.samples >= 200);
  const FunctionTime* spin = find(t, "spin_here");
  REQUIRE(spin != nullptr);
  CHECK(spin->object == fs::canonical(kApp).string());
  CHECK(overwhelming(spin->self_samples, t.samples));
  CHECK(spin->self_s == Approx(static_cast<double>(spin->self_samples) * t.period_s));
  CHECK(spin->threads == 1u);
  CHECK(self_of(t, "little_one") > 0);
  CHECK(self_of(t, "little_one") < spin->self_samples / 4);
  // Frame pointers: spin_here's samples are in its callers' inclusive counts.
  REQUIRE(t.callchains);
  const FunctionTime* caller = find(t, "run_spin");
  const FunctionTime* main_fn = find(t, "main");
  REQUIRE(caller != nullptr);
  REQUIRE(main_fn != nullptr);
  CHECK(spin->inclusive_samples >= spin->self_samples);
  CHECK(caller->inclusive_samples >= spin->self_samples * 9 / 10);
  CHECK(caller->self_samples < spin->self_samples / 10);
  CHECK(main_fn->inclusive_samples >= caller->inclusive_samples);
  CHECK(main_fn->inclusive_s ==
        Approx(static_cast<double>(main_fn->inclusive_samples) * t.period_s));
}

TEST_CASE("sampling: samples of a second thread are attributed to its function") {
  const FunctionTimes t = sampled(kApp, "thread");
  INFO(describe(t));
  const FunctionTime* in_thread = find(t, "spin_in_thread");
  const FunctionTime* spin = find(t, "spin_here");
  REQUIRE(in_thread != nullptr);
  REQUIRE(spin != nullptr);
  CHECK(in_thread->self_samples > 150);  // 0.3 s of CPU
  CHECK(spin->self_samples > 40);        // 0.1 s of CPU
  CHECK(in_thread->threads == 1u);
  // main ran in one thread, spin_in_thread in the other: start_thread's
  // inclusive count is the second thread's only.
  const FunctionTime* main_fn = find(t, "main");
  REQUIRE(main_fn != nullptr);
  CHECK(main_fn->threads == 1u);
}

TEST_CASE("sampling: samples of a forked child are attributed (its parent's mappings)") {
  const FunctionTimes t = sampled(kApp, "fork");
  INFO(describe(t));
  CHECK(self_of(t, "spin_in_fork") > 150);
  CHECK(self_of(t, "spin_here") > 40);
}

TEST_CASE("sampling: samples of an exec'ed child are attributed (mappings after exec)") {
  const FunctionTimes t = sampled(kApp, "exec");
  INFO(describe(t));
  const FunctionTime* child = find(t, "spin_in_child");
  REQUIRE(child != nullptr);
  CHECK(child->self_samples > 150);
  CHECK(child->object == fs::canonical(kApp).string());
  CHECK(self_of(t, "spin_here") > 40);
}

TEST_CASE("sampling: a stripped program gives unnamed functions grouped by 4 KiB range") {
  const std::string dir = scratch_dir();
  const std::string copy = dir + "/sampling_app_stripped";
  const std::string cmd = "objcopy --strip-all '" + kApp + "' '" + copy + "' 2>/dev/null";
  if (std::system("command -v objcopy >/dev/null 2>&1") != 0) {
    rprof::test::skip_test("objcopy is not installed (binutils): cannot strip a copy");
  }
  REQUIRE(std::system(cmd.c_str()) == 0);
  const FunctionTimes t = sampled(copy, "spin");
  INFO(describe(t));
  REQUIRE(!t.functions.empty());
  const FunctionTime& top = t.functions.front();
  CHECK(top.object == fs::canonical(copy).string());
  CHECK(top.symbol.empty());
  CHECK(top.start % 4096 == 0);
  CHECK(overwhelming(top.self_samples, t.samples));
  CHECK(find(t, "spin_here") == nullptr);
  fs::remove_all(dir);
}

TEST_CASE("sampling: refused sampling says why in one line and the app still runs") {
  const std::string dir = scratch_dir();
  for (const char* err : {"EACCES", "EPERM", "ENOSYS", "ENOENT"}) {
    INFO(err);
    setenv(rprof::kSamplingErrnoEnv, err, 1);
    const rprof::LaunchResult r = run_app(kApp, "spin", dir + "/out.txt");
    unsetenv(rprof::kSamplingErrnoEnv);
    CHECK(r.exit_code == 0);
    CHECK(slurp(dir + "/out.txt") == "sampling_app spin done\n");
    CHECK(r.user_time_s > 0.2);  // it ran, and was timed
    CHECK_FALSE(r.functions.sampled);
    CHECK(r.functions.functions.empty());
    CHECK(r.functions.why.find(err) != std::string::npos);
    CHECK(r.functions.why.find('\n') == std::string::npos);
    CHECK(r.functions.why.rfind("cpu-clock sampling ", 0) == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("sampling: the refusal messages name the fix") {
  const std::string paranoid = rprof::sampling_refused_why(EACCES, 3, false);
  CHECK(paranoid.find("kernel.perf_event_paranoid is 3") != std::string::npos);
  CHECK(paranoid.find("sudo sysctl kernel.perf_event_paranoid=2") != std::string::npos);
  // Root, or paranoid 2: a policy, not the sysctl.
  CHECK(rprof::sampling_refused_why(EPERM, 2, false).find("seccomp") != std::string::npos);
  CHECK(rprof::sampling_refused_why(EACCES, 3, true).find("sysctl") == std::string::npos);
  CHECK(rprof::sampling_refused_why(ENOSYS, 2, false).find("ENOSYS") != std::string::npos);
}

TEST_CASE("sampling: not asked for, nothing is sampled") {
  rprof::LaunchSpec spec;
  spec.argv = {kApp, "spin"};
  spec.stdout_path = "/dev/null";
  const rprof::LaunchResult r = rprof::launch(spec);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.functions.sampled);
  CHECK(r.functions.why.empty());
  CHECK(r.functions.samples == 0);
}

TEST_CASE("sampling: works for a user without privileges (perf_event_paranoid 2)") {
  if (geteuid() != 0) {
    // Already unprivileged: the cases above are the check.
    const FunctionTimes t = sampled(kApp, "spin");
    CHECK(overwhelming(self_of(t, "spin_here"), t.samples));
    return;
  }
  // As root: the same run from a child that drops to nobody (uid 65534).
  const std::string paranoid = slurp("/proc/sys/kernel/perf_event_paranoid");
  if (std::atoi(paranoid.c_str()) > 2) {
    rprof::test::skip_test("kernel.perf_event_paranoid is above 2: unprivileged sampling is off");
  }
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    // setuid made this process undumpable, which perf_event_open's ptrace
    // check refuses for non-root; a user's own rprof is dumpable.
    prctl(PR_SET_DUMPABLE, 1);
    if (access(kApp.c_str(), X_OK) != 0) _exit(11);
    const rprof::LaunchResult r = run_app(kApp, "spin");
    if (r.exit_code != 0) _exit(12);
    if (!r.functions.sampled) {
      std::fprintf(stderr, "not sampled: %s\n", r.functions.why.c_str());
      _exit(13);
    }
    const FunctionTimes& t = r.functions;
    _exit(overwhelming(self_of(t, "spin_here"), t.samples) ? 0 : 14);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 11) {
    rprof::test::skip_test("the test app is not executable by nobody (uid 65534): " + kApp);
  }
  CHECK(WEXITSTATUS(status) == 0);  // 13: refused, 14: misattributed
}
