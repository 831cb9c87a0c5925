# Optional hardware-counter dependencies, found once (Debian packages):
#   libpfm4-dev  event names -> perf encodings, in the tool only
#   libpapi-dev  the papi backend (runtime loads libpapi with dlopen)
#   likwid       the likwid backend (runtime loads liblikwid with dlopen)
# The papi and likwid backends are compiled only when their headers are found;
# librprof.so never links these libraries, so user programs do not need them.
option(RPROF_WITH_LIBPFM "Encode events with libpfm4 when found" ON)
option(RPROF_WITH_PAPI "Build the papi backend when PAPI is found" ON)
option(RPROF_WITH_LIKWID "Build the likwid backend when likwid is found" ON)

set(RPROF_HAVE_LIBPFM OFF)
if(RPROF_WITH_LIBPFM)
  find_path(PFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
  find_library(PFM_LIBRARY pfm)
  if(PFM_INCLUDE_DIR AND PFM_LIBRARY)
    add_library(rprof_libpfm INTERFACE)
    target_include_directories(rprof_libpfm INTERFACE ${PFM_INCLUDE_DIR})
    target_link_libraries(rprof_libpfm INTERFACE ${PFM_LIBRARY})
    set(RPROF_HAVE_LIBPFM ON)
  endif()
endif()

set(RPROF_HAVE_PAPI OFF)
if(RPROF_WITH_PAPI)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(PAPI QUIET IMPORTED_TARGET papi)
  endif()
  find_path(PAPI_HEADER_DIR papi.h HINTS ${PAPI_INCLUDE_DIRS})
  if(PAPI_HEADER_DIR)
    set(RPROF_HAVE_PAPI ON)
  endif()
endif()

set(RPROF_HAVE_LIKWID OFF)
if(RPROF_WITH_LIKWID)
  find_path(LIKWID_HEADER_DIR likwid.h)
  if(LIKWID_HEADER_DIR)
    set(RPROF_HAVE_LIKWID ON)
  endif()
endif()

message(STATUS "rprof hardware counters: perf yes, libpfm4 ${RPROF_HAVE_LIBPFM}, "
               "papi ${RPROF_HAVE_PAPI}, likwid ${RPROF_HAVE_LIKWID}")
