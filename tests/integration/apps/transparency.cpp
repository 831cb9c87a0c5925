// Transparency probes: each mode (argv[1]) exercises one idiom of signals,
// processes or stacks and prints what it saw. Built twice: natively
// (PROBE_NATIVE: no rprof at all) and linked with librprof; test_transparency
// runs both, and the linked one under `rprof`, and compares stdout and the
// exit status or terminating signal. Every mode ends in well under a second
// natively; a child that hangs is killed by its parent after kChildLimitS and
// counted, so a hang fails instead of hanging the test.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

#ifdef PROBE_NATIVE
#define BEGIN(name) ((void)(name))
#define END(name) ((void)(name))
#else
#include <rprof/rprof.h>
#define BEGIN(name) ((void)rprof_begin(name))
#define END(name) ((void)rprof_end(name))
#endif

extern char** environ;

namespace {

constexpr int kChildLimitS = 10;
volatile sig_atomic_t g_hits = 0;
std::atomic<bool> g_stop{false};

void on_signal(int) { g_hits = g_hits + 1; }

// Waits for `pid` at most kChildLimitS; a child still running then is killed
// and reported as hung (-2). Otherwise its exit code, or 128 + signal.
int wait_bounded(pid_t pid) {
  for (int i = 0; i < kChildLimitS * 1000; ++i) {
    int st = 0;
    const pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (r < 0 && errno != EINTR) return -1;
    usleep(1000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -2;
}

// Region churn on another thread: new names (interning, new table records)
// and nested regions, while the main thread forks.
void* churn(void* arg) {
  const int id = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  char outer[64], inner[64];
  for (unsigned i = 0; !g_stop.load(); ++i) {
    snprintf(outer, sizeof(outer), "churn%d_%u", id, (i / 64) % 16);
    snprintf(inner, sizeof(inner), "churn%d_%u", id, i % 4096);  // new names: interning
    BEGIN(outer);
    BEGIN(inner);
    END(inner);
    END(outer);
    usleep(100);
  }
  return nullptr;
}

// 240 children forked while two threads and the parent create regions; half
// only _exit(0), half execl /bin/true.
int fork_storm() {
  pthread_t th[2];
  for (intptr_t i = 0; i < 2; ++i) pthread_create(&th[i], nullptr, churn, reinterpret_cast<void*>(i));
  int crashed = 0, hung = 0, failed = 0;
  char name[64];
  for (int i = 0; i < 240; ++i) {
    snprintf(name, sizeof(name), "parent_%d", i % 300);
    BEGIN(name);
    const pid_t pid = fork();
    if (pid == 0) {
      BEGIN("child");
      END("child");
      if (i % 2) execl("/bin/true", "true", static_cast<char*>(nullptr));
      _exit(i % 2 ? 127 : 0);
    }
    END(name);
    snprintf(name, sizeof(name), "after_%d", i);  // a new node right after the fork
    BEGIN(name);
    END(name);
    const int st = wait_bounded(pid);
    if (st == -2) ++hung;
    else if (st > 128) ++crashed;
    else if (st != 0) ++failed;
  }
  g_stop = true;
  for (auto& t : th) pthread_join(t, nullptr);
  printf("fork_storm children 240 crashed %d hung %d failed %d\n", crashed, hung, failed);
  return 0;
}

int vfork_case() {
  signal(SIGUSR1, on_signal);
  const pid_t pid = vfork();
  if (pid == 0) {
    signal(SIGUSR1, SIG_DFL);
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    _exit(127);
  }
  const int st = wait_bounded(pid);
  raise(SIGUSR1);
  printf("vfork child %d handler ran %d\n", st, static_cast<int>(g_hits));
  return 0;
}

int spawn_case() {
  pid_t pid = 0;
  char sh[] = "sh", c[] = "-c", cmd[] = "exit 3";
  char* argv[] = {sh, c, cmd, nullptr};
  const int rc = posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv, environ);
  printf("posix_spawn %d child %d\n", rc, rc == 0 ? wait_bounded(pid) : -1);
  fflush(stdout);
  const int s = system("exit 5");
  printf("system %d\n", WIFEXITED(s) ? WEXITSTATUS(s) : -1);
  return 0;
}

// daemon() style: the child forks a grandchild and exits; the grandchild
// reports through a pipe.
int daemon_case() {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setsid();
    if (fork() == 0) {
      BEGIN("grandchild");
      END("grandchild");
      if (write(fds[1], "d", 1) != 1) _exit(1);
      _exit(0);
    }
    _exit(0);
  }
  close(fds[1]);
  const int st = wait_bounded(pid);
  char c = 0;
  const ssize_t n = read(fds[0], &c, 1);
  printf("daemon child %d grandchild said %c (%zd)\n", st, n == 1 ? c : '?', n);
  return 0;
}

void print_action(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sigaction(sig, nullptr, &sa);
  const char* kind = sa.sa_handler == SIG_DFL ? "DFL" : sa.sa_handler == SIG_IGN ? "IGN" : "handler";
  printf("%d %s flags %#x mask %d\n", sig, kind, static_cast<unsigned>(sa.sa_flags),
         sigismember(&sa.sa_mask, SIGUSR2));
}

// What every standard signal reads back, the alternate stack, and handlers
// set with each flag read back as set.
int readback() {
  for (int sig = 1; sig < 32; ++sig) print_action(sig);
  stack_t ss;
  memset(&ss, 0, sizeof(ss));
  sigaltstack(nullptr, &ss);
  printf("altstack flags %d size %zu\n", ss.ss_flags, ss.ss_size);
  const unsigned flags[] = {0, SA_RESTART, SA_RESETHAND, SA_NODEFER, SA_ONSTACK, SA_SIGINFO,
                            SA_RESTART | SA_NODEFER | SA_RESETHAND};
  for (unsigned f : flags) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sa.sa_flags = static_cast<int>(f);
    sigaction(SIGUSR1, &sa, nullptr);
    print_action(SIGUSR1);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_NOCLDSTOP | SA_NOCLDWAIT;
  sigaction(SIGCHLD, &sa, nullptr);
  print_action(SIGCHLD);
  // SA_RESETHAND: SIG_DFL once delivered.
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGUSR1, &sa, nullptr);
  raise(SIGUSR1);
  print_action(SIGUSR1);
  signal(SIGUSR2, on_signal);
  print_action(SIGUSR2);
  signal(SIGUSR2, SIG_IGN);
  print_action(SIGUSR2);
  printf("hits %d\n", static_cast<int>(g_hits));
  return 0;
}

