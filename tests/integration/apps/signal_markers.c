/* A SIGALRM handler calls markers ("tick") every 200 us while the main thread
 * loops over outer/inner until 200 ticks have come (bounded by ticks, not
 * iterations, so a slow build cannot livelock in handlers). Prints
 * "loops L ticks N refused M": main-loop iterations, handler runs, and those
 * whose rprof_begin was refused: all of them, whether the signal interrupted
 * a marker call of the main thread or landed between two (the runtime wraps
 * the handler; its rprof_end is refused too). */
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
  struct itimerval every = {{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &every, NULL);
  long loops = 0;
  while (g_ticks < 200) {
    rprof_begin("outer");
    rprof_begin("inner");
    rprof_end("inner");
    rprof_end("outer");
    ++loops;
  }
  struct itimerval off;
  memset(&off, 0, sizeof(off));
  setitimer(ITIMER_REAL, &off, NULL);
  printf("loops %ld ticks %d refused %d\n", loops, (int)g_ticks, (int)g_refused);
  return 0;
}
