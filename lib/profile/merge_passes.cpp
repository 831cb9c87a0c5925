#include "profile/merge_passes.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace rprof {
namespace {

using Process = std::pair<std::string, int64_t>;  // host, pid

// Processes differ in pid between runs: number them in (host, pid) order
// instead (a parent's pid is below its children's).
std::map<Process, int> process_ordinals(const Profile& p) {
  std::set<Process> procs;
  for (const Region& r : p.regions) {
    for (const ThreadRow& t : r.threads) procs.insert({t.host, t.pid});
  }
  std::map<Process, int> ord;
  for (const Process& pr : procs) ord.emplace(pr, static_cast<int>(ord.size()));
  return ord;
}

void add(CounterMap& into, const CounterMap& from) {
  for (const auto& [k, v] : from) into[k] += v;
}

std::string list(const std::vector<std::string>& items) {
  std::string s;
  const size_t shown = std::min<size_t>(items.size(), 5);
  for (size_t i = 0; i < shown; ++i) s += (i ? "; " : "") + items[i];
  if (items.size() > shown) s += "; and " + std::to_string(items.size() - shown) + " more";
  return s;
}

}  // namespace

Profile merge_passes(std::vector<Profile> passes) {
  if (passes.empty()) return Profile{};
  Profile base = std::move(passes.front());
  const auto base_ord = process_ordinals(base);
  std::vector<std::string> differ, missing, extra;
  std::set<std::string> names(base.counters.begin(), base.counters.end());
  for (size_t pi = 1; pi < passes.size(); ++pi) {
    const Profile& p = passes[pi];
    const std::string run = "run " + std::to_string(pi + 1);
    const auto ord = process_ordinals(p);
    names.insert(p.counters.begin(), p.counters.end());
    for (Region& r : base.regions) {
      if (r.is_program()) continue;
      const Region* o = p.find(r.path);
      if (o == nullptr) {
        missing.push_back("'" + path_string(r.path) + "' not reached in " + run);
        continue;
      }
      if (o->calls != r.calls) {
        differ.push_back("'" + path_string(r.path) + "' " + std::to_string(r.calls) +
                         " calls in run 1, " + std::to_string(o->calls) + " in " + run);
      }
      add(r.counters, o->counters);
      add(r.exclusive_counters, o->exclusive_counters);
      std::map<std::pair<int, uint32_t>, const ThreadRow*> by_key;
      for (const ThreadRow& t : o->threads) by_key[{ord.at({t.host, t.pid}), t.thread}] = &t;
      for (ThreadRow& t : r.threads) {
        auto it = by_key.find({base_ord.at({t.host, t.pid}), t.thread});
        if (it != by_key.end()) add(t.counters, it->second->counters);
      }
    }
    for (const Region& o : p.regions) {
      if (!o.is_program() && base.find(o.path) == nullptr) {
        extra.push_back("'" + path_string(o.path) + "' reached only in " + run);
      }
    }
  }
  base.counters.assign(names.begin(), names.end());
  if (!differ.empty() || !missing.empty() || !extra.empty()) {
    std::string note =
        "the program is not deterministic: its runs (one per counter group) differ, so the "
        "counts of these regions describe different executions:";
    if (!differ.empty()) note += " calls differ for " + list(differ) + ".";
    if (!missing.empty()) note += " " + list(missing) + ".";
    if (!extra.empty()) note += " " + list(extra) + " (left out).";
    base.notes.push_back(note);
  }
  return base;
}

}  // namespace rprof
