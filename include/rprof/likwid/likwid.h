/* rprof: <likwid.h> for programs that include it for the marker API (LIKWID
 * 4 style). Only the marker API is provided; see likwid-marker.h. */
#ifndef LIKWID_H
#define LIKWID_H
#include "likwid-marker.h"
#endif /* LIKWID_H */
