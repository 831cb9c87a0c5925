// profile.json: the aggregated profile, the tool's saved output (format
// "rprof-profile", docs/profile-schema.md). `rprof report` re-renders it.
// Derived sections (metrics, roofline, verdicts) are written by lib/report and
// recomputed when the file is read back, so only measured data is parsed here.
#ifndef RPROF_PROFILE_PROFILE_JSON_H_
#define RPROF_PROFILE_PROFILE_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "profile/profile.h"

namespace rprof {

nlohmann::json profile_to_json(const Profile& p);
// The two halves of profile_to_json, for writers that stream the regions:
// everything but "regions", and one element of "regions".
nlohmann::json profile_head_json(const Profile& p);
nlohmann::json region_to_json(const Region& g, const RunInfo& run);
// The same region as JSON text appended to out, without a DOM (performance:
// profile.json of 100,000 regions).
void append_region_json(std::string& out, const Region& g, const RunInfo& run);
Profile profile_from_json(const nlohmann::json& doc, const std::string& file);

// Loads a profile from: a directory written by `rprof` (profile.json, or the
// raw profiles in it / its raw/ folder), a profile.json, or a raw profile.
// Throws Error naming the file and what is wrong with it.
// A profile.json is read region by region (one region's DOM at a time).
Profile load_profile(const std::string& path);

// The "run" facts of a profile.json (its regions skipped).
RunInfo read_profile_run(const std::string& file);

}  // namespace rprof

#endif  // RPROF_PROFILE_PROFILE_JSON_H_
