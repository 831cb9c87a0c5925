# cmake -DFROM=<system valgrind lib dir> -DTO=<private dir> -DSKIP=<tool> -P link_vglib.cmake
# Makes TO a complete VALGRIND_LIB: a symbolic link to every entry of FROM
# (preload libraries, suppressions, gdbserver files, stock tools), next to
# rprof's tool. Existing links are replaced; SKIP is never touched.
file(MAKE_DIRECTORY "${TO}")
file(GLOB _entries RELATIVE "${FROM}" "${FROM}/*")
foreach(_e ${_entries})
  if(_e STREQUAL "${SKIP}")
    continue()
  endif()
  if(IS_SYMLINK "${TO}/${_e}" OR EXISTS "${TO}/${_e}")
    file(REMOVE "${TO}/${_e}")
  endif()
  file(CREATE_LINK "${FROM}/${_e}" "${TO}/${_e}" SYMBOLIC)
endforeach()
