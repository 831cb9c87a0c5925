/* What a program sees of how it was started, one mode per argv[1]:
 *   sigchld        prints its SIGCHLD disposition (ign/dfl), exits 3
 *   daemon GO      completes "parent", forks a child that leaves the session,
 *                  completes "daemon" twice, waits until file GO exists,
 *                  completes "daemon" once more and exits; the parent exits
 *                  at once (0)
 *   fd1            completes "r", writes "hello" on fd 1: exits 0 when that
 *                  fails with EBADF (fd 1 closed), 1 when it is written
 *   sleeper DIR    completes "before" (2000 FLOPs), writes its pid to
 *                  DIR/ready-<RPROF_BACKEND>, then waits in region "wait"
 *                  for up to 60 s (under RPROF_BACKEND=time only when
 *                  DIR/hold-time exists)
 *   threads N      runs N threads at once (a barrier), exits 0
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <rprof/markers.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int exists(const char* path) { return access(path, F_OK) == 0; }

static pthread_barrier_t barrier;
static void* at_barrier(void* arg) {
  (void)arg;
  pthread_barrier_wait(&barrier);
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "sigchld") == 0) {
    struct sigaction sa;
    sigaction(SIGCHLD, NULL, &sa);
    printf("sigchld=%s\n", sa.sa_handler == SIG_IGN ? "ign" : "dfl");
    return 3;
  }
  if (strcmp(mode, "daemon") == 0 && argc > 2) {
    RPROF_BEGIN("parent");
    RPROF_END("parent");
    int ready[2];
    if (pipe(ready) != 0) return 2;
    if (fork() == 0) {
      /* A daemon: its own session, the standard fds on /dev/null. */
      setsid();
      const int null = open("/dev/null", O_RDWR);
      for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
      for (int i = 0; i < 2; ++i) {
        RPROF_BEGIN("daemon");
        RPROF_END("daemon");
      }
      close(ready[1]); /* the parent may go: both calls are done */
      for (int i = 0; i < 6000 && !exists(argv[2]); ++i) usleep(10000);
      RPROF_BEGIN("daemon");
      RPROF_END("daemon");
      return 0;
    }
    close(ready[1]);
    char c;
    while (read(ready[0], &c, 1) > 0) {
    }
    return 0;
  }
  if (strcmp(mode, "fd1") == 0) {
    RPROF_BEGIN("r");
    RPROF_END("r");
    const ssize_t n = write(1, "hello\n", 6);
    return n < 0 && errno == EBADF ? 0 : 1;
  }
  if (strcmp(mode, "sleeper") == 0 && argc > 2) {
    volatile double acc = 0;
    RPROF_BEGIN("before");
    for (int k = 0; k < 1000; ++k) acc = acc + k * 1e-3;
    RPROF_END("before");
    const char* backend = getenv("RPROF_BACKEND");
    char path[4096];
    snprintf(path, sizeof path, "%s/ready-%s", argv[2], backend ? backend : "native");
    FILE* f = fopen(path, "w");
    if (f) {
      fprintf(f, "%d\n", (int)getpid());
      fclose(f);
    }
    /* The timed run waits only when DIR/hold-time exists. */
    char hold[4096];
    snprintf(hold, sizeof hold, "%s/hold-time", argv[2]);
    const int wait = backend == NULL || strcmp(backend, "time") != 0 || exists(hold);
    RPROF_BEGIN("wait");
    for (int i = 0; wait && i < 600; ++i) usleep(100000);
    RPROF_END("wait");
    return 0;
  }
  if (strcmp(mode, "threads") == 0 && argc > 2) {
    const int n = atoi(argv[2]);
    pthread_t* t = calloc((size_t)n, sizeof *t);
    pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; ++i) pthread_create(&t[i], NULL, at_barrier, NULL);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
    free(t);
    return 0;
  }
  fprintf(stderr, "launch_probe: unknown mode '%s'\n", mode);
  return 2;
}
