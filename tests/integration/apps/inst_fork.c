/* Fork while another thread runs the inst backend's cache model (test_inst_sample):
 * a worker streams through an array larger than the pinned LLC, so nearly every
 * line it touches takes the shared LLC's lock, while the main thread forks
 * FORKS times; each child streams through an array of its own (the LLC again)
 * and exits 0. A child that inherits the lock held by the worker at the fork
 * would spin for ever: each child arms alarm(2) first, the parent stops at the
 * first child that did not exit 0 and prints how many did. No markers needed: the whole program is one
 * region. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kWorkerBytes = 8 << 20, kChildBytes = 1 << 20, kForks = 200 };

static atomic_int stop;
static volatile unsigned char sink;

static void* worker(void* arg) {
  volatile unsigned char* a = arg;
  unsigned s = 0;
  while (!atomic_load(&stop)) {
    for (size_t i = 0; i < kWorkerBytes; i += 64) s += a[i];
  }
  sink = (unsigned char)s;
  return NULL;
}

int main(void) {
  unsigned char* big = calloc(kWorkerBytes, 1);
  unsigned char* mine = calloc(kChildBytes, 1);
  if (big == NULL || mine == NULL) return 1;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, big) != 0) return 1;
  int ok = 0;
  for (int k = 0; k < kForks; ++k) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      alarm(2);
      unsigned s = 0;
      for (size_t i = 0; i < kChildBytes; i += 64) s += ((volatile unsigned char*)mine)[i];
      sink = (unsigned char)s;
      _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) break;
    ++ok;
  }
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  printf("children exited 0: %d of %d\n", ok, kForks);
  return ok == kForks ? 0 : 3;
}
