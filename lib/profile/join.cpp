#include "profile/join.h"

#include <set>
#include <utility>

#include "profile/merge_runs.h"

namespace rprof {

Profile join_timed_and_counted(Profile timed, Profile counted) {
  std::vector<RunMismatch> found;
  std::vector<Profile> runs;
  runs.push_back(std::move(timed));
  runs.push_back(std::move(counted));  // not copied: two profiles of 100,000 regions are enough
  Profile joined = merge_runs(std::move(runs), {.keep_unmatched = true}, &found);
  std::vector<std::string> differ, no_counts, no_time;
  for (const RunMismatch& m : found) {
    switch (m.kind) {
      case RunMismatch::Kind::kCalls:
        differ.push_back("'" + m.path + "' " + std::to_string(m.first_calls) +
                         " calls timed, " + std::to_string(m.run_calls) + " counted");
        break;
      case RunMismatch::Kind::kMissing:
        no_counts.push_back(m.path);
        break;
      case RunMismatch::Kind::kExtra:
        no_time.push_back(m.path);
        break;
    }
  }
  if (!found.empty()) {
    std::string note =
        "the program is not deterministic: its timed (native) and counted "
        "(simulated) runs differ, so counts and times of these regions describe "
        "different executions:";
    if (!differ.empty()) note += " calls differ for " + short_list(differ) + ".";
    if (!no_counts.empty()) note += " Not reached when counted: " + short_list(no_counts) + ".";
    if (!no_time.empty()) note += " Not reached when timed (no time): " + short_list(no_time) + ".";
    joined.notes.push_back(note);
  }
  return joined;
}

void set_program_counters(Profile& p, const CounterMap& totals) {
  if (totals.empty()) return;
  CounterMap top;
  Region* prog = nullptr;
  for (Region& r : p.regions) {
    if (r.is_program()) {
      prog = &r;
    } else if (r.path.size() == 1) {
      for (const auto& [k, v] : r.counters) top[k] += v;
    }
  }
  if (prog == nullptr) return;
  // The profile's counter names (the CSV's columns) include the totals'
  // (a program without markers has no other counters).
  std::set<std::string> names(p.counters.begin(), p.counters.end());
  for (const auto& kv : totals) names.insert(kv.first);
  p.counters.assign(names.begin(), names.end());
  prog->counters = totals;
  prog->exclusive_counters.clear();
  for (const auto& [k, v] : totals) {
    const uint64_t inner = top.count(k) ? top.at(k) : 0;
    prog->exclusive_counters[k] = v > inner ? v - inner : 0;
  }
}

}  // namespace rprof
