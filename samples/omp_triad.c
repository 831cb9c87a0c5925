/* OpenMP STREAM triad a[i] = b[i] + s*c[i] with the marker where most people
 * put it: around the parallel loop, on the thread that starts it.
 *
 * Usage: omp_triad [n] [reps] [mode]   (defaults: n = 1000000, reps = 10,
 * mode = outside)
 * Expect (docs/openmp.md), with 2n FLOPs per rep (FMA = 2 FLOPs):
 *   outside  region "triad": reps calls, 2n*reps FLOPs, every OpenMP thread
 *            in its per-thread rows with its share; none of it in [program].
 *   inside   "triad" as above, and "triad/part" opened by every thread
 *            inside the parallel region (LIKWID style): 2n*reps FLOPs too,
 *            reps calls per thread.
 *   same     as inside with the inner marker also named "triad": counted as
 *            recursion on the inherited region, 2n*reps FLOPs, not twice.
 *   nested   a parallel region of 2 threads, each starting a parallel loop of
 *            2 threads over its half: 2n*reps FLOPs in "triad", 4 threads.
 *   tasks    one thread creates a task per chunk; team threads run them:
 *            2n*reps FLOPs in "triad".
 *   sleep    region "sleep": every thread sleeps 0.2 s per rep (CPU time
 *            near 0, wall time 0.2 s per rep).
 */
#include <omp.h>
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void triad_range(long lo, long hi, double s, double* restrict a,
                        const double* restrict b, const double* restrict c) {
  for (long i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  const char* mode = argc > 3 ? argv[3] : "outside";
  double* a = malloc((size_t)n * sizeof(double));
  double* b = malloc((size_t)n * sizeof(double));
  double* c = malloc((size_t)n * sizeof(double));
  if (n <= 0 || reps <= 0 || a == NULL || b == NULL || c == NULL) {
    fprintf(stderr, "omp_triad: bad size or out of memory (n = %ld, reps = %d)\n", n, reps);
    return 1;
  }
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  for (int r = 0; r < reps; ++r) {
    if (strcmp(mode, "outside") == 0) {
      RPROF_BEGIN("triad");
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
      RPROF_END("triad");
    } else if (strcmp(mode, "inside") == 0 || strcmp(mode, "same") == 0) {
      const int same = strcmp(mode, "same") == 0;
      RPROF_BEGIN("triad");
#pragma omp parallel
      {
        if (same) {
          RPROF_BEGIN("triad");
        } else {
          RPROF_BEGIN("part");
        }
#pragma omp for schedule(static)
        for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        if (same) {
          RPROF_END("triad");
        } else {
          RPROF_END("part");
        }
      }
      RPROF_END("triad");
    } else if (strcmp(mode, "nested") == 0) {
      omp_set_max_active_levels(2);
      RPROF_BEGIN("triad");
#pragma omp parallel num_threads(2)
      {
        const int t = omp_get_thread_num();
        const long lo = t == 0 ? 0 : n / 2, hi = t == 0 ? n / 2 : n;
#pragma omp parallel for num_threads(2) schedule(static)
        for (long i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
      }
      RPROF_END("triad");
    } else if (strcmp(mode, "tasks") == 0) {
      const long chunks = 16;
      RPROF_BEGIN("triad");
#pragma omp parallel
#pragma omp single
      for (long k = 0; k < chunks; ++k) {
#pragma omp task firstprivate(k)
        triad_range(n * k / chunks, n * (k + 1) / chunks, s, a, b, c);
      }
      RPROF_END("triad");
    } else if (strcmp(mode, "sleep") == 0) {
      RPROF_BEGIN("sleep");
#pragma omp parallel
      {
        const struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
      }
      RPROF_END("sleep");
    } else {
      fprintf(stderr, "omp_triad: unknown mode '%s' (outside, inside, same, nested, tasks, sleep)\n",
              mode);
      return 1;
    }
  }
  printf("omp_triad: n=%ld reps=%d mode=%s threads=%d a[n-1]=%g\n", n, reps, mode,
         omp_get_max_threads(), a[n - 1]);
  free(a);
  free(b);
  free(c);
  return 0;
}
