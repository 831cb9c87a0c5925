// A region beside a busy loop on the same CPU: its threads are runnable but
// not running for much of their time (the kernel's run delay), which is the
// busy-machine flag, never "waiting" (docs/verdicts.md).
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "integration/harness.h"

using namespace rprof::test;

namespace {

// The first CPU this process may run on, or -1.
int first_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) return c;
  }
  return -1;
}

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// A child spinning on `cpu` until killed.
class BusyLoop {
 public:
  explicit BusyLoop(int cpu) {
    pid_ = fork();
    if (pid_ == 0) {
      if (!pin_to(cpu)) _exit(1);
      for (;;) asm volatile("" ::: "memory");  // spins, never optimised away
    }
  }
  ~BusyLoop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0; }
  BusyLoop(const BusyLoop&) = delete;
  BusyLoop& operator=(const BusyLoop&) = delete;

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("a region beside a busy loop on its CPU: busy-machine, not waiting") {
  if (access("/proc/thread-self/schedstat", R_OK) != 0) {
    skip_test("this kernel has no /proc/thread-self/schedstat: no run delay to read");
  }
  const int cpu = first_allowed_cpu();
  if (cpu < 0) skip_test("sched_getaffinity failed: cannot pin to one CPU");
  if (!pin_to(cpu)) skip_test("sched_setaffinity failed: cannot pin to one CPU");
  // rprof and the sample inherit this affinity: both share `cpu` with the loop.
  const BusyLoop loop(cpu);
  REQUIRE(loop.started());
  // A native, CPU-bound region of some 0.5 s alone (a naive 512^3 product).
  auto r = run_rprof({"--backend=time", sample("matmul"), "512", "32"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto reg = find_region(load_json(r.dir + "/profile.json"), "naive");
  REQUIRE(reg.is_object());
  INFO(reg.dump(2));
  REQUIRE(reg.contains("run_delay_s"));
  REQUIRE(reg.contains("cpu_time_s"));
  const double wall = reg["thread_time_s"].get<double>();
  const double delay = reg["run_delay_s"].get<double>();
  const double cpu_s = reg["cpu_time_s"].get<double>();
  // Two loops sharing one CPU: each gets about half of it.
  CHECK(delay / wall > 0.25);
  CHECK(cpu_s / wall < 0.75);
  // CPU + run delay account for the wall time (a CPU-bound region never sleeps).
  CHECK((cpu_s + delay) / wall > 0.9);
  const auto& v = reg["verdict"];
  CHECK(v["bound"] != "waiting");
  bool busy = false;
  for (const auto& f : v["flags"]) {
    if (f["name"] != "busy-machine") continue;
    busy = true;
    CHECK(f["kind"] == "busy-machine");
    CHECK(f["numbers"]["share"].get<double>() >= f["numbers"]["threshold"].get<double>());
    CHECK(f["numbers"]["run_delay_s"].get<double>() > 0);
  }
  CHECK(busy);
}
