// Fuzz target: the machine file reader (ceilings, caches, sweeps).
#include "common/error.h"
#include "common/json_reader.h"
#include "fuzz/fuzz_targets.h"
#include "machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rprof::JsonLimits lim;
    lim.values = rprof::limits::kMachineJsonValues;
    const nlohmann::json doc = rprof::JsonReader("fuzz.json", "rprof machine file")
                                   .parse(rprof::fuzz::text_of(data, size), lim);
    const rprof::Machine m = rprof::machine_from_json(doc, "fuzz.json");
    (void)rprof::machine_from_json(rprof::machine_to_json(m), "fuzz.json");
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
