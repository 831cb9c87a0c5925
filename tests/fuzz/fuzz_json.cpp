// Fuzz target: the checked JSON reader (syntax errors with their offset, the
// caps on depth, strings and values). Every input either parses or is refused
// with one rprof::Error line; anything else (a crash, a sanitizer report, a
// hang, a foreign exception) is a bug.
#include "common/error.h"
#include "common/json_reader.h"
#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const rprof::JsonReader r("fuzz.json", "JSON file");
  try {
    const nlohmann::json doc = r.parse(rprof::fuzz::text_of(data, size));
    // The typed accessors on whatever came out.
    if (doc.is_object()) {
      (void)r.get_or<std::vector<std::string>>(doc, "command", {});
      (void)r.get_or<std::map<std::string, uint64_t>>(doc, "counters", {});
      (void)r.get_or<double>(doc, "time_s", 0);
      (void)r.get_or<int>(doc, "schema_version", 0);
    }
  } catch (const rprof::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