// The Ctrl-C idiom, then SIGINT: dies of SIGINT.
int sigint_idiom() {
  void (*old)(int) = signal(SIGINT, SIG_IGN);
  signal(SIGINT, old);
  printf("restored %s\n", old == SIG_DFL ? "DFL" : "other");
  fflush(stdout);
  raise(SIGINT);
  printf("survived SIGINT\n");
  return 0;
}

// A crash reporter that chains to the previous handler: dies of SIGSEGV once.
struct sigaction g_prev_segv;
volatile sig_atomic_t g_reports = 0;
void reporter(int sig) {
  g_reports = g_reports + 1;
  if (g_reports > 3) _exit(99);  // looping
  static const char msg[] = "reporter\n";
  if (write(1, msg, sizeof(msg) - 1) < 0) _exit(98);
  sigaction(sig, &g_prev_segv, nullptr);  // chain: the previous one next time
}
int chain_segv() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = reporter;
  sigaction(SIGSEGV, &sa, &g_prev_segv);
  fflush(stdout);
  raise(SIGSEGV);  // the reporter runs, the previous action is back
  printf("after report\n");
  fflush(stdout);
  raise(SIGSEGV);
  printf("survived SIGSEGV\n");
  return 0;
}

// Embedded-interpreter style: a SIGINT handler only over SIG_DFL.
int interp() {
  struct sigaction cur;
  sigaction(SIGINT, nullptr, &cur);
  if (cur.sa_handler == SIG_DFL) signal(SIGINT, on_signal);
  raise(SIGINT);
  printf("KeyboardInterrupt %s\n", g_hits == 1 ? "caught" : "missed");
  return 0;
}

