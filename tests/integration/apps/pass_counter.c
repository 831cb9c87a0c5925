/* pass_counter FILE: counts its own runs in FILE (0 when absent) and runs
 * region "r" once in its first run, twice in its second, and so on: a
 * program that is deterministic within a run but differs between runs, to
 * check the multi-pass determinism note. Region "same" runs once every time. */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pass_counter FILE\n");
    return 2;
  }
  int runs = 0;
  FILE* f = fopen(argv[1], "r");
  if (f != NULL) {
    if (fscanf(f, "%d", &runs) != 1) runs = 0;
    fclose(f);
  }
  f = fopen(argv[1], "w");
  if (f == NULL) {
    perror("pass_counter");
    return 1;
  }
  fprintf(f, "%d\n", runs + 1);
  fclose(f);
  RPROF_BEGIN("same");
  RPROF_END("same");
  for (int i = 0; i <= runs; ++i) {
    RPROF_BEGIN("r");
    RPROF_END("r");
  }
  return 0;
}
