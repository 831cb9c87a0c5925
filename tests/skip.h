// A test case that cannot run on this machine: says why and exits with
// RPROF_SKIP_CODE. Every Catch2 test case is its own CTest entry
// (catch_discover_tests), so CTest reports this case alone as skipped, with
// the reason in its output, and the cases after it still run.
#ifndef RPROF_TESTS_SKIP_H_
#define RPROF_TESTS_SKIP_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace rprof::test {

[[noreturn]] inline void skip_test(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(RPROF_SKIP_CODE);
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_SKIP_H_
