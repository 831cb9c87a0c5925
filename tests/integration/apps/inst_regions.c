/* rprof's inst backend: functions with loops and loop nests as regions
 * (tests/integration/test_inst.cpp). Each loop the test looks for carries a
 * tag comment on its line; the test reads the line numbers from this file.
 * FLOPs by construction (FMA = 2): scale() n per call, nest() 2*n*m per call,
 * leaf() 1 per call (no loop: its FLOPs are its caller loop's), wave() n
 * calls of cos (libm: not counted, named in a note).
 *
 * Usage: inst_regions N REPS MODE
 *   MODE plain: scale() REPS times, nest() once, wave() once
 *   MODE marked: scale() once outside any marker, then REPS times inside
 *                the marked region "phase"
 *   MODE jump: jumper() leaves its loop by longjmp REPS times, each followed
 *              by a call of scale()
 *   MODE hot: scale(2, ...) REPS times (a region too brief to time) */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rprof/markers.h>

static double a[4096], b[4096], c[64][64];
static jmp_buf env;

__attribute__((noinline)) void scale(int n, double s) {
  for (int i = 0; i < n; ++i) a[i] = a[i] * s; /* LOOP scale */
}

__attribute__((noinline)) double leaf(double x) { return x * 0.5; }

__attribute__((noinline)) void nest(int n, int m, double s) {
  for (int i = 0; i < n; ++i) /* LOOP nest */
    for (int j = 0; j < m; ++j) c[i][j] = c[i][j] + s * b[j];
}

__attribute__((noinline)) double wave(int n) {
  double t = 0;
  for (int i = 0; i < n; ++i) t = t + cos(b[i]); /* LOOP wave */
  return t;
}

__attribute__((noinline)) void jumper(int n) {
  for (int i = 0; i < n; ++i) { /* LOOP jumper */
    a[i] = a[i] + 1.0;
    if (i == n / 2) longjmp(env, 1);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const int n = atoi(argv[1]), reps = atoi(argv[2]);
  if (n < 2 || n > 4096 || reps < 1) return 2;
  for (int i = 0; i < 4096; ++i) a[i] = b[i] = 1.0 + i * 1e-3; /* LOOP init */
  double t = 0;
  if (strcmp(argv[3], "plain") == 0) {
    for (int r = 0; r < reps; ++r) { /* LOOP reps */
      scale(n, 1.0001);
      t = t + leaf(a[r & 4095]);
    }
    nest(64, 64, 0.5);
    t = t + wave(n);
  } else if (strcmp(argv[3], "marked") == 0) {
    scale(n, 1.0001);
    RPROF_BEGIN("phase");
    for (int r = 0; r < reps; ++r) scale(n, 1.0001); /* LOOP phase */
    RPROF_END("phase");
  } else if (strcmp(argv[3], "hot") == 0) {
    for (int r = 0; r < reps; ++r) scale(2, 1.0001); /* LOOP hot */
  } else {
    for (volatile int r = 0; r < reps; ++r) {
      if (setjmp(env) == 0) jumper(n);
      scale(n, 1.0001);
    }
  }
  printf("%g %g\n", t, a[n / 2]);
  return 0;
}
