/* The runtime's memory over a process's life, the way argv[1] says:
 *   threads N [exit|_exit|forks F]: N short-lived threads in sequence, each
 *     completes "worker" and "worker/inner" once; then ends normally (exit),
 *     by _exit(0), or forks F children that each complete "child" once and
 *     _exit(0) (the parent waits for them, then exits). Prints the process's
 *     peak and current RSS in kB ("rss_kb <hwm> <now>") before it ends, and
 *     the forks' wall time ("forks_ms <ms>", for bench/lifetime_bench.sh).
 *   paths O I: O x I distinct region paths ("o<i>/i<j>"), each called once,
 *     correctly nested; then exit.
 *   work N: "work" declares 1e18 FLOPs and 1e18 bytes N times.
 *   names: a 4097-byte name, two 1100-byte names that differ at byte 1050,
 *     and "[program]", each begun and ended once.
 *   forknames N F: inside "top", N regions "name<i>", each once; then, with
 *     "top" still open, F children in turn, child c completing
 *     "name<c*97 mod N>/child_only" under the "top" it inherited, then
 *     ending by exit(0) with "top" open (c mod 3 = 0), by _exit(0) after
 *     ending "top" (1), or by SIGKILL (2); after each fork the parent
 *     completes "after<c>" (ids the child gives to its own names). The
 *     parent waits for each, then ends "top" and exits.
 *   limit KB: sets RLIMIT_AS to what the process maps now plus KB, mallocs
 *     half of that margin, completes "kept" once and 20,201 paths under "p"
 *     ("p/a<i>/b<j>", 200 x 100), then _exit(0). */
#define _GNU_SOURCE
#include <pthread.h>
#include <rprof/rprof.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void* worker(void* arg) {
  (void)arg;
  rprof_begin("worker");
  rprof_begin("inner");
  rprof_end("inner");
  rprof_end("worker");
  return NULL;
}

static long status_kb(const char* key) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, key, strlen(key)) == 0) kb = atol(line + strlen(key));
  }
  if (f != NULL) fclose(f);
  return kb;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "threads";
  if (strcmp(how, "threads") == 0) {
    const int n = argc > 2 ? atoi(argv[2]) : 10000;
    for (int i = 0; i < n; ++i) {
      pthread_t t;
      if (pthread_create(&t, NULL, worker, NULL) != 0) return 2;
      pthread_join(t, NULL);
    }
    printf("rss_kb %ld %ld\n", status_kb("VmHWM:"), status_kb("VmRSS:"));
    fflush(stdout);
    const char* end = argc > 3 ? argv[3] : "exit";
    if (strcmp(end, "_exit") == 0) _exit(0);
    if (strcmp(end, "forks") == 0) {
      const int forks = argc > 4 ? atoi(argv[4]) : 20;
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (int i = 0; i < forks; ++i) {
        const pid_t pid = fork();
        if (pid == 0) {
          rprof_begin("child");
          rprof_end("child");
          _exit(0);
        }
        if (pid < 0) return 3;
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 4;
      }
      clock_gettime(CLOCK_MONOTONIC, &t1);
      /* For bench/lifetime_bench.sh; the tests do not read it. */
      printf("forks_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
    }
    return 0;
  }
  if (strcmp(how, "paths") == 0) {
    const int outer = argc > 2 ? atoi(argv[2]) : 300, inner = argc > 3 ? atoi(argv[3]) : 1000;
    char o[32], in[32];
    for (int i = 0; i < outer; ++i) {
      snprintf(o, sizeof(o), "o%d", i);
      rprof_begin(o);
      for (int j = 0; j < inner; ++j) {
        snprintf(in, sizeof(in), "i%d", j);
        rprof_begin(in);
        rprof_end(in);
      }
      rprof_end(o);
    }
    return 0;
  }
  if (strcmp(how, "work") == 0) {
    const int n = argc > 2 ? atoi(argv[2]) : 20;
    rprof_begin("work");
    for (int i = 0; i < n; ++i) rprof_work(1e18, 1e18);
    rprof_end("work");
    return 0;
  }
  if (strcmp(how, "names") == 0) {
    static char huge[4098], a[1101], b[1101];
    memset(huge, 'h', 4097);
    memset(a, 'n', 1100);
    memset(b, 'n', 1100);
    b[1050] = 'x';
    const char* names[] = {huge, a, b, "[program]"};
    for (int i = 0; i < 4; ++i) {
      rprof_begin(names[i]);
      rprof_end(names[i]);
    }
    return 0;
  }
  if (strcmp(how, "forknames") == 0) {
    const int n = argc > 2 ? atoi(argv[2]) : 3000, forks = argc > 3 ? atoi(argv[3]) : 30;
    char name[32];
    rprof_begin("top");
    for (int i = 0; i < n; ++i) {
      snprintf(name, sizeof(name), "name%d", i);
      rprof_begin(name);
      rprof_end(name);
    }
    for (int c = 0; c < forks; ++c) {
      const pid_t pid = fork();
      if (pid == 0) {
        snprintf(name, sizeof(name), "name%d", (int)((long)c * 97 % n));
        rprof_begin(name);
        rprof_begin("child_only");
        rprof_end("child_only");
        rprof_end(name);
        if (c % 3 == 0) exit(0);
        if (c % 3 == 2) raise(SIGKILL);
        rprof_end("top");
        _exit(0);
      }
      if (pid < 0) return 3;
      snprintf(name, sizeof(name), "after%d", c);
      rprof_begin(name);
      rprof_end(name);
      int st = 0;
      waitpid(pid, &st, 0);
      if (c % 3 == 2 ? !WIFSIGNALED(st) : !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 4;
    }
    rprof_end("top");
    return 0;
  }
  if (strcmp(how, "limit") == 0) {
    const long margin_kb = argc > 2 ? atol(argv[2]) : 65536;
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)(status_kb("VmSize:") + margin_kb) * 1024;
    if (setrlimit(RLIMIT_AS, &rl) != 0) return 5;
    void* p = malloc((size_t)margin_kb * 512);
    if (p == NULL) return 6;
    rprof_begin("kept");
    rprof_end("kept");
    char a[32], b[32];
    rprof_begin("p");
    for (int i = 0; i < 200; ++i) {
      snprintf(a, sizeof(a), "a%d", i);
      rprof_begin(a);
      for (int j = 0; j < 100; ++j) {
        snprintf(b, sizeof(b), "b%d", j);
        rprof_begin(b);
        rprof_end(b);
      }
      rprof_end(a);
    }
    rprof_end("p");
    free(p);
    _exit(0);
  }
  return 1;
}
