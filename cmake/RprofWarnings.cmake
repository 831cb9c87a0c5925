# Warnings and sanitizers, applied per target (no global flags).
add_library(rprof_warnings INTERFACE)
target_compile_options(rprof_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  $<$<BOOL:${RPROF_WERROR}>:-Werror>)

add_library(rprof_sanitize INTERFACE)
if(RPROF_SANITIZE)
  target_compile_options(rprof_sanitize INTERFACE
    -fsanitize=${RPROF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(rprof_sanitize INTERFACE -fsanitize=${RPROF_SANITIZE})
endif()

# rprof_project_options: what every first-party target links.
add_library(rprof_project_options INTERFACE)
target_link_libraries(rprof_project_options INTERFACE rprof_warnings rprof_sanitize)
