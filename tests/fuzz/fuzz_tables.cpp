// Fuzz target: the shared region tables reader (lib/profile/
// shared_tables_reader), which reads the file a process left in the
// launcher's directory; the process is the app's, so the file is hostile.
// Then the aggregation of what it read.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "common/error.h"
#include "fuzz/fuzz_targets.h"
#include "profile/profile.h"
#include "profile/shared_tables_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes a file (it checks what it is before reading it).
  static const std::string file = "fuzz-tables." + std::to_string(getpid());
  FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr) __builtin_trap();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  try {
    rprof::TablesImage img = rprof::read_shared_tables(file, 1000000000ull);
    (void)rprof::aggregate({std::move(img.raw)}, rprof::RunInfo{});
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
