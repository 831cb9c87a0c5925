/* rprof: C ABI of the runtime linked into profiled programs.
 *
 * Regions are opened and closed by name. Calls made while the program is not
 * run under the `rprof` launcher are inactive and cost one predictable branch;
 * set RPROF_VERBOSE=1 to be told why they are inactive.
 *
 * Prefer the macros of <rprof/markers.h> (C) or <rprof/rprof.hpp> (C++): they
 * use a static per-call-site descriptor, so a hot begin/end does no string work.
 */
#ifndef RPROF_RPROF_H_
#define RPROF_RPROF_H_

#include <stdint.h>

#if defined(_WIN32)
#define RPROF_API __declspec(dllimport)
#elif defined(RPROF_BUILDING_RUNTIME)
#define RPROF_API __attribute__((visibility("default")))
#else
#define RPROF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: 0 is success, negative values are errors. */
enum rprof_status {
  RPROF_OK = 0,
  RPROF_INACTIVE = 1,          /* not run under the launcher: nothing recorded */
  RPROF_ERR_NAME = -1,         /* null or empty region name */
  RPROF_ERR_NESTING = -2,      /* end does not match the innermost open region */
  RPROF_ERR_DEPTH = -3,        /* nesting deeper than RPROF_MAX_DEPTH (call the end
                                  anyway: the end of a refused begin is absorbed) */
  RPROF_ERR_CAPACITY = -4,     /* too many distinct regions, or out of memory */
  RPROF_ERR_IO = -5,           /* the raw profile could not be written */
  RPROF_ERR_VALUE = -6         /* rprof_work(): NaN, negative or above 1e18 (ignored) */
};

/* A static per-call-site descriptor. `name` must outlive the program (a string
 * literal); `id` is filled by the runtime on first use. Do not touch `id`. */
typedef struct rprof_site {
  const char* name;
  uint32_t id;
} rprof_site;

/* Open / close a region by name. Names are compared by content; a name may be
 * any bytes (it is escaped in reports). Nesting must be well formed: an end
 * that does not match the innermost open region is recorded as an error and
 * ignored. */
RPROF_API int rprof_begin(const char* name);
RPROF_API int rprof_end(const char* name);

/* Same, with a static descriptor (what the macros use). */
RPROF_API int rprof_begin_site(rprof_site* site);
RPROF_API int rprof_end_site(rprof_site* site);

/* Declares the algorithm's ideal work for the innermost open region, once per
 * call of that region: `flops` under the FMA = 2 FLOPs convention and `bytes`
 * the minimal source-level traffic (every operand crossing the boundary once).
 * Reports show it beside what was measured. */
RPROF_API int rprof_work(double flops, double bytes);

/* 1 when markers record (the program runs under `rprof`), else 0. */
RPROF_API int rprof_active(void);

/* Reads what the runtime measured so far for region `name` on the calling
 * thread, summed over every place the region occurs in the thread's call tree:
 * completed calls, inclusive seconds and inclusive counter values in the
 * backend's order (see rprof_counter_name). `*num_counters` is the capacity of
 * `counters` on entry and the number filled on return (0 with a timing-only
 * backend). Any output pointer may be null. A region not yet completed on this
 * thread reads as zeros. Read-only: it changes no count, and counting backends
 * leave its own work out of every region. Returns RPROF_OK, RPROF_INACTIVE
 * (not run under the launcher: zeros) or RPROF_ERR_NAME. Meant for
 * compatibility layers (LIKWID_MARKER_GET), not for hot loops: it walks the
 * thread's regions. */
RPROF_API int rprof_region_read(const char* name, uint64_t* calls, double* seconds,
                                uint64_t* counters, int* num_counters);

/* Name of the backend's counter k ("flops.dp.256", "bytes.l1.read", ...) as
 * rprof_region_read orders them, or NULL when there is no such counter or
 * the markers are inactive. */
RPROF_API const char* rprof_counter_name(int k);

/* Writes the raw profile now (it is also written at exit; under `rprof`, a process
 * killed by a signal keeps its completed regions in the shared tables).
 * Regions still open are reported as incomplete. */
RPROF_API int rprof_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* RPROF_RPROF_H_ */
