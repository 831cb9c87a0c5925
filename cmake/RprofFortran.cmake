# Fortran is optional: the module `rprof`, LIKWID's module `likwid` for
# rprof-likwid, the Fortran sample and tests are built only when a Fortran
# compiler (gfortran) is found. Sets RPROF_HAVE_FORTRAN.
option(RPROF_WITH_FORTRAN "Build the Fortran module when a Fortran compiler is found" ON)
set(RPROF_HAVE_FORTRAN OFF)
set(RPROF_NO_FORTRAN_REASON "RPROF_WITH_FORTRAN is OFF")
if(RPROF_WITH_FORTRAN)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    set(RPROF_HAVE_FORTRAN ON)
  else()
    set(RPROF_NO_FORTRAN_REASON "no Fortran compiler was found at configure time (apt-get install gfortran, then reconfigure)")
  endif()
endif()
message(STATUS "rprof: Fortran module ${RPROF_HAVE_FORTRAN}")
