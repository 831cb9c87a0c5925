// Fuzz target: the raw profile reader, then the aggregation of what it read
// (where a world_size of 2147483646 once took 17 GB).
#include "common/error.h"
#include "fuzz/fuzz_targets.h"
#include "profile/profile.h"
#include "profile/raw_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rprof::RawProfile raw = rprof::parse_raw_profile(rprof::fuzz::text_of(data, size), "fuzz.json");
    (void)rprof::aggregate({std::move(raw)}, rprof::RunInfo{});
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
