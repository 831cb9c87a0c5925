/* Signal handlers that call markers *between* marker calls (issue 16): the
 * runtime wraps the handlers the program installs, refuses their markers and
 * leaves the interrupted region stack as it was. argv[1] chooses:
 *   raise    SIGUSR1 raised at depth 0, inside "outer/work" and between the
 *            works; the handler calls begin, end and rprof_work (all refused)
 *   siginfo  the same with an SA_SIGINFO handler, which checks its siginfo
 *   longjmp  the handler siglongjmps out; markers after it are recorded
 *   deep     the handler siglongjmps out of a deep call chain to main's
 *            level, then a deeper chain's markers run below where the
 *            handler's frame was: recorded (the jump cleared the mark)
 *   inner    the handler jumps within itself (its own sigsetjmp), then calls
 *            markers: still refused
 *   oldact   what sigaction, signal and sigset give back (prints the first
 *            check that fails, or "oldact ok"), then a restored handler runs
 *   altstack SA_ONSTACK handlers on an alternate stack inside main's frame,
 *            one returning, one siglongjmping out (plain, then SS_AUTODISARM)
 *   chain    a SIGTERM handler that refuses a marker, puts back what it
 *            replaced (SIG_DFL: the runtime installs no handler) and
 *            re-raises: the process dies of SIGTERM, its regions kept in
 *            the shared tables
 *   none     no marker call
 * Prints "runs R refused F" (handler runs, refused marker calls) and the
 * mode's own figures. */
#define _GNU_SOURCE /* sigset, SS_AUTODISARM */
#include <rprof/rprof.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t g_runs = 0;
static volatile sig_atomic_t g_refused = 0;
static volatile sig_atomic_t g_info_ok = 0;
static volatile sig_atomic_t g_on_alt = 0;
static sigjmp_buf g_env;
static char* volatile g_alt_lo = NULL;
static size_t g_alt_size = 0;

static void markers_in_handler(void) {
  ++g_runs;
  if (rprof_begin("h") != RPROF_OK) ++g_refused;
  if (rprof_work(1, 1) != RPROF_OK) ++g_refused;
  if (rprof_end("h") != RPROF_OK) ++g_refused;
}

static void h_plain(int sig) {
  (void)sig;
  markers_in_handler();
}

static void h_other(int sig) { (void)sig; }

static void h_info(int sig, siginfo_t* info, void* uc) {
  if (info != NULL && info->si_signo == sig && info->si_code == SI_TKILL &&
      info->si_pid == getpid() && uc != NULL) {
    ++g_info_ok;
  }
  markers_in_handler();
}

static void h_jump(int sig) {
  (void)sig;
  ++g_runs;
  if (rprof_begin("h") != RPROF_OK) ++g_refused;
  siglongjmp(g_env, 1);
}

/* A handler that jumps within itself first: its markers stay refused. */
static void h_inner(int sig) {
  (void)sig;
  sigjmp_buf local;
  if (sigsetjmp(local, 0) == 0) siglongjmp(local, 1);
  markers_in_handler();
}

/* `levels` frames of 4 KiB each, then the marked region at the bottom; with
 * `jump`, SIGUSR1 is raised there (after the region): its handler siglongjmps
 * back to deep_jumps(). */
static int chain(int levels, int jump) {
  volatile char pad[4096];
  pad[0] = (char)levels;
  if (levels > 0) return chain(levels - 1, jump) + pad[0];
  rprof_begin("deep");
  rprof_work(2, 8);
  rprof_end("deep");
  if (jump) raise(SIGUSR1);
  return pad[0];
}

/* Each round: a jump out of a handler that ran 8 frames down, then the same
 * region 16 frames down (below where the handler's frame was), then 4 down. */
static void deep_jumps(int n) {
  for (int i = 0; i < n; ++i) {
    if (sigsetjmp(g_env, 1) == 0) chain(8, 1);
    chain(16, 0);
    chain(4, 0);
  }
}

