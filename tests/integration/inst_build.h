// What the inst backend's tests share (test_inst, test_inst_sample,
// test_inst_mem): skipping where rprof was built without its GCC plugin or
// the sim backend, and building a test program with `rprof cc`. Each target
// that includes it defines RPROF_TEST_INST_PLUGIN (and RPROF_TEST_SIM, where
// it compares with the sim backend).
#ifndef RPROF_TESTS_INTEGRATION_INST_BUILD_H_
#define RPROF_TESTS_INTEGRATION_INST_BUILD_H_

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "skip.h"

namespace rprof::test {

inline void need_plugin() {
#if !RPROF_TEST_INST_PLUGIN
  skip_test("rprof is built without its GCC plugin (no gcc-N-plugin-dev at build time)");
#endif
}

#ifdef RPROF_TEST_SIM
inline void need_sim() {
#if !RPROF_TEST_SIM
  skip_test("rprof is built without the sim backend (no valgrind at build time)");
#endif
}
#endif

// "-O3  -march=x86-64-v3" -> {"-O3", "-march=x86-64-v3"}.
inline std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Runs `argv` (a compiler command line, `rprof cc ...` or the compiler
// alone) and requires it to succeed; returns out, the program it wrote.
inline std::string compile(const std::vector<std::string>& argv, const std::string& out) {
  const RunResult r = run_command(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

// The flags that compile a source with the markers and link librprof from
// lib_dir, then -o out.
inline std::vector<std::string> with_rprof(const std::string& lib_dir, const std::string& out) {
  return {std::string("-DRPROF_ENABLE"), "-I" + std::string(RPROF_SOURCE_DIR) + "/include",
          "-L" + lib_dir, "-Wl,-rpath," + lib_dir, std::string("-lrprof"), std::string("-o"), out};
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_INTEGRATION_INST_BUILD_H_
