/* Calls whose inclusive counts the function view must get right
 * (test_sim_functions), built -O1 -g with rprof (functions_rec).
 *
 * Usage: functions_rec DEPTH N      (DEPTH even)
 *   even(d) / odd(d)   mutual recursion from even(DEPTH) down to d = 1: one
 *                      double add per call, DEPTH/2 calls of each
 *   rec(d)             direct recursion DEPTH deep: one double add per call
 *   work(x, n)         2n FLOPs (a multiply and an add per element), called
 *                      by main and by a second thread; main calls it once
 *                      more in the region "spawn", around the second thread's
 *                      whole life (the thread's FLOPs are its own, not the
 *                      region's: the tool switches threads in the region)
 *   phased(x, n)       one add, then the region "inner" around one add of
 *                      work(x, n)'s result, then one more add: a region that
 *                      opens inside a function
 *   leaf(a, x, y)      a * x + y: 2 FLOPs, called n times by main (once per
 *                      element) and n times by work2 inside "inner": a small
 *                      function the tool counts at its call site (rp_fn.h);
 *                      its only memory access is its return (8 bytes read)
 */
#include <pthread.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

NOINLINE double odd(int d);
NOINLINE double even(int d) { return (d > 1 ? odd(d - 1) : 0.0) + sink; }
NOINLINE double odd(int d) { return (d > 1 ? even(d - 1) : 0.0) + sink; }
NOINLINE double rec(int d) { return (d > 1 ? rec(d - 1) : 0.0) + sink; }

NOINLINE double work(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

NOINLINE double phased(const double* x, int n) {
  sink = sink + 1.0;
  RPROF_BEGIN("inner");
  sink = sink + work(x, n);
  RPROF_END("inner");
  return sink + 1.0;
}

NOINLINE double leaf(double a, double x, double y) { return a * x + y; }

NOINLINE double work2(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = leaf(x[i], 2.0, s);
  return s;
}

struct job {
  const double* x;
  int n;
  double r;
};

static void* thread_main(void* arg) {
  struct job* j = arg;
  j->r = work(j->x, j->n);
  return NULL;
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? atoi(argv[1]) : 64;
  const int n = argc > 2 ? atoi(argv[2]) : 4096;
  double* x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (depth <= 0 || depth % 2 != 0 || n <= 0 || x == NULL) return 2;
  for (int i = 0; i < n; i++) x[i] = (double)(i % 7 + 1);
  struct job j = {x, n, 0};
  pthread_t t;
  RPROF_BEGIN("spawn");
  sink = work(x, n);
  if (pthread_create(&t, NULL, thread_main, &j) != 0) return 3;
  pthread_join(t, NULL);
  RPROF_END("spawn");
  sink = even(depth);
  sink = rec(depth);
  sink = work(x, n);
  sink = phased(x, n);
  double s = 0;
  for (int i = 0; i < n; i++) s = leaf(x[i], 3.0, s);
  sink = s;
  RPROF_BEGIN("inner");
  sink = work2(x, n);
  RPROF_END("inner");
  printf("functions_rec: %.1f %.1f\n", sink, j.r);
  free(x);
  return 0;
}
