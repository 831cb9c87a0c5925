#include "common/shared_text.h"

#include <mutex>
#include <set>

namespace rprof {

const std::string& SharedText::empty_text() {
  static const std::string kEmpty;
  return kEmpty;
}

SharedText::SharedText(std::string_view s) {
  if (s.empty()) return;
  // Node-based: a text's address never changes. Never freed: the texts are
  // counter names, the analysis' fixed phrases and the few variants of
  // them a run produces.
  static std::mutex mu;
  static auto* texts = new std::set<std::string, std::less<>>();
  const std::lock_guard<std::mutex> lock(mu);
  auto it = texts->find(s);
  if (it == texts->end()) it = texts->emplace(s).first;
  p_ = &*it;
}

}  // namespace rprof
