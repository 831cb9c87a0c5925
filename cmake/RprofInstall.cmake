# Installation: bin/rprof, include/rprof/*.h, librprof, a CMake package
# (find_package(rprof) -> rprof::rprof) and a pkg-config file (rprof.pc).
include(CMakePackageConfigHelpers)

install(TARGETS rprof_runtime EXPORT rprofTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/rprof
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS rprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(RPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rprof)
install(EXPORT rprofTargets NAMESPACE rprof:: DESTINATION ${RPROF_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rprofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/rprofConfig.cmake INSTALL_DESTINATION ${RPROF_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rprofConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rprofConfig.cmake
              ${PROJECT_BINARY_DIR}/rprofConfigVersion.cmake
  DESTINATION ${RPROF_CMAKE_DIR})

file(RELATIVE_PATH RPROF_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/rprof.pc.in ${PROJECT_BINARY_DIR}/rprof.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rprof.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# LIKWID / PAPI drop-ins (rprof::likwid, rprof::papi; their headers are under
# include/rprof/likwid and include/rprof/papi, installed above) and, when
# Fortran is enabled, the Fortran module (rprof::fortran).
set(_rprof_extra_pc rprof-likwid rprof-papi)
set(_rprof_extra_targets rprof_likwid rprof_papi)
if(RPROF_HAVE_FORTRAN)
  list(APPEND _rprof_extra_pc rprof-fortran)
  list(APPEND _rprof_extra_targets rprof_fortran)
  install(FILES ${PROJECT_BINARY_DIR}/fortran/rprof/rprof.mod
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rprof/fortran)
  install(FILES ${PROJECT_BINARY_DIR}/fortran/likwid/likwid.mod
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rprof/likwid)
endif()
install(TARGETS ${_rprof_extra_targets} EXPORT rprofTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(_pc IN LISTS _rprof_extra_pc)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The Python package `rprof` (python/rprof, docs/python.md) into the site
# directory of Debian's /usr/bin/python3 under the prefix: its purelib path
# relative to its data path (lib/python3.11/dist-packages on Debian 12, which
# its python3 has on sys.path for /usr/local and /usr). RPROF_PYTHON_SITE_DIR
# overrides it (relative to the prefix, or absolute).
set(RPROF_PYTHON "/usr/bin/python3" CACHE FILEPATH "The Python the rprof package is installed for")
if(NOT RPROF_PYTHON_SITE_DIR)
  execute_process(
    COMMAND ${RPROF_PYTHON} -c
            "import os, sysconfig; print(os.path.relpath(sysconfig.get_path('purelib'), sysconfig.get_path('data')))"
    OUTPUT_VARIABLE _rprof_py_site OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _rprof_py_rc ERROR_QUIET)
  if(NOT _rprof_py_rc EQUAL 0 OR _rprof_py_site STREQUAL "")
    set(_rprof_py_site "lib/python3/dist-packages")
    message(STATUS "rprof: ${RPROF_PYTHON} gave no site directory; the Python package goes to "
                   "<prefix>/${_rprof_py_site}")
  endif()
  set(RPROF_PYTHON_SITE_DIR "${_rprof_py_site}" CACHE STRING
      "Where the Python package rprof is installed (relative to the prefix, or absolute)")
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/rprof DESTINATION ${RPROF_PYTHON_SITE_DIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
