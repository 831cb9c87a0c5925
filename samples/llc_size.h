/* The largest cache this machine reports, for samples whose point is traffic
 * from DRAM: they size their arrays from it so that the data cannot fit in
 * the last-level cache on any machine (a desktop's 32 MiB, a server's
 * 105 MiB, or the 480 MiB a cloud VM's sysfs reports for its host).
 *
 * Reads /sys/devices/system/cpu/cpu0/cache/index*, under $RPROF_SYSROOT when
 * set (a recorded machine, as rprof itself does). 32 MiB when unknown.
 */
#ifndef RPROF_SAMPLES_LLC_SIZE_H_
#define RPROF_SAMPLES_LLC_SIZE_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t sample_llc_bytes(void) {
  const char* root = getenv("RPROF_SYSROOT");
  size_t largest = 0;
  for (int i = 0; i < 16; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu0/cache/index%d/size",
             root != NULL ? root : "", i);
    FILE* f = fopen(path, "r");
    if (f == NULL) break;
    unsigned long long v = 0;
    char unit = 0;
    const int got = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (got < 1) continue;
    if (unit == 'K') v <<= 10;
    else if (unit == 'M') v <<= 20;
    else if (unit == 'G') v <<= 30;
    if (v > largest) largest = (size_t)v;
  }
  return largest > 0 ? largest : (size_t)32 << 20;
}

#endif /* RPROF_SAMPLES_LLC_SIZE_H_ */
