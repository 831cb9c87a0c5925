/* rprof: a drop-in for <papi.h> covering PAPI's high-level API (regions).
 *
 * Programs annotated with PAPI_hl_region_begin/end build against rprof alone
 * with `pkg-config --cflags --libs rprof-papi` (or the CMake target
 * rprof::papi), which puts this directory first on the include path. Each
 * region becomes an rprof region: run the program as `rprof ./app`. Only the
 * high-level API and the status codes it returns are provided; see
 * docs/migrating.md for what maps to what.
 *
 * The names below are PAPI's (that is this header's purpose); the functions
 * are defined by librprof-papi and forward to <rprof/rprof.h>.
 */
#ifndef _PAPI
#define _PAPI

/* PAPI's values, so code that compares return codes behaves the same. */
#define PAPI_OK 0      /* no error */
#define PAPI_EINVAL -1 /* invalid argument (null or empty region name) */
#define PAPI_ENOMEM -2 /* out of memory (too many regions) */
#define PAPI_ENOEVNT -7 /* PAPI_hl_stop with no region begun since */
#define PAPI_EMISC -14 /* no matching open region */

#ifdef __cplusplus
extern "C" {
#endif

/* Opens region `region` on the calling thread (regions nest). */
int PAPI_hl_region_begin(const char* region);
/* rprof: PAPI_OK inside an open region (PAPI_EMISC outside one); records
 * nothing: rprof reports each region's totals when the program ends. */
int PAPI_hl_read(const char* region);
/* Closes region `region`, the innermost open one on this thread. */
int PAPI_hl_region_end(const char* region);
/* Thread-local, as in PAPI 7: PAPI_OK when a region began on this thread
 * since the last stop, else PAPI_ENOEVNT. Regions begun later are recorded
 * (PAPI restarts its counters at the next begin). */
int PAPI_hl_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* _PAPI */
