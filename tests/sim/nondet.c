/* A program that behaves differently under Valgrind: region "extra" runs only
 * there, and region "r" runs once more. Lets the tests check that rprof
 * notices when the timed and the counted runs differ.
 */
#include <rprof/markers.h>
#include <stdio.h>
#include <valgrind/valgrind.h>

int main(void) {
  const int calls = RUNNING_ON_VALGRIND ? 3 : 2;
  for (int i = 0; i < calls; ++i) {
    RPROF_BEGIN("r");
    RPROF_END("r");
  }
  if (RUNNING_ON_VALGRIND) {
    RPROF_BEGIN("extra");
    RPROF_END("extra");
  }
  printf("nondet: %d calls\n", calls);
  return 0;
}
