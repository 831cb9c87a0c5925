/* An unannotated program that execs, for the function view
 * (test_sim_functions): what a process image counted before its exec must
 * not be lost (Valgrind runs no fini for it), and an exec that fails must not
 * count anything twice. Built -O2 -g without rprof.
 *
 * Usage: functions_exec N [PROGRAM ARGS...]
 *   before(x, N)   N FLOPs, scalar double (one add per element)
 *   an exec of a path that does not exist (it fails; the program goes on)
 *   after(x, N)    2N FLOPs, scalar double (a multiply and an add each)
 *   then, with PROGRAM, an exec of it (its own counts add to the run's).
 * Data is initialised with integer arithmetic (conversions are not FLOPs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE double before(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

NOINLINE double after(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096;
  double* x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (n <= 0 || !x) return 2;
  for (int i = 0; i < n; i++) x[i] = (double)(i % 7);
  const double b = before(x, n);
  char* none[] = {"/nonexistent/rprof-functions-exec", NULL};
  execv(none[0], none); /* fails */
  const double a = after(x, n);
  printf("functions_exec: %.1f %.1f\n", b, a);
  fflush(stdout);
  free(x);
  if (argc > 2) {
    execv(argv[2], argv + 2);
    perror("functions_exec: execv");
    return 1;
  }
  return 0;
}
