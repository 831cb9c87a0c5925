// Fuzz target: the profile.json reader (what `rprof report` reads back).
#include "common/error.h"
#include "common/json_reader.h"
#include "fuzz/fuzz_targets.h"
#include "profile/profile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const nlohmann::json doc =
        rprof::JsonReader("fuzz.json", "rprof profile").parse(rprof::fuzz::text_of(data, size));
    const rprof::Profile p = rprof::profile_from_json(doc, "fuzz.json");
    // Written back, the profile reads again.
    (void)rprof::profile_from_json(nlohmann::json::parse(rprof::profile_json_text(p)),
                                   "fuzz.json");
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
