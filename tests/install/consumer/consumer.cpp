// Linking rprof::rprof (or pkg-config rprof) must define RPROF_ENABLE.
#include <rprof/rprof.hpp>

#include <cstdio>

#ifndef RPROF_ENABLE
#error "RPROF_ENABLE is not defined by the rprof package"
#endif

int main() {
  for (int i = 0; i < 3; ++i) {
    RPROF_SCOPE("consumer_region");
  }
  std::printf("consumer ok\n");
  return 0;
}
