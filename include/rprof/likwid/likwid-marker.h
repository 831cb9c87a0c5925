/* rprof: a drop-in for LIKWID's <likwid-marker.h> (the marker API only).
 *
 * Programs annotated with LIKWID_MARKER_* build against rprof alone with
 * `pkg-config --cflags --libs rprof-likwid` (or the CMake target
 * rprof::likwid), which puts this directory first on the include path and
 * defines LIKWID_PERFMON. Each region then becomes an rprof region: run the
 * program as `rprof ./app`. Without LIKWID_PERFMON the macros compile away,
 * as LIKWID's do. See docs/migrating.md for what maps to what.
 *
 * The names below are LIKWID's (that is this header's purpose); the
 * functions are defined by librprof-likwid and forward to <rprof/rprof.h>.
 */
#ifndef LIKWID_MARKER_H
#define LIKWID_MARKER_H

#ifdef __cplusplus
extern "C" {
#endif

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char* regionTag);
int likwid_markerStartRegion(const char* regionTag);
int likwid_markerStopRegion(const char* regionTag);
int likwid_markerResetRegion(const char* regionTag);
/* rprof: *nr_events in = capacity of events, out = values filled (the
 * backend's counters, see rprof_counter_name); *time = inclusive seconds;
 * *count = completed calls; all on the calling thread, since the last
 * likwid_markerResetRegion of that region on this thread. */
void likwid_markerGetRegion(const char* regionTag, int* nr_events, double* events,
                            double* time, int* count);

#ifdef __cplusplus
}
#endif

#ifdef LIKWID_PERFMON
#define LIKWID_MARKER_INIT likwid_markerInit()
#define LIKWID_MARKER_THREADINIT likwid_markerThreadInit()
#define LIKWID_MARKER_SWITCH likwid_markerNextGroup()
#define LIKWID_MARKER_REGISTER(regionTag) likwid_markerRegisterRegion(regionTag)
#define LIKWID_MARKER_START(regionTag) likwid_markerStartRegion(regionTag)
#define LIKWID_MARKER_STOP(regionTag) likwid_markerStopRegion(regionTag)
#define LIKWID_MARKER_CLOSE likwid_markerClose()
#define LIKWID_MARKER_RESET(regionTag) likwid_markerResetRegion(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
  likwid_markerGetRegion(regionTag, nevents, events, time, count)
#else
/* Void expressions rather than nothing: no -Wempty-body, and the same type
 * as the enabled forms where those are void. */
#define LIKWID_MARKER_INIT ((void)0)
#define LIKWID_MARKER_THREADINIT ((void)0)
#define LIKWID_MARKER_SWITCH ((void)0)
#define LIKWID_MARKER_REGISTER(regionTag) ((void)sizeof(regionTag))
#define LIKWID_MARKER_START(regionTag) ((void)sizeof(regionTag))
#define LIKWID_MARKER_STOP(regionTag) ((void)sizeof(regionTag))
#define LIKWID_MARKER_CLOSE ((void)0)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
  ((void)sizeof(regionTag), (void)(nevents), (void)(events), (void)(time), (void)(count))
#define LIKWID_MARKER_RESET(regionTag) ((void)sizeof(regionTag))
#endif

#endif /* LIKWID_MARKER_H */
