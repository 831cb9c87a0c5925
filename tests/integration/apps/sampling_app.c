/* A program for the cpu-clock sampling tests (tests/integration/
 * test_sampling.cpp): it spends nearly all its CPU time in spin_here and a
 * little in little_one; "thread", "fork" and "exec" add a second thread, a
 * forked child or an exec'ed child that spin in functions of their own.
 * Spinning is measured in CPU time, so a loaded machine changes the run's
 * length, not the number of samples. Built with frame pointers. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* Spins for `seconds` of this thread's CPU time. */
#define SPIN_BODY(seconds)                                 \
  do {                                                     \
    const double end = thread_cpu_s() + (seconds);         \
    double x = 1.0;                                        \
    while (thread_cpu_s() < end) {                         \
      for (int i = 0; i < 200000; ++i) x = x * 1.0000001 + 1e-9; \
    }                                                      \
    sink = x;                                              \
  } while (0)

__attribute__((noinline)) void spin_here(double s) { SPIN_BODY(s); }
__attribute__((noinline)) void little_one(double s) { SPIN_BODY(s); }
__attribute__((noinline)) void spin_in_thread(double s) { SPIN_BODY(s); }
__attribute__((noinline)) void spin_in_fork(double s) { SPIN_BODY(s); }
__attribute__((noinline)) void spin_in_child(double s) { SPIN_BODY(s); }

/* spin_here under a caller of its own, for the inclusive counts. */
__attribute__((noinline)) void run_spin(double s) {
  spin_here(s);
  sink = sink + 1;
}

static void* thread_main(void* arg) {
  (void)arg;
  spin_in_thread(0.3);
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spin";
  if (strcmp(mode, "child") == 0) { /* the exec'ed child */
    spin_in_child(0.3);
    return 0;
  }
  if (strcmp(mode, "thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, NULL) != 0) return 2;
    run_spin(0.1);
    pthread_join(t, NULL);
  } else if (strcmp(mode, "fork") == 0 || strcmp(mode, "exec") == 0) {
    const pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      if (strcmp(mode, "exec") == 0) {
        execl("/proc/self/exe", argv[0], "child", (char*)NULL);
        _exit(127);
      }
      spin_in_fork(0.3);
      _exit(0);
    }
    run_spin(0.1);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return 3;
    }
  } else {
    run_spin(0.4);
    little_one(0.02);
  }
  printf("sampling_app %s done\n", mode);
  return 0;
}
