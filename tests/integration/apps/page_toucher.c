/* page_toucher [threads] [pages]: every thread (the main thread is one) runs
 * region "touch", writing one byte into each of `pages` fresh pages of a new
 * private mapping with transparent huge pages off, so each page costs exactly
 * one page fault; then, outside any region, it touches 2 x pages more; then
 * region "quiet" computes without touching new memory. Before starting the
 * threads the main thread touches 4 x pages outside any region too.
 * Expect, per thread: page faults in "touch" >= pages (and far below the
 * 2 x pages touched just outside it), about 0 in "quiet". */
#define _GNU_SOURCE
#include <pthread.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static long g_pages = 256;
static pthread_barrier_t g_start;

static char* fresh(long pages) {
  const size_t len = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
  char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("page_toucher: mmap");
    exit(1);
  }
  madvise(p, len, MADV_NOHUGEPAGE);
  return p;
}

static void touch(char* p, long pages) {
  const long step = sysconf(_SC_PAGESIZE);
  for (long i = 0; i < pages; ++i) ((volatile char*)p)[i * step] = 1;
}

static void* worker(void* arg) {
  (void)arg;
  char* in_region = fresh(g_pages);
  char* outside = fresh(2 * g_pages);
  pthread_barrier_wait(&g_start);
  RPROF_BEGIN("touch");
  touch(in_region, g_pages);
  RPROF_END("touch");
  touch(outside, 2 * g_pages);
  RPROF_BEGIN("quiet");
  volatile double s = 0;
  for (int i = 0; i < 1000000; ++i) s = s + 1e-9 * i;
  RPROF_END("quiet");
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 3;
  g_pages = argc > 2 ? atol(argv[2]) : 256;
  if (threads < 1 || threads > 64 || g_pages < 1) {
    fprintf(stderr, "usage: page_toucher [threads 1-64] [pages >= 1]\n");
    return 2;
  }
  touch(fresh(4 * g_pages), 4 * g_pages);
  pthread_barrier_init(&g_start, NULL, (unsigned)threads);
  pthread_t tid[64];
  for (int t = 1; t < threads; ++t) pthread_create(&tid[t], NULL, worker, NULL);
  worker(NULL);
  for (int t = 1; t < threads; ++t) pthread_join(tid[t], NULL);
  printf("page_toucher: %d threads x %ld pages\n", threads, g_pages);
  return 0;
}
