/* rprof: marker macros for C and C++.
 *
 * RPROF_BEGIN("name") / RPROF_END("name") record only when RPROF_ENABLE is
 * defined (linking the CMake target rprof::rprof or using `pkg-config rprof`
 * defines it); otherwise they are void expressions that evaluate nothing.
 * The name must be a string literal: each call site keeps a static descriptor,
 * so the hot path does no string hashing. Use rprof_begin() for names built at
 * run time.
 */
#ifndef RPROF_MARKERS_H_
#define RPROF_MARKERS_H_

#include "rprof/rprof.h"

#if defined(RPROF_ENABLE)

/* A pointer to this call site's static descriptor (GNU statement expression,
 * supported by GCC and Clang in C and C++). `"" name ""` rejects non-literals. */
#define RPROF_SITE_(name)                                  \
  __extension__({                                          \
    static rprof_site rprof_site_ = {"" name "", 0};       \
    &rprof_site_;                                          \
  })

#define RPROF_BEGIN(name) ((void)rprof_begin_site(RPROF_SITE_(name)))
#define RPROF_END(name) ((void)rprof_end_site(RPROF_SITE_(name)))
#define RPROF_WORK(flops, bytes) ((void)rprof_work((flops), (bytes)))

#else

#define RPROF_BEGIN(name) ((void)sizeof(name))
#define RPROF_END(name) ((void)sizeof(name))
#define RPROF_WORK(flops, bytes) ((void)sizeof((flops) + (bytes)))

#endif

#endif /* RPROF_MARKERS_H_ */