static void check_alt(void) {
  char here;
  if (&here >= g_alt_lo && &here < g_alt_lo + g_alt_size) ++g_on_alt;
}

static void h_alt(int sig) {
  (void)sig;
  check_alt();
  markers_in_handler();
}

static void h_alt_jump(int sig) {
  check_alt();
  h_jump(sig);
}

static void install(int sig, void (*h)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = h;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, NULL) != 0) {
    perror("sigaction");
    exit(2);
  }
}

/* outer{ work{raise} raise } x n, after one raise at depth 0. */
static void regions_with_raises(int n) {
  raise(SIGUSR1);
  rprof_begin("outer");
  for (int i = 0; i < n; ++i) {
    rprof_begin("work");
    raise(SIGUSR1);
    rprof_work(2, 8);
    rprof_end("work");
    raise(SIGUSR1);
  }
  rprof_end("outer");
}

static void jumps(int n) {
  for (int i = 0; i < n; ++i) {
    rprof_begin("outer");
    rprof_begin("work");
    if (sigsetjmp(g_env, 1) == 0) raise(SIGUSR1);
    rprof_end("work");
    rprof_end("outer");
  }
}

static void after(int n) {
  for (int i = 0; i < n; ++i) {
    rprof_begin("after");
    rprof_end("after");
  }
}

/* The handler the kernel holds (raw system call, not the interposed libc). */
static uintptr_t kernel_handler(int sig) {
  struct {
    uintptr_t handler;
    unsigned long flags;
    uintptr_t restorer;
    uint64_t mask;
  } k;
  memset(&k, 0, sizeof(k));
  if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8) != 0) return 0;
  return k.handler;
}

#define CHECK(cond)                   \
  do {                                \
    if (!(cond)) {                    \
      printf("failed: %s\n", #cond);  \
      return 1;                       \
    }                                 \
  } while (0)

static int oldact(void) {
  struct sigaction sa, old;
  install(SIGUSR1, h_plain, SA_RESTART);
  memset(&old, 0, sizeof(old));
  CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
  CHECK(old.sa_handler == h_plain);
  CHECK((old.sa_flags & SA_SIGINFO) == 0);
  CHECK((old.sa_flags & SA_RESTART) != 0);
  /* Installed through the runtime: the kernel holds its wrapper. */
  CHECK(kernel_handler(SIGUSR1) != (uintptr_t)h_plain);
  CHECK(kernel_handler(SIGUSR1) != (uintptr_t)SIG_DFL);
  struct sigaction saved = old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = h_info;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGUSR1, &sa, &old) == 0);
  CHECK(old.sa_handler == h_plain);
  CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
  CHECK(old.sa_sigaction == h_info);
  CHECK((old.sa_flags & SA_SIGINFO) != 0);
  /* Restore what was read: h_plain runs again. */
  CHECK(sigaction(SIGUSR1, &saved, NULL) == 0);
  CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
  CHECK(old.sa_handler == h_plain);
  CHECK((old.sa_flags & SA_SIGINFO) == 0);
  /* The wrapper itself, read with a raw system call and installed again:
   * the program's handler stays h_plain (not the wrapper calling itself). */
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = (void (*)(int, siginfo_t*, void*))kernel_handler(SIGUSR1);
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(kernel_handler(SIGUSR1) == (uintptr_t)sa.sa_sigaction);
  CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
  CHECK(old.sa_handler == h_plain);
  /* signal(): the previous handler each time, SIG_DFL first and last. */
  CHECK(signal(SIGUSR2, h_plain) == SIG_DFL);
  CHECK(signal(SIGUSR2, h_other) == h_plain);
  CHECK(signal(SIGUSR2, SIG_IGN) == h_other);
  CHECK(signal(SIGUSR2, h_plain) == SIG_IGN);
  CHECK(kernel_handler(SIGUSR2) != (uintptr_t)h_plain);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CHECK(sigset(SIGUSR2, SIG_DFL) == h_plain);
