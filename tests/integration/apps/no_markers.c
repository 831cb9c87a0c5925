/* A program not linked with rprof at all. */
#include <stdio.h>
int main(void) {
  volatile double s = 0;
  for (int i = 0; i < 1000000; ++i) s += i;
  printf("no_markers %g\n", s);
  return 0;
}
