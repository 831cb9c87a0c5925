// make_runtime_backend (runtime/backend.h) and the quiet brackets
// (runtime/quiet.h), over the generated table (runtime/backend_table.h).
#include <cstring>

#include "runtime/backend_table.h"
#include "runtime/quiet.h"

namespace rprof {

std::unique_ptr<Backend> make_runtime_backend(std::string_view name, std::string* why) {
  for (size_t i = 0; i < kNumRuntimeBackends; ++i) {
    if (name == kRuntimeBackends[i].name) return kRuntimeBackends[i].make(why);
  }
  *why = "backend '" + std::string(name) + "' is not built into this runtime";
  return nullptr;
}

void quiet_begin() {
  for (size_t i = 0; i < kNumRuntimeBackends; ++i) {
    if (kRuntimeBackends[i].quiet_begin != nullptr) kRuntimeBackends[i].quiet_begin();
  }
}

void quiet_end() {
  for (size_t i = kNumRuntimeBackends; i-- > 0;) {
    if (kRuntimeBackends[i].quiet_end != nullptr) kRuntimeBackends[i].quiet_end();
  }
}

}  // namespace rprof
