/* Built with AddressSanitizer, which cannot run under Valgrind: --backend=sim
 * must refuse it and --backend=auto must fall back to timing. */
#include <rprof/markers.h>
#include <stdio.h>

int main(void) {
  RPROF_BEGIN("r");
  printf("sanitized: ok\n");
  RPROF_END("r");
  return 0;
}
