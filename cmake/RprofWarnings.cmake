# Warnings and sanitizers, applied per target (no global flags).
#
# RPROF_WERROR turns warnings into errors, except GCC's flow-sensitive
# diagnostics that misfire on libstdc++ code inlined at -O2/-O3 (GCC 12:
# -Wrestrict on std::string operator+, PR105329/PR105651; -Warray-bounds,
# -Wstringop-overflow/-overread and -Wmaybe-uninitialized on std::vector and
# std::optional, PR106199 and kin). They stay warnings, so a newer or older
# compiler, or another optimisation level, never breaks the build on a
# false positive. Headers of dependencies come in as SYSTEM includes
# (imported targets), so their own warnings never show.
add_library(rprof_warnings INTERFACE)
set(RPROF_NO_WERROR_FLAGS "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set(RPROF_NO_WERROR_FLAGS
    -Wno-error=restrict -Wno-error=array-bounds -Wno-error=stringop-overflow
    -Wno-error=stringop-overread -Wno-error=maybe-uninitialized)
endif()
target_compile_options(rprof_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(RPROF_WERROR)
  target_compile_options(rprof_warnings INTERFACE -Werror ${RPROF_NO_WERROR_FLAGS})
endif()

add_library(rprof_sanitize INTERFACE)
if(RPROF_SANITIZE)
  target_compile_options(rprof_sanitize INTERFACE
    -fsanitize=${RPROF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(rprof_sanitize INTERFACE -fsanitize=${RPROF_SANITIZE})
endif()

# rprof_project_options: what every first-party target links.
add_library(rprof_project_options INTERFACE)
target_link_libraries(rprof_project_options INTERFACE rprof_warnings rprof_sanitize)