// A read on an empty pipe interrupted by a 50 ms timer.
ssize_t timed_read(int fd) {
  struct itimerval it;
  memset(&it, 0, sizeof(it));
  it.it_value.tv_usec = 50000;
  setitimer(ITIMER_REAL, &it, nullptr);
  char c;
  errno = 0;
  return read(fd, &c, 1);
}

int restart_fd = -1;
void tick_then_write(int) {
  g_hits = g_hits + 1;
  if (g_hits == 2 && write(restart_fd, "x", 1) != 1) _exit(97);
  if (g_hits == 1) {
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_usec = 20000;
    setitimer(ITIMER_REAL, &it, nullptr);
  }
}

// siginterrupt is the idiom under test, deprecated or not.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int eintr() {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  restart_fd = fds[1];
  // signal() restarts (BSD semantics): the read waits for the byte the
  // handler writes on its second run.
  signal(SIGALRM, tick_then_write);
  ssize_t n = timed_read(fds[0]);
  printf("bsd signal: read %zd after %d ticks\n", n, static_cast<int>(g_hits));
  // siginterrupt after signal(): EINTR.
  signal(SIGALRM, on_signal);
  siginterrupt(SIGALRM, 1);
  n = timed_read(fds[0]);
  printf("siginterrupt after: read %zd %s\n", n, errno == EINTR ? "EINTR" : "no EINTR");
  // siginterrupt before signal(): glibc's signal() honours it too.
  signal(SIGALRM, SIG_DFL);
  siginterrupt(SIGALRM, 1);
  signal(SIGALRM, on_signal);
  n = timed_read(fds[0]);
  printf("siginterrupt before: read %zd %s\n", n, errno == EINTR ? "EINTR" : "no EINTR");
  struct sigaction sa;
  sigaction(SIGALRM, nullptr, &sa);
  printf("SA_RESTART %d\n", (sa.sa_flags & SA_RESTART) != 0);
  return 0;
}

int waits() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  raise(SIGUSR1);
  int sig = 0;
  sigwait(&set, &sig);
  printf("sigwait %d\n", sig);
  const int fd = signalfd(-1, &set, 0);
  raise(SIGUSR2);
  struct signalfd_siginfo si;
  const ssize_t n = read(fd, &si, sizeof(si));
  printf("signalfd %zd %u\n", n == static_cast<ssize_t>(sizeof(si)) ? 1 : n, si.ssi_signo);
  // An interval timer and a POSIX timer with a handler: five ticks each.
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  signal(SIGALRM, on_signal);
  struct itimerval it;
  memset(&it, 0, sizeof(it));
  it.it_value.tv_usec = it.it_interval.tv_usec = 5000;
  sigset_t none;
  sigemptyset(&none);
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  sigaddset(&alrm, SIGRTMIN);
  sigprocmask(SIG_BLOCK, &alrm, nullptr);
  setitimer(ITIMER_REAL, &it, nullptr);
  while (g_hits < 5) sigsuspend(&none);
  memset(&it, 0, sizeof(it));
  setitimer(ITIMER_REAL, &it, nullptr);
  printf("itimer ticks %d\n", static_cast<int>(g_hits));
  g_hits = 0;
  signal(SIGRTMIN, on_signal);
  struct sigevent ev;
  memset(&ev, 0, sizeof(ev));
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGRTMIN;
  timer_t timer;
  timer_create(CLOCK_MONOTONIC, &ev, &timer);
  struct itimerspec ts;
  memset(&ts, 0, sizeof(ts));
  ts.it_value.tv_nsec = ts.it_interval.tv_nsec = 5000000;
  timer_settime(timer, 0, &ts, nullptr);
  while (g_hits < 5) sigsuspend(&none);
  timer_delete(timer);
  printf("posix timer ticks %d\n", static_cast<int>(g_hits));
  return 0;
}

