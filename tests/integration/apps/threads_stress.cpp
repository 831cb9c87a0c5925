// T threads each doing N begin/end pairs (macro and function forms) of a
// nested pair of regions; the report must count exactly T*N of each.
// Usage: threads_stress [threads] [pairs]
#include <rprof/rprof.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 16;
  const long pairs = argc > 2 ? std::atol(argv[2]) : 1000000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([pairs] {
      for (long i = 0; i < pairs; ++i) {
        RPROF_SCOPE("outer");
        rprof_begin("inner");
        rprof_end("inner");
      }
    });
  }
  for (auto& th : pool) th.join();
  std::printf("threads_stress: %d x %ld\n", threads, pairs);
  return 0;
}
