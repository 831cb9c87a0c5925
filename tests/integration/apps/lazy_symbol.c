/* Calls a function no library defines, but only when given an argument:
 * linked with that symbol left unresolved and lazy binding, it runs
 * natively; with LD_BIND_NOW=1 the loader refuses it (exit 127). Completes
 * region "r". */
#include <rprof/markers.h>

extern void rprof_test_never_defined(void);

int main(int argc, char** argv) {
  (void)argv;
  RPROF_BEGIN("r");
  RPROF_END("r");
  if (argc > 1) rprof_test_never_defined();
  return 0;
}
