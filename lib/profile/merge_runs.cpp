#include "profile/merge_runs.h"

#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace rprof {
namespace {

using Process = std::tuple<std::string, int64_t, int64_t>;  // host, rank, pid

// Each process of a run numbered in (host, rank, pid) order.
std::map<Process, int> process_ordinals(const Profile& p) {
  std::set<Process> procs;
  for (const Region& r : p.regions) {
    for (const ThreadRow& t : r.threads) procs.insert({t.host, t.rank, t.pid});
  }
  std::map<Process, int> ord;
  for (const Process& pr : procs) ord.emplace(pr, static_cast<int>(ord.size()));
  return ord;
}

using ThreadKey = std::pair<int, uint32_t>;  // process ordinal, thread index

void add_thread_counters(std::vector<ThreadRow>& into, const std::map<Process, int>& into_ord,
                         const std::vector<ThreadRow>& from,
                         const std::map<Process, int>& from_ord) {
  std::map<ThreadKey, const ThreadRow*> by_key;
  for (const ThreadRow& t : from) by_key[{from_ord.at({t.host, t.rank, t.pid}), t.thread}] = &t;
  for (ThreadRow& t : into) {
    auto it = by_key.find({into_ord.at({t.host, t.rank, t.pid}), t.thread});
    if (it != by_key.end()) t.counters.add(it->second->counters);
  }
}

// A region only a later run reached: its counts, without times.
Region without_times(Region r) {
  r.time_s = r.exclusive_time_s = r.thread_time_s = r.open_time_s = r.cpu_time_s = 0;
  r.run_delay_s = 0;
  r.has_cpu_time = r.has_run_delay = false;
  for (ThreadRow& t : r.threads) t.time_s = t.exclusive_time_s = t.cpu_time_s = t.run_delay_s = 0;
  return r;
}

// Regions by path, for lookups in O(1) (performance, issue 16: a linear
// Profile::find per region made merging 100,000 regions quadratic).
struct PathHash {
  size_t operator()(const std::vector<std::string>* path) const {
    size_t h = path->size();
    for (const std::string& s : *path) h = h * 1000003u ^ std::hash<std::string>()(s);
    return h;
  }
};
struct PathEq {
  bool operator()(const std::vector<std::string>* a, const std::vector<std::string>* b) const {
    return *a == *b;
  }
};
using RegionIndex =
    std::unordered_map<const std::vector<std::string>*, const Region*, PathHash, PathEq>;

RegionIndex index_of(const Profile& p) {
  RegionIndex idx;
  idx.reserve(p.regions.size());
  for (const Region& r : p.regions) idx.emplace(&r.path, &r);
  return idx;
}

const Region* find_in(const RegionIndex& idx, const std::vector<std::string>& path) {
  auto it = idx.find(&path);
  return it == idx.end() ? nullptr : it->second;
}

// Adds one later run (index run) into base.
void merge_one(Profile& base, const Profile& p, size_t run, const RunMergeRules& rules,
               std::vector<RunMismatch>* mismatches) {
  const auto base_ord = process_ordinals(base);
  const auto ord = process_ordinals(p);
  const RegionIndex in_p = index_of(p);
  for (Region& r : base.regions) {
    if (r.is_program()) continue;
    const Region* o = find_in(in_p, r.path);
    if (o == nullptr) {
      mismatches->push_back({RunMismatch::Kind::kMissing, path_string(r.path), run, r.calls, 0});
      continue;
    }
    if (o->calls != r.calls) {
      mismatches->push_back(
          {RunMismatch::Kind::kCalls, path_string(r.path), run, r.calls, o->calls});
    }
    r.counters.add(o->counters);
    r.exclusive_counters.add(o->exclusive_counters);
    add_thread_counters(r.threads, base_ord, o->threads, ord);
  }
  std::vector<Region> extra;  // added after the lookups: the index points into base
  const RegionIndex in_base = index_of(base);
  for (const Region& o : p.regions) {
    if (o.is_program() || find_in(in_base, o.path) != nullptr) continue;
    mismatches->push_back({RunMismatch::Kind::kExtra, path_string(o.path), run, 0, o.calls});
    if (rules.keep_unmatched) extra.push_back(without_times(o));
  }
  if (extra.empty()) return;
  for (Region& r : extra) base.regions.push_back(std::move(r));
  sort_tree(base.regions);
}

}  // namespace

Profile merge_runs(std::vector<Profile> runs, const RunMergeRules& rules,
                   std::vector<RunMismatch>* mismatches) {
  Profile base = std::move(runs.front());
  std::set<std::string> names(base.counters.begin(), base.counters.end());
  for (size_t i = 1; i < runs.size(); ++i) {
    names.insert(runs[i].counters.begin(), runs[i].counters.end());
    merge_one(base, runs[i], i, rules, mismatches);
    runs[i] = Profile{};  // released now: the merged profile grows as the inputs go
  }
  base.counters.assign(names.begin(), names.end());
  return base;
}

Profile merge_passes(std::vector<Profile> passes) {
  if (passes.empty()) return Profile{};
  std::vector<RunMismatch> found;
  Profile merged = merge_runs(std::move(passes), {}, &found);
  std::vector<std::string> differ, missing, extra;
  for (const RunMismatch& m : found) {
    const std::string run = "run " + std::to_string(m.run + 1);
    switch (m.kind) {
      case RunMismatch::Kind::kCalls:
        differ.push_back("'" + m.path + "' " + std::to_string(m.first_calls) +
                         " calls in run 1, " + std::to_string(m.run_calls) + " in " + run);
        break;
      case RunMismatch::Kind::kMissing:
        missing.push_back("'" + m.path + "' not reached in " + run);
        break;
      case RunMismatch::Kind::kExtra:
        extra.push_back("'" + m.path + "' reached only in " + run);
        break;
    }
  }
  if (!found.empty()) {
    std::string note =
        "the program is not deterministic: its runs (one per counter group) differ, so the "
        "counts of these regions describe different executions:";
    if (!differ.empty()) note += " calls differ for " + short_list(differ) + ".";
    if (!missing.empty()) note += " " + short_list(missing) + ".";
    if (!extra.empty()) note += " " + short_list(extra) + " (left out).";
    merged.notes.push_back(note);
  }
  return merged;
}

std::string short_list(const std::vector<std::string>& items) {
  std::string s;
  const size_t shown = std::min<size_t>(items.size(), 5);
  for (size_t i = 0; i < shown; ++i) s += (i ? "; " : "") + items[i];
  if (items.size() > shown) s += "; and " + std::to_string(items.size() - shown) + " more";
  return s;
}

}  // namespace rprof
