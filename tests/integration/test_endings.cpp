// Nothing completed is lost however the app ends (issue 16): the shared
// region tables survive _exit, exec, uncaught signals and SIGKILL, and the
// notes say exactly what was kept and what was still open. Also the runtime's
// refusals: markers from a signal handler, bad rprof_work values, recursion
// beyond the nesting cap, and rank variables outside an MPI job.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

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

// Every region path of a profile, joined with '/'.
std::set<std::string> region_paths(const nlohmann::json& p) {
  std::set<std::string> paths;
  for (const auto& reg : p["regions"]) {
    std::string joined;
    for (const auto& s : reg["path"]) joined += (joined.empty() ? "" : "/") + s.get<std::string>();
    paths.insert(joined);
  }
  return paths;
}

uint64_t error_count(const nlohmann::json& p, const std::string& kind) {
  uint64_t n = 0;
  for (const auto& e : p["errors"]) {
    if (e["kind"] == kind) n += e["count"].get<uint64_t>();
  }
  return n;
}

// The completed regions of endings.c, exact; "compute" open.
void check_kept(const nlohmann::json& p, int open_calls = 1) {
  CHECK(find_region(p, "step")["calls"] == 3);
  CHECK(find_region(p, "outer")["calls"] == 1);
  CHECK(find_region(p, "outer/inner")["calls"] == 2);
  const auto compute = find_region(p, "compute");
  REQUIRE(compute.is_object());
  CHECK(compute["calls"] == 0);
  CHECK(compute["open_calls"] == open_calls);
  CHECK(compute["complete"] == false);
  // Opened 20 ms before the end at least; the launcher saw the end soon
  // after. Ticks since the process started are converted with the TSC rate
  // the runtime measured over 5 ms, which a loaded machine can skew: 25%.
  CHECK(compute["open_time_s"].get<double>() >= 0.015);
  CHECK(compute["open_time_s"].get<double>() < 30);
}

// rprof -q --backend=time on crash.c's `how`, with its own TMPDIR; for
// "wait", the app's "ready <pid>" line read.
struct Started {
  pid_t rprof = -1;
  pid_t app = -1;
  int out = -1;  // the app's stdout, open until rprof has ended
  // rprof's wait status, raw: WIFSIGNALED is what a shell sees.
  int wait() {
    int status = 0;
    REQUIRE(waitpid(rprof, &status, 0) == rprof);
    close(out);
    return status;
  }
};

Started start_rprof(const std::string& dir, const std::string& tmpdir, const std::string& how) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    setenv("TMPDIR", tmpdir.c_str(), 1);
    execl(RPROF_BIN, RPROF_BIN, "--backend=time", "-q", "-o", dir.c_str(), app("crash").c_str(),
          how.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  Started s{pid, -1, out[0]};
  if (how == "wait") {
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    REQUIRE_THAT(line, Catch::StartsWith("ready "));
    s.app = std::stoi(line.substr(6));
  }
  return s;
}

// The entries of a TMPDIR that rprof names its own (rprof-tables.*,
// rprof-stdin.*).
std::vector<std::string> rprof_dirs(const std::string& tmpdir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(tmpdir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rprof-", 0) == 0) found.push_back(name);
  }
  return found;
}

nlohmann::json run_ending(const std::string& how, int want_status) {
  auto r = run_rprof({"--backend=time", app("endings"), how});
  INFO(how << "\n" << r.out << r.err);
  REQUIRE(r.status == want_status);
  return load_json(r.dir + "/profile.json");
}

}  // namespace

