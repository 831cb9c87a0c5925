// Fuzz target: the rules of `rprof check` (TOML read by toml++, and the
// rule keys; the same text as JSON too). Every input either gives rules or
// is refused with one rprof::Error line of exit code 2; anything else (a
// crash, a sanitizer report, a hang, a foreign exception) is a bug.
#include "common/error.h"
#include "fuzz/fuzz_targets.h"
#include "report/check_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = rprof::fuzz::text_of(data, size);
  for (bool json : {false, true}) {
    try {
      const rprof::RuleSet r = rprof::parse_rules(text, json ? "fuzz.json" : "fuzz.toml", json);
      if (r.rules.empty()) __builtin_trap();  // a set without rules is refused
      for (const rprof::Rule& rule : r.rules) (void)rprof::path_matches(rule.region, {"a", "b"});
    } catch (const rprof::Error& e) {
      if (std::string(e.what()).find('\n') != std::string::npos || e.exit_code() != 2) {
        __builtin_trap();
      }
    }
  }
  return 0;
}
