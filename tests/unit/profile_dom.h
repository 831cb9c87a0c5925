// profile.json as a DOM, for tests that edit a document before reading it
// back: the text of the one writer (write_profile_json), parsed.
#ifndef RPROF_TESTS_UNIT_PROFILE_DOM_H_
#define RPROF_TESTS_UNIT_PROFILE_DOM_H_

#include <nlohmann/json.hpp>

#include "profile/profile_json.h"

namespace rprof::test {

inline nlohmann::json profile_dom(const Profile& p) {
  return nlohmann::json::parse(profile_json_text(p));
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_UNIT_PROFILE_DOM_H_
