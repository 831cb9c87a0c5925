// profile.json: the aggregated profile, the tool's saved output (format
// "rprof-profile", docs/profile-schema.md). `rprof report` re-renders it.
// Derived sections (metrics, roofline, verdicts) are written by lib/report
// (through ProfileJsonParts) and recomputed when the file is read back, so
// only measured data is parsed here.
#ifndef RPROF_PROFILE_PROFILE_JSON_H_
#define RPROF_PROFILE_PROFILE_JSON_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "common/json_out.h"
#include "profile/profile.h"

namespace rprof {

// The sections of profile.json beyond the measured ones, which lib/report
// adds from the analysis, each written where its sorted key puts it: members
// between "regions" and "run" ("roofline_machine"), after "schema_version"
// ("verdict_thresholds"), and at the end of region i's object.
struct ProfileJsonParts {
  std::function<void(json_out::Writer&)> before_run;
  std::function<void(json_out::Writer&)> at_end;
  std::function<void(json_out::Writer&, size_t)> region_end;
};

// Writes profile.json, the one writer of the document: pretty-printed
// (indent 2) with each region on one line, streamed region by region (a
// megabyte of text at a time: profile.json of 100,000 regions is never held
// as one DOM, nor as one text).
void write_profile_json(std::ostream& out, const Profile& p, const ProfileJsonParts& parts = {});
// The measured sections alone as text (tests, fixture files).
std::string profile_json_text(const Profile& p);
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