#pragma GCC diagnostic pop
  CHECK(kernel_handler(SIGUSR2) == (uintptr_t)SIG_DFL);
  CHECK(sigaction(SIGUSR2, NULL, &old) == 0);
  CHECK(old.sa_handler == SIG_DFL);
  /* Bad input is libc's error, not ours. */
  CHECK(sigaction(SIGKILL, &saved, NULL) == -1);
  CHECK(signal(0, h_plain) == SIG_ERR);
  printf("oldact ok\n");
  rprof_begin("outer");
  raise(SIGUSR1);  /* h_plain, through the restored action */
  rprof_end("outer");
  return 0;
}

static int altstack(void) {
  char buf[64 * 1024];  /* in main's frame: above the frames main calls */
  const int modes[2] = {0,
#ifdef SS_AUTODISARM
                        SS_AUTODISARM
#else
                        0
#endif
  };
  g_alt_lo = buf;
  g_alt_size = sizeof(buf);
  for (int m = 0; m < 2; ++m) {
    stack_t ss;
    memset(&ss, 0, sizeof(ss));
    ss.ss_sp = buf;
    ss.ss_size = sizeof(buf);
    ss.ss_flags = modes[m];
    if (sigaltstack(&ss, NULL) != 0) {
      perror("sigaltstack");
      return 2;
    }
    install(SIGUSR1, h_alt, SA_ONSTACK);
    regions_with_raises(2);
    install(SIGUSR1, h_alt_jump, SA_ONSTACK);
    for (int k = 0; k < 2; ++k) {
      /* A jump out of an SS_AUTODISARM handler may leave the stack disarmed. */
      sigaltstack(&ss, NULL);
      jumps(1);
    }
    after(2);
  }
  return 0;
}

static void h_chain(int sig);
static struct sigaction g_prev_action;

static void h_chain(int sig) {
  ++g_runs;
  if (rprof_begin("h") != RPROF_OK) ++g_refused;
  /* Put back the handler we replaced and deliver the signal to it. */
  sigaction(sig, &g_prev_action, NULL);
  raise(sig);  /* blocked until this handler returns */
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "raise";
  int rc = 0;
  if (strcmp(mode, "raise") == 0) {
    install(SIGUSR1, h_plain, 0);
    regions_with_raises(10);
  } else if (strcmp(mode, "siginfo") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = h_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    regions_with_raises(10);
  } else if (strcmp(mode, "longjmp") == 0) {
    install(SIGUSR1, h_jump, 0);
    jumps(5);
    after(3);
  } else if (strcmp(mode, "deep") == 0) {
    install(SIGUSR1, h_jump, 0);
    deep_jumps(5);
    after(3);
  } else if (strcmp(mode, "inner") == 0) {
    install(SIGUSR1, h_inner, 0);
    regions_with_raises(3);
  } else if (strcmp(mode, "oldact") == 0) {
    rc = oldact();
  } else if (strcmp(mode, "altstack") == 0) {
    rc = altstack();
  } else if (strcmp(mode, "none") == 0) {
    /* No marker at all (the runtime created the main thread's tables). */
  } else if (strcmp(mode, "chain") == 0) {
    rprof_begin("done");
    rprof_end("done");
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = h_chain;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &g_prev_action);
    printf("previous handler %s\n", g_prev_action.sa_handler != SIG_DFL ? "yes" : "no");
    fflush(stdout);
    rprof_begin("open");
    raise(SIGTERM);
    rprof_end("open");
    printf("not reached\n");
  } else {
    fprintf(stderr, "signal_between: unknown mode '%s'\n", mode);
    return 2;
  }
  printf("runs %d refused %d info_ok %d on_alt %d\n", (int)g_runs, (int)g_refused,
         (int)g_info_ok, (int)g_on_alt);
  return rc;
}
