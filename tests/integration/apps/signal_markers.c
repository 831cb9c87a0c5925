/* A SIGALRM handler calls markers ("tick") every 50 us while the main thread
 * loops 20000 times over outer/inner. Prints "ticks N refused M": handler
 * runs, and those whose rprof_begin was refused because it interrupted a
 * marker call of the main thread (then its rprof_end is refused too). */
#include <rprof/rprof.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t g_ticks = 0;
static volatile sig_atomic_t g_refused = 0;

static void on_alarm(int sig) {
  (void)sig;
  ++g_ticks;
  if (rprof_begin("tick") != RPROF_OK) ++g_refused;
  rprof_end("tick");
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &every, NULL);
  for (int i = 0; i < 20000; ++i) {
    rprof_begin("outer");
    rprof_begin("inner");
    rprof_end("inner");
    rprof_end("outer");
  }
  struct itimerval off;
  memset(&off, 0, sizeof(off));
  setitimer(ITIMER_REAL, &off, NULL);
  printf("ticks %d refused %d\n", (int)g_ticks, (int)g_refused);
  return 0;
}