// A handler that uses 72 KiB of stack, SA_ONSTACK: first without an
// alternate stack of the program's own (it runs on the thread's stack), then
// on a 256 KiB one.
void big_handler(int) {
  volatile char buf[72 * 1024];
  for (size_t i = 0; i < sizeof(buf); i += 512) buf[i] = static_cast<char>(i);
  g_hits = g_hits + buf[512];
}
int altstack72() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = big_handler;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR1, &sa, nullptr);
  raise(SIGUSR1);
  static char stack[256 * 1024];
  stack_t ss;
  memset(&ss, 0, sizeof(ss));
  ss.ss_sp = stack;
  ss.ss_size = sizeof(stack);
  sigaltstack(&ss, nullptr);
  raise(SIGUSR1);
  printf("big handler ran, sum %d\n", static_cast<int>(g_hits));
  return 0;
}

// Markers 16 frames below main, each frame with 1 KiB of its own: deeper
// than any handler entered from main's level.
int deep(int levels, const char* name) {
  volatile char pad[1024];
  pad[0] = static_cast<char>(levels);
  if (levels > 0) return deep(levels - 1, name) + pad[0];
  BEGIN(name);
  END(name);
  return 0;
}

void throwing_handler(int) { throw std::runtime_error("out of the handler"); }
// raise() is declared nothrow; a call through a plain pointer lets the
// exception from the handler reach the caller's catch.
int (*volatile g_raise)(int) = raise;

ucontext_t g_ctx;
volatile int g_switched = 0;
void switching_handler(int) {
  g_switched = g_switched + 1;
  setcontext(&g_ctx);
}

// Leaving a handler by an exception, or by setcontext, 200 times each; the
// markers after each are deeper than the handler's entry and must count.
int leave_handler() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = throwing_handler;
  sa.sa_flags = SA_NODEFER;  // the signal is not left blocked by the throw
  sigaction(SIGUSR1, &sa, nullptr);
  int caught = 0;
  for (int i = 0; i < 200; ++i) {
    try {
      g_raise(SIGUSR1);
    } catch (const std::runtime_error&) {
      ++caught;
    }
    deep(16, "after_throw");
  }
  sa.sa_handler = switching_handler;
  sa.sa_flags = 0;
  sigaction(SIGUSR2, &sa, nullptr);
  for (int i = 0; i < 200; ++i) {
    volatile int round = g_switched;
    getcontext(&g_ctx);  // setcontext resumes here, SIGUSR2 unblocked again
    if (g_switched == round) raise(SIGUSR2);
    deep(16, "after_setcontext");
  }
  printf("caught %d switched %d\n", caught, static_cast<int>(g_switched));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  struct Mode {
    const char* name;
    int (*run)();
  };
  const Mode modes[] = {{"fork_storm", fork_storm}, {"vfork", vfork_case},
                        {"spawn", spawn_case},      {"daemon", daemon_case},
                        {"readback", readback},     {"sigint_idiom", sigint_idiom},
                        {"chain_segv", chain_segv}, {"interp", interp},
                        {"eintr", eintr},           {"waits", waits},
                        {"altstack72", altstack72}, {"leave_handler", leave_handler}};
  for (const Mode& m : modes) {
    if (strcmp(mode, m.name) == 0) {
      const int rc = m.run();
      fflush(stdout);
      return rc;
    }
  }
  fprintf(stderr, "transparency: unknown mode '%s'\n", mode);
  return 2;
}
