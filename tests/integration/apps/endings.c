/* Completes regions, leaves "compute" open, then ends the way argv[1] says,
 * none of which runs exit handlers (or, for sigterm_pg, every process of a
 * group at once):
 *   _exit, exec_true (execv /bin/true), exec_self (execv itself, which then
 *   completes "after" once and exits), sigpipe, sigusr1, sigkill (uncaught,
 *   raised), sigterm_pg (a forked child completes "child" 4 times, then
 *   SIGTERM to the new process group of both), flush_exit (rprof_flush(),
 *   then one more "step", then _exit), rmdir_out (removes its empty raw
 *   profile directory, RPROF_OUTPUT_DIR, then exits normally: the raw write
 *   fails).
 * Completed: step 3 calls, outer 1, outer/inner 2. */
#include <rprof/markers.h>
#include <rprof/rprof.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "_exit";
  if (strcmp(how, "after") == 0) {
    RPROF_BEGIN("after");
    RPROF_END("after");
    return 0;
  }
  for (int i = 0; i < 3; ++i) {
    RPROF_BEGIN("step");
    RPROF_END("step");
  }
  RPROF_BEGIN("outer");
  for (int i = 0; i < 2; ++i) {
    RPROF_BEGIN("inner");
    RPROF_END("inner");
  }
  RPROF_END("outer");
  if (strcmp(how, "flush_exit") == 0) {
    rprof_flush();
    RPROF_BEGIN("step");
    RPROF_END("step");
  }
  RPROF_BEGIN("compute");
  usleep(20000);
  fflush(stdout);
  if (strcmp(how, "_exit") == 0 || strcmp(how, "flush_exit") == 0) {
    _exit(0);
  } else if (strcmp(how, "rmdir_out") == 0) {
    const char* dir = getenv("RPROF_OUTPUT_DIR");
    if (dir == NULL || rmdir(dir) != 0) return 2;
    exit(0);
  } else if (strcmp(how, "exec_true") == 0) {
    char* args[] = {(char*)"true", NULL};
    execv("/bin/true", args);
  } else if (strcmp(how, "exec_self") == 0) {
    char* args[] = {argv[0], (char*)"after", NULL};
    execv(argv[0], args);
  } else if (strcmp(how, "sigpipe") == 0) {
    raise(SIGPIPE);
  } else if (strcmp(how, "sigusr1") == 0) {
    raise(SIGUSR1);
  } else if (strcmp(how, "sigkill") == 0) {
    raise(SIGKILL);
  } else if (strcmp(how, "sigterm_pg") == 0) {
    setpgid(0, 0);
    int ready[2];
    if (pipe(ready) != 0) return 2;
    const pid_t child = fork();
    if (child == 0) {
      for (int i = 0; i < 4; ++i) {
        RPROF_BEGIN("child");
        RPROF_END("child");
      }
      char c = 1;
      if (write(ready[1], &c, 1) != 1) _exit(2);
      for (;;) pause();
    }
    char c;
    if (read(ready[0], &c, 1) != 1) return 2;
    kill(0, SIGTERM);
    for (;;) pause();
  }
  return 1;
}
