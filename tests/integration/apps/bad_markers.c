/* Marker misuse, each kind once (or as asked), around one well-formed region
 * "good" that must stay correct. Used by test_bad_input. */
#include <rprof/rprof.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char long_name[5000];
  memset(long_name, 'x', sizeof(long_name) - 1);
  long_name[sizeof(long_name) - 1] = '\0';

  rprof_begin("good");
  rprof_begin("a");
  rprof_end("b");        /* mismatched: "a" is open -> recorded, ignored */
  rprof_end("a");
  rprof_end("good");

  rprof_end("never_begun");  /* end without begin */
  rprof_begin("");           /* empty name */
  rprof_begin(NULL);         /* null name */
  rprof_end(NULL);

  rprof_begin("good");
  rprof_end("good");

  rprof_begin("quote\"back\\slash\nnewline\ttab");
  rprof_end("quote\"back\\slash\nnewline\ttab");
  rprof_begin("bad-utf8-\xff\xfe-end");
  rprof_end("bad-utf8-\xff\xfe-end");
  rprof_begin("utf8-\xc3\xa9t\xc3\xa9");
  rprof_end("utf8-\xc3\xa9t\xc3\xa9");
  rprof_begin(long_name);
  rprof_end(long_name);
  printf("bad_markers done\n");
  return 0;
}
