/* The same program built twice: without rprof (program_counts_plain: the
 * markers compile away, librprof is not linked) and with it
 * (program_counts_rprof: markers on, librprof linked). Under the simulator
 * both must have the same [program] counts: rprof's own work (loading,
 * start-up, name interning, a second thread's registration, an explicit
 * flush, the raw writer at exit) is nobody's work.
 *
 * The work: PolyBench's atax (y = A^T (A x)) on an m x n matrix, split over
 * the main thread and a second thread, each in a marked region; one region is
 * named at run time (rprof_begin with a built string: interning).
 *
 * Usage: program_counts [m] [n]   (defaults 120, 130)
 */
#include <pthread.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

struct Job {
  int rows0, rows1, n;
  const double* A;
  const double* x;
  double* y;   /* this job's own partial y */
  double* tmp;
};

static void atax_rows(const struct Job* j) {
  for (int i = j->rows0; i < j->rows1; i++) {
    j->tmp[i] = 0.0;
    for (int k = 0; k < j->n; k++) j->tmp[i] += j->A[i * j->n + k] * j->x[k];
    for (int k = 0; k < j->n; k++) j->y[k] += j->A[i * j->n + k] * j->tmp[i];
  }
}

static void* worker(void* arg) {
  RPROF_BEGIN("atax_worker");
  atax_rows(arg);
  RPROF_END("atax_worker");
  return NULL;
}

int main(int argc, char** argv) {
  const int m = argc > 1 ? atoi(argv[1]) : 120;
  const int n = argc > 2 ? atoi(argv[2]) : 130;
  double* A = malloc(sizeof(double) * (size_t)m * (size_t)n);
  double* x = malloc(sizeof(double) * (size_t)n);
  double* y = calloc(2 * (size_t)n, sizeof(double));
  double* tmp = malloc(sizeof(double) * (size_t)m);
  if (A == NULL || x == NULL || y == NULL || tmp == NULL) return 1;
  RPROF_BEGIN("init");
  for (int k = 0; k < n; k++) x[k] = 1 + k / (double)n;
  for (int i = 0; i < m; i++)
    for (int k = 0; k < n; k++) A[i * n + k] = (double)((i + k) % n) / (5 * m);
  RPROF_END("init");

  struct Job main_job = {0, m / 2, n, A, x, y, tmp};
  struct Job other_job = {m / 2, m, n, A, x, y + n, tmp};
  pthread_t th;
  if (pthread_create(&th, NULL, worker, &other_job) != 0) return 1;
  pthread_join(th, NULL);
  char name[32]; /* built in both variants: only rprof's calls differ */
  snprintf(name, sizeof(name), "atax_main_%d", m);
#if defined(RPROF_ENABLE)
  rprof_begin(name); /* a name known at run time: interned on first use */
#endif
  atax_rows(&main_job);
#if defined(RPROF_ENABLE)
  rprof_end(name);
  rprof_flush(); /* a flush in the middle of the run */
#endif
  for (int k = 0; k < n; k++) y[k] += y[n + k];
  printf("program_counts: m=%d n=%d y[0]=%g\n", m, n, y[0]);
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
