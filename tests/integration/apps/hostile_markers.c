/* Values and nesting rprof must refuse loudly: rprof_work with NaN, -1 and
 * 1e30 (and one valid 100 FLOP / 200 bytes) in region "w"; region "rec"
 * recursing 1001 deep (256 levels fit); then "after" once, which must nest at
 * the top level. Prints the status codes seen. */
#include <math.h>
#include <rprof/rprof.h>
#include <stdio.h>

static int g_deep_begin = 0, g_deep_end = 0;

static void rec(int depth) {
  if (rprof_begin("rec") == RPROF_ERR_DEPTH) ++g_deep_begin;
  if (depth < 1001) rec(depth + 1);
  if (rprof_end("rec") == RPROF_ERR_DEPTH) ++g_deep_end;
}

int main(void) {
  rprof_begin("w");
  const int nan_rc = rprof_work(NAN, 1);
  const int neg_rc = rprof_work(-1, 1);
  const int big_rc = rprof_work(1, 1e30);
  const int ok_rc = rprof_work(100, 200);
  rprof_end("w");
  rec(1);
  rprof_begin("after");
  rprof_end("after");
  printf("work %d %d %d %d deep %d %d\n", nan_rc, neg_rc, big_rc, ok_rc, g_deep_begin,
         g_deep_end);
  return 0;
}
