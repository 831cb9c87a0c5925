// The fuzz targets' shared entry point: libFuzzer's signature. Each target is
// one reader (tests/fuzz/fuzz_*.cpp); built with clang it links libFuzzer,
// with GCC the mutation driver of driver.cpp (tests/fuzz/README.md).
#ifndef RPROF_TESTS_FUZZ_FUZZ_TARGETS_H_
#define RPROF_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace rprof::fuzz {
inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
}  // namespace rprof::fuzz

#endif  // RPROF_TESTS_FUZZ_FUZZ_TARGETS_H_
