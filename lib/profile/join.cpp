#include "profile/join.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace rprof {
namespace {

// Processes are told apart by pid, which differs between runs: number them in
// pid order instead (a parent's pid is below its children's).
std::map<int64_t, int> process_ordinals(const Profile& p) {
  std::set<int64_t> pids;
  for (const Region& r : p.regions) {
    for (const ThreadRow& t : r.threads) pids.insert(t.pid);
  }
  std::map<int64_t, int> ord;
  for (int64_t pid : pids) ord.emplace(pid, static_cast<int>(ord.size()));
  return ord;
}

using ThreadKey = std::pair<int, uint32_t>;  // process ordinal, thread index

void join_threads(std::vector<ThreadRow>& timed, const std::map<int64_t, int>& timed_ord,
                  const std::vector<ThreadRow>& counted,
                  const std::map<int64_t, int>& counted_ord) {
  std::map<ThreadKey, const ThreadRow*> by_key;
  for (const ThreadRow& t : counted) by_key[{counted_ord.at(t.pid), t.thread}] = &t;
  for (ThreadRow& t : timed) {
    auto it = by_key.find({timed_ord.at(t.pid), t.thread});
    if (it != by_key.end()) t.counters = it->second->counters;
  }
}

std::string list(const std::vector<std::string>& items) {
  std::string s;
  const size_t shown = std::min<size_t>(items.size(), 5);
  for (size_t i = 0; i < shown; ++i) s += (i ? "; " : "") + items[i];
  if (items.size() > shown) s += "; and " + std::to_string(items.size() - shown) + " more";
  return s;
}

}  // namespace

Profile join_timed_and_counted(Profile timed, const Profile& counted) {
  const auto timed_ord = process_ordinals(timed);
  const auto counted_ord = process_ordinals(counted);
  std::vector<std::string> differ, no_counts, no_time;
  for (Region& r : timed.regions) {
    if (r.is_program()) continue;
    const Region* c = counted.find(r.path);
    if (c == nullptr) {
      no_counts.push_back(path_string(r.path));
      continue;
    }
    r.counters = c->counters;
    r.exclusive_counters = c->exclusive_counters;
    join_threads(r.threads, timed_ord, c->threads, counted_ord);
    if (c->calls != r.calls) {
      differ.push_back("'" + path_string(r.path) + "' " + std::to_string(r.calls) +
                       " calls timed, " + std::to_string(c->calls) + " counted");
    }
  }
  for (const Region& c : counted.regions) {
    if (c.is_program() || timed.find(c.path) != nullptr) continue;
    Region r = c;  // counts only: keep them, without times
    r.time_s = r.exclusive_time_s = r.thread_time_s = r.open_time_s = 0;
    for (ThreadRow& t : r.threads) t.time_s = t.exclusive_time_s = 0;
    no_time.push_back(path_string(c.path));
    timed.regions.push_back(std::move(r));
  }
  if (!no_time.empty()) sort_tree(timed.regions);
  timed.counters = counted.counters;
  if (!differ.empty() || !no_counts.empty() || !no_time.empty()) {
    std::string note =
        "the program is not deterministic: its timed (native) and counted "
        "(simulated) runs differ, so counts and times of these regions describe "
        "different executions:";
    if (!differ.empty()) note += " calls differ for " + list(differ) + ".";
    if (!no_counts.empty()) note += " Not reached when counted: " + list(no_counts) + ".";
    if (!no_time.empty()) note += " Not reached when timed (no time): " + list(no_time) + ".";
    timed.notes.push_back(note);
  }
  return timed;
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
  prog->counters = totals;
  prog->exclusive_counters.clear();
  for (const auto& [k, v] : totals) {
    const uint64_t inner = top.count(k) ? top.at(k) : 0;
    prog->exclusive_counters[k] = v > inner ? v - inner : 0;
  }
}

}  // namespace rprof
