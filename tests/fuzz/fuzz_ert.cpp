// Fuzz target: the reader of ERT's roofline.json (rprof machine --import-ert),
// then the machine it gives written as a machine file and as ERT's format
// and read back.
#include "common/error.h"
#include "common/json_reader.h"
#include "fuzz/fuzz_targets.h"
#include "machine/ert_file.h"
#include "machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rprof::JsonLimits lim;
    lim.values = rprof::limits::kMachineJsonValues;
    const nlohmann::json doc = rprof::JsonReader("fuzz.json", "ERT roofline.json")
                                   .parse(rprof::fuzz::text_of(data, size), lim);
    rprof::Topology topo;
    topo.cpu.vendor = "AuthenticAMD";
    topo.cpu.avx2 = topo.cpu.fma = true;
    topo.logical_cpus = 4;
    topo.caches = {{1, 32768, 8, 64, 1}, {2, 1 << 20, 8, 64, 1}, {3, 32 << 20, 16, 64, 4}};
    const rprof::Machine m = rprof::machine_from_ert_json(doc, "fuzz.json", topo, 0);
    (void)rprof::machine_from_json(rprof::machine_to_json(m), "fuzz.json");
    (void)rprof::machine_from_ert_json(rprof::machine_to_ert(m, 0), "fuzz.json", topo, 0);
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
