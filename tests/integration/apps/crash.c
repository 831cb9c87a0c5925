/* Completes region "done" twice, opens "open_outer"/"open_inner", then dies
 * the way argv[1] says: segv, abort, sigterm (waits to be killed), exit3. */
#include <rprof/markers.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "segv";
  for (int i = 0; i < 2; ++i) {
    RPROF_BEGIN("done");
    usleep(1000);
    RPROF_END("done");
  }
  RPROF_BEGIN("open_outer");
  RPROF_BEGIN("open_inner");
  fflush(stdout);
  if (strcmp(how, "segv") == 0) {
    /* An unmapped, non-null address: a real SIGSEGV that UBSan's null
     * check (in the sanitizer build) does not intercept first. */
    volatile int* p = (volatile int*)(uintptr_t)16;
    *p = 1;
  } else if (strcmp(how, "abort") == 0) {
    abort();
  } else if (strcmp(how, "wait") == 0) {
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    pause();
  } else if (strcmp(how, "exit3") == 0) {
    exit(3);
  }
  return 0;
}