TEST_CASE("_exit: completed regions kept from the shared tables, the open one named") {
  auto r = run_rprof({"--backend=time", app("endings"), "_exit"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  check_kept(p);
  // The open region shows how long it was open, not "0 s in 0 calls".
  const std::string text = unwrapped(read_text(r.dir + "/report.txt"));
  // (How long depends on the host: under load it was open for over 0.1 s.)
  const size_t open = text.find("1 open for ");
  REQUIRE(open != std::string::npos);
  CHECK(std::strtod(text.c_str() + open + 11, nullptr) > 0);
  CHECK(text.find(" s (incomplete)", open) != std::string::npos);
  CHECK(text.find("0 s in 0 calls") == std::string::npos);
  CHECK(text.find("compute: too-short") == std::string::npos);
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("ended by _exit() or exec() with status 0 without writing its raw "
                   "profile: 3 regions (6 calls) kept from the shared tables; 1 still open: "
                   "compute (open ") != std::string::npos);
  CHECK(notes.find("no rprof markers") == std::string::npos);
  CHECK(notes.find("no marker data") == std::string::npos);
}

TEST_CASE("execv of /bin/true: the replaced image's regions are kept") {
  const auto p = run_ending("exec_true", 0);
  check_kept(p);
  CHECK(notes_of(p).find("3 regions (6 calls) kept from the shared tables") != std::string::npos);
}

TEST_CASE("execv of an rprof program: both images kept, neither clobbers the other") {
  const auto p = run_ending("exec_self", 0);
  check_kept(p);
  CHECK(find_region(p, "after")["calls"] == 1);
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("was replaced by exec() without writing its raw profile: 3 regions "
                   "(6 calls) kept") != std::string::npos);
}

TEST_CASE("uncaught SIGPIPE, SIGUSR1 and SIGKILL: completed regions kept, the notes say so") {
  for (const auto& [how, sig, name] :
       {std::tuple{"sigpipe", 13, "Broken pipe"}, {"sigusr1", 10, "User defined signal 1"},
        {"sigkill", 9, "Killed"}}) {
    const auto p = run_ending(how, 128 + sig);
    check_kept(p);
    const std::string notes = notes_of(p);
    INFO(notes);
    CHECK(notes.find(std::string("was killed by signal ") + std::to_string(sig) + " (" + name +
                     ") without writing its raw profile: 3 regions (6 calls) kept from the "
                     "shared tables; 1 still open: compute") != std::string::npos);
    CHECK(notes.find("regions it completed are kept") != std::string::npos);
  }
}

TEST_CASE("SIGTERM to the app's process group: both processes' regions kept") {
  const auto p = run_ending("sigterm_pg", 128 + 15);
  check_kept(p, 2);  // the child was forked inside "compute"
  // Forked while "compute" was open: its regions nest there.
  CHECK(find_region(p, "compute/child")["calls"] == 4);
  CHECK(p["run"]["processes"] == 2);
}

TEST_CASE("rprof_flush() then more work then _exit: the later work is not lost") {
  const auto p = run_ending("flush_exit", 0);
  CHECK(find_region(p, "step")["calls"] == 4);
  CHECK(find_region(p, "outer/inner")["calls"] == 2);
  CHECK(p["run"]["processes"] == 1);
  CHECK(notes_of(p).find("after its last rprof_flush() without writing its raw profile") !=
        std::string::npos);
}

TEST_CASE("a failed raw write says so, and the regions come from the shared tables") {
  auto r = run_rprof({"--backend=time", app("endings"), "rmdir_out"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("rprof: could not write the raw profile to ") != std::string::npos);
  const auto p = load_json(r.dir + "/profile.json");
  check_kept(p);
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("could not write its raw profile (No such file or directory): 3 regions "
                   "(6 calls) kept from the shared tables; 1 still open: compute") !=
        std::string::npos);
  CHECK(notes.find("no marker data") == std::string::npos);
}

TEST_CASE("a normal exit writes the raw profile and the tables are not used twice") {
  auto r = run_rprof({"--backend=time", app("crash"), "exit3"});
  REQUIRE(r.status == 3);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "done")["calls"] == 2);
  CHECK(p["run"]["processes"] == 1);
  CHECK(notes_of(p).find("shared tables") == std::string::npos);
}

