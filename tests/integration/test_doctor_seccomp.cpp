// rprof doctor under a real seccomp filter that denies perf_event_open
// with EPERM (installed here, in the child, before exec: what a container's
// profile does): doctor must say a seccomp filter is active, that perf does
// not work because of it, and how to fix it. The filter is the test's own;
// nothing about this host's permissions is assumed.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "integration/harness.h"

namespace {

struct Out {
  int status = -1;
  std::string out;
};

// Runs argv with perf_event_open failing EPERM (x86-64 filter; other
// architectures are not this project's hosts).
Out run_denied(const std::vector<std::string>& argv) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
      _exit(90);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(91);
  }
  close(fds[1]);
  Out o;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) o.out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

}  // namespace

TEST_CASE("doctor under a seccomp filter denying perf_event_open: names it, with the fix") {
  const Out j = run_denied({RPROF_BIN, "doctor", "--json"});
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["seccomp"] == 2);
  bool container_fact = false;
  for (const auto& f : doc["access"]) {
    if (f["topic"] != "container") continue;
    container_fact = true;
    CHECK(f["state"].get<std::string>().find("a seccomp filter is active (Seccomp: 2)") !=
          std::string::npos);
    CHECK(f["fix"].get<std::string>().find("--cap-add PERFMON") != std::string::npos);
  }
  CHECK(container_fact);
  for (const auto& b : doc["backends"]) {
    if (b["backend"] != "perf") continue;
    CHECK(b["works"] == false);
    const std::string why = b["why"];
    INFO(why);
    CHECK(why.find("seccomp filter that denies perf_event_open") != std::string::npos);
    CHECK(why.find("(perf_event_open: EPERM)") != std::string::npos);
  }
  // rprof validate under the same filter: the reason, exit 2.
  const Out v = run_denied({RPROF_BIN, "validate", "/bin/true"});
  CHECK(v.status == 2);
}
