/* Plants hostile files among the launcher's shared region tables: a FIFO
 * (would block a reader), a link to /etc/passwd, garbage, and a file with a
 * valid-looking name but a forged header. Then completes "ok" twice and
 * exits normally. */
#include <rprof/markers.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  const char* dir = getenv("RPROF_TABLES_DIR");
  if (dir == NULL) return 2;
  char path[4096];
  snprintf(path, sizeof(path), "%s/rprof-tables.999999.0", dir);
  if (mkfifo(path, 0600) != 0) return 3;
  snprintf(path, sizeof(path), "%s/rprof-tables.999998.0", dir);
  if (symlink("/etc/passwd", path) != 0) return 4;
  snprintf(path, sizeof(path), "%s/rprof-tables.999997.0", dir);
  FILE* f = fopen(path, "w");
  if (f == NULL) return 5;
  for (int i = 0; i < 100000; ++i) fputc(i * 7, f);
  fclose(f);
  snprintf(path, sizeof(path), "%s/rprof-tables.999996.0", dir);
  f = fopen(path, "w");
  if (f == NULL) return 6;
  fwrite("RPROFTB1", 1, 8, f);
  for (int i = 0; i < 5000; ++i) fputc(0xff, f);
  fclose(f);
  for (int i = 0; i < 2; ++i) {
    RPROF_BEGIN("ok");
    RPROF_END("ok");
  }
  return 0;
}