TEST_CASE("markers from a signal handler never corrupt the interrupted thread's stack") {
  auto r = run_rprof({"--backend=time", app("signal_markers")});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  long loops = -1;
  int ticks = -1, refused = -1;
  REQUIRE(std::sscanf(r.out.c_str(), "loops %ld ticks %d refused %d", &loops, &ticks,
                      &refused) == 3);
  REQUIRE(loops > 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "outer")["calls"] == loops);
  CHECK(find_region(p, "outer/inner")["calls"] == loops);
  // Every handler run is refused whole (begin and end), wherever SIGALRM
  // landed: inside a marker call or between two; no region of the handler's.
  CHECK(refused == ticks);
  CHECK(error_count(p, "in_signal_handler") == static_cast<uint64_t>(2 * ticks));
  CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer", "outer/inner"});
  CHECK(error_count(p, "mismatched_end") == 0);
  CHECK(error_count(p, "end_without_begin") == 0);
}

TEST_CASE("a handler raised between markers: refused, the interrupted regions exact") {
  for (const char* mode : {"raise", "siginfo"}) {
    auto r = run_rprof({"--backend=time", "-q", app("signal_between"), mode});
    INFO(mode << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    // 21 raises (one at depth 0, 10 inside "outer/work", 10 between works),
    // each handler's begin, rprof_work and end refused.
    const std::string want = std::string("runs 21 refused 63 info_ok ") +
                             (std::string(mode) == "siginfo" ? "21" : "0") + " on_alt 0\n";
    CHECK(r.out == want);
    const auto p = load_json(r.dir + "/profile.json");
    CHECK(find_region(p, "outer")["calls"] == 1);
    const auto work = find_region(p, "outer/work");
    CHECK(work["calls"] == 10);
    CHECK(work["declared_work"]["flops"] == 20);  // the handler's rprof_work(1, 1) refused
    CHECK(work["declared_work"]["bytes"] == 80);
    CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer", "outer/work"});
    CHECK(error_count(p, "in_signal_handler") == 63);
    CHECK(error_count(p, "end_without_begin") == 0);
    CHECK(error_count(p, "mismatched_end") == 0);
    CHECK(error_count(p, "work_outside_region") == 0);
  }
}

TEST_CASE("a handler that siglongjmps out: markers after it are recorded") {
  for (const char* binary : {"signal_between", "signal_between_fortify"}) {
    auto r = run_rprof({"--backend=time", "-q", app(binary), "longjmp"});
    INFO(binary << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out == "runs 5 refused 5 info_ok 0 on_alt 0\n");
    const auto p = load_json(r.dir + "/profile.json");
    CHECK(find_region(p, "outer")["calls"] == 5);
    CHECK(find_region(p, "outer/work")["calls"] == 5);
    CHECK(find_region(p, "after")["calls"] == 3);
    CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer", "outer/work", "after"});
    CHECK(error_count(p, "in_signal_handler") == 5);
    CHECK(error_count(p, "end_without_begin") == 0);
    CHECK(error_count(p, "mismatched_end") == 0);
  }
}

// The handler runs 8 frames (4 KiB each) down and siglongjmps back up; the
// next markers run 16 frames down, below where the handler's frame was: the
// jump itself (siglongjmp, or __longjmp_chk under _FORTIFY_SOURCE, both
// interposed) cleared the handler mark, so they are recorded, not refused.
TEST_CASE("a jump out of a handler deep in a call chain: deeper markers after it are recorded") {
  for (const char* binary : {"signal_between", "signal_between_fortify"}) {
    auto r = run_rprof({"--backend=time", "-q", app(binary), "deep"});
    INFO(binary << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out == "runs 5 refused 5 info_ok 0 on_alt 0\n");
    const auto p = load_json(r.dir + "/profile.json");
    // 5 rounds of 3 chains (8 frames down then the jump, 16, 4).
    const auto deep = find_region(p, "deep");
    CHECK(deep["calls"] == 15);
    CHECK(deep["declared_work"]["flops"] == 30);
    CHECK(deep["declared_work"]["bytes"] == 120);
    CHECK(find_region(p, "after")["calls"] == 3);
    CHECK(region_paths(p) == std::set<std::string>{"[program]", "deep", "after"});
    CHECK(error_count(p, "in_signal_handler") == 5);  // the handler's own begin
    CHECK(error_count(p, "end_without_begin") == 0);
    CHECK(error_count(p, "mismatched_end") == 0);
    CHECK(error_count(p, "work_outside_region") == 0);
  }
}

TEST_CASE("a handler that jumps within itself: its markers after the jump stay refused") {
  for (const char* binary : {"signal_between", "signal_between_fortify"}) {
    auto r = run_rprof({"--backend=time", "-q", app(binary), "inner"});
    INFO(binary << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    // 7 raises (one at depth 0, 3 inside "outer/work", 3 between works).
    CHECK(r.out == "runs 7 refused 21 info_ok 0 on_alt 0\n");
    const auto p = load_json(r.dir + "/profile.json");
    CHECK(find_region(p, "outer")["calls"] == 1);
    CHECK(find_region(p, "outer/work")["calls"] == 3);
    CHECK(find_region(p, "outer/work")["declared_work"]["flops"] == 6);
    CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer", "outer/work"});
    CHECK(error_count(p, "in_signal_handler") == 21);
    CHECK(error_count(p, "end_without_begin") == 0);
  }
}

TEST_CASE("sigaction, signal and sigset give back the app's own handlers") {
  auto r = run_rprof({"--backend=time", "-q", app("signal_between"), "oldact"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == "oldact ok\nruns 1 refused 3 info_ok 0 on_alt 0\n");
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "outer")["calls"] == 1);
  CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer"});
  CHECK(error_count(p, "in_signal_handler") == 3);
}

TEST_CASE("SA_ONSTACK handlers on an alternate stack, returning or jumping out") {
  auto r = run_rprof({"--backend=time", "-q", app("signal_between"), "altstack"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // Twice (a plain alternate stack, then SS_AUTODISARM): 5 raises whose
  // handler returns, 2 whose handler jumps out, all on the alternate stack
  // (a 64 KiB array in main's frame: the markers after a jump run below it).
  CHECK(r.out == "runs 14 refused 34 info_ok 0 on_alt 14\n");
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "outer")["calls"] == 6);
  CHECK(find_region(p, "outer/work")["calls"] == 8);
  CHECK(find_region(p, "after")["calls"] == 4);
  CHECK(region_paths(p) == std::set<std::string>{"[program]", "outer", "outer/work", "after"});
  CHECK(error_count(p, "in_signal_handler") == 34);
  CHECK(error_count(p, "end_without_begin") == 0);
  CHECK(error_count(p, "mismatched_end") == 0);
}

TEST_CASE("an app handler chained to the previous action (SIG_DFL): killed, regions kept") {
  auto r = run_rprof({"--backend=time", "-q", app("signal_between"), "chain"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 128 + SIGTERM);
  // The runtime installs no handler: the program replaced SIG_DFL.
  CHECK(r.out == "previous handler no\n");
  // No raw profile was written; the shared tables kept every region, the
  // open one and the refused marker.
  CHECK(notes_of(load_json(r.dir + "/profile.json")).find("kept from the shared tables") !=
        std::string::npos);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["signal"] == SIGTERM);
  CHECK(find_region(p, "done")["calls"] == 1);
  CHECK(find_region(p, "open")["complete"] == false);
  CHECK(region_paths(p) == std::set<std::string>{"[program]", "done", "open"});
  CHECK(error_count(p, "in_signal_handler") == 1);
}

TEST_CASE("a program that calls no marker is said to, though its main thread has tables") {
  auto r = run_rprof({"--backend=time", "-q", app("signal_between"), "none"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(region_paths(p) == std::set<std::string>{"[program]"});
  CHECK(notes_of(p).find("the program ran with the rprof runtime but called no marker") !=
        std::string::npos);
}

TEST_CASE("rprof_work with NaN, -1, 1e30 refused as errors, recursion past the cap is one error") {
  auto r = run_rprof({"--backend=time", app("hostile_markers")});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // RPROF_ERR_VALUE (-6) three times, then RPROF_OK; 745 begins refused
  // beyond the 256 levels, and their 745 ends absorbed.
  CHECK(r.out.rfind("work -6 -6 -6 0 deep 745 745\n", 0) == 0);
  const auto p = load_json(r.dir + "/profile.json");
  const auto w = find_region(p, "w");
  CHECK(w["declared_work"]["flops"] == 100);
  CHECK(w["declared_work"]["bytes"] == 200);
  CHECK(error_count(p, "bad_work") == 3);
  CHECK(error_count(p, "too_deep") == 745);
  CHECK(error_count(p, "end_without_begin") == 0);
  CHECK(error_count(p, "mismatched_end") == 0);
  CHECK(find_region(p, "rec")["calls"] == 256);
  CHECK(find_region(p, "after")["calls"] == 1);  // the stack is whole again
  // The text report says what was refused, once per kind.
  CHECK(r.out.find("rprof_work() with a NaN, negative or absurd (above 1e18) count in "
                   "\"w\" (ignored): 3 times") != std::string::npos);
  CHECK(r.out.find("begin \"rec\" nested deeper than 256 regions (ignored, its end too): "
                   "745 times") != std::string::npos);
}

TEST_CASE("rank variables outside an MPI job: one process, no missing ranks, no huge world") {
  auto r = run_rprof({"--backend=time", app("endings"), "after"},
                     {"SLURM_PROCID=0", "SLURM_NTASKS=512", "OMPI_COMM_WORLD_SIZE=50000000"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["processes"] == 1);
  CHECK(p["run"]["world_size"] == -1);
  CHECK(p["run"]["missing_ranks"].empty());
  CHECK(fs::file_size(r.dir + "/profile.json") < 100000);
}

TEST_CASE("rank variables under an MPI launcher count, an absurd world size is refused") {
  const std::string bin = fresh_dir("fake-mpirun");
  const std::string mpirun = bin + "/mpirun";
  {
    std::ofstream f(mpirun);
    f << "#!/bin/sh\nexec \"$@\"\n";
  }
  chmod(mpirun.c_str(), 0755);
  auto r = run_rprof({"--backend=time", mpirun, app("endings"), "after"},
                     {"SLURM_PROCID=0", "SLURM_NTASKS=2"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["world_size"] == 2);
  CHECK(p["run"]["missing_ranks"] == nlohmann::json::array({1}));

  r = run_rprof({"--backend=time", mpirun, app("endings"), "after"},
                {"SLURM_PROCID=0", "SLURM_NTASKS=50000000"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("rprof: SLURM_NTASKS=50000000 is above the limit of 1048576 MPI ranks; "
                   "the world size is not recorded") != std::string::npos);
  p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["world_size"] == -1);
  CHECK(p["run"]["missing_ranks"].empty());
}

TEST_CASE("SIGINT sent to the launcher alone is forwarded to the app, rprof dies by it too") {
  const std::string dir = fresh_path("sigint-launcher");
  const std::string tmp = fresh_dir("sigint-launcher-tmp");
  Started s = start_rprof(dir, tmp, "wait");
  REQUIRE(kill(s.rprof, SIGINT) == 0);  // rprof's pid, not the app's
  const int status = s.wait();
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  const auto p = load_json(dir + "/profile.json");
  CHECK(p["run"]["signal"] == SIGINT);
  CHECK(find_region(p, "done")["calls"] == 2);
  CHECK(find_region(p, "open_outer")["complete"] == false);
  CHECK(rprof_dirs(tmp).empty());
}

TEST_CASE("the app killed by a signal: rprof writes the profile, then dies by the same signal") {
  // SIGINT to the app alone, as the terminal's Ctrl-C reaches it: a shell
  // loop around rprof stops only when rprof died by SIGINT.
  const std::string dir = fresh_path("app-sigint");
  const std::string tmp = fresh_dir("app-sigint-tmp");
  Started s = start_rprof(dir, tmp, "wait");
  REQUIRE(kill(s.app, SIGINT) == 0);
  int status = s.wait();
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(fs::exists(dir + "/report.html"));
  auto p = load_json(dir + "/profile.json");
  CHECK(p["run"]["signal"] == SIGINT);
  CHECK(find_region(p, "done")["calls"] == 2);
  CHECK(rprof_dirs(tmp).empty());

  // A fault of the app's: the same signal, and no core file of rprof's.
  const std::string segv_dir = fresh_path("app-segv");
  s = start_rprof(segv_dir, tmp, "segv");
  status = s.wait();
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGSEGV);
  CHECK_FALSE(WCOREDUMP(status));
  p = load_json(segv_dir + "/profile.json");
  CHECK(p["run"]["signal"] == SIGSEGV);
  CHECK(find_region(p, "done")["calls"] == 2);

  // An exit status that looks like a signal's is still an exit.
  const std::string exit_dir = fresh_path("app-exit3");
  s = start_rprof(exit_dir, tmp, "exit3");
  status = s.wait();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(rprof_dirs(tmp).empty());
}

TEST_CASE("any catchable signal sent to rprof ends the app, then rprof, with a complete profile") {
  for (const int sig : {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTERM, SIGHUP, SIGQUIT}) {
    INFO(strsignal(sig));
    const std::string dir = fresh_path("sig-to-rprof");
    const std::string tmp = fresh_dir("sig-to-rprof-tmp");
    Started s = start_rprof(dir, tmp, "wait");
    REQUIRE(kill(s.rprof, sig) == 0);
    const int status = s.wait();
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK_FALSE(WCOREDUMP(status));
    // The app was ended by the signal (not by rprof's death, SIGKILL), and
    // every report file was written.
    const auto p = load_json(dir + "/profile.json");
    CHECK(p["run"]["signal"] == sig);
    CHECK(find_region(p, "done")["calls"] == 2);
    CHECK(find_region(p, "open_outer")["complete"] == false);
    CHECK(fs::exists(dir + "/report.txt"));
    CHECK(fs::exists(dir + "/report.html"));
    // rprof removed its private directories (the shared region tables).
    CHECK(rprof_dirs(tmp).empty());
  }
}

TEST_CASE("hostile files among the shared tables are skipped with a note, never followed") {
  auto r = run_rprof({"--backend=time", app("hostile_tables")});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "ok")["calls"] == 2);
  CHECK(p["run"]["processes"] == 1);
  const std::string notes = notes_of(p);
  INFO(notes);
  CHECK(notes.find("rprof-tables.999999.0: shared region tables: not a regular file") !=
        std::string::npos);  // the FIFO, opened without blocking
  CHECK(notes.find("rprof-tables.999998.0: cannot open") != std::string::npos);  // the link
  CHECK(notes.find("rprof-tables.999997.0: shared region tables: bad magic") !=
        std::string::npos);
  CHECK(notes.find("rprof-tables.999996.0: shared region tables: version 4294967295 is not "
                   "supported") != std::string::npos);
  CHECK(notes.find("root:") == std::string::npos);
}

TEST_CASE("rprof merge of the output directory keeps what the shared tables gave") {
  // flush_exit: an early raw profile (superseded) and the tables of the rest.
  auto r = run_rprof({"--backend=time", app("endings"), "flush_exit"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(r.dir + "/raw"));
  const std::string out = fresh_path("merged-endings");
  const RunResult m = run_command({RPROF_BIN, "merge", "-o", out, r.dir});
  INFO(m.out << m.err);
  REQUIRE(m.status == 0);
  const auto p = load_json(out + "/profile.json");
  CHECK(find_region(p, "step")["calls"] == 4);  // not 3 (the flush) and not 7 (both)
  CHECK(find_region(p, "outer/inner")["calls"] == 2);
  CHECK(find_region(p, "compute")["open_calls"] == 1);
  CHECK(p["run"]["processes"] == 1);
}
