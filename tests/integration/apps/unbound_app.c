/* Calls the defined function of unbound_lib.c and prints its 42. */
#include <stdio.h>
int unbound_used(void);
int main(void) {
  printf("%d\n", unbound_used());
  return 0;
}
