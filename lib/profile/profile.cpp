#include "profile/profile.h"

#include <algorithm>
#include <functional>
#include <set>

namespace rprof {
namespace {

constexpr double kNs = 1e-9;

CounterMap to_map(const std::vector<std::string>& names,
                  const std::vector<uint64_t>& values) {
  CounterMap m;
  m.reserve(std::min(names.size(), values.size()));
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    m[names[i]] = values[i];
  }
  return m;
}

std::vector<std::string> node_path(const RawProfile& raw, const RawThread& t,
                                   size_t i) {
  std::vector<std::string> path;
  for (int64_t n = static_cast<int64_t>(i); n >= 0;
       n = t.nodes[static_cast<size_t>(n)].parent) {
    path.push_back(raw.region_names.at(t.nodes[static_cast<size_t>(n)].region));
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string region_name_or(const RawProfile& raw, uint32_t id) {
  auto it = raw.region_names.find(id);
  return it == raw.region_names.end() ? std::string() : it->second;
}

}  // namespace

namespace {

Spread spread_of(const std::vector<double>& v) {
  Spread s;
  s.count = v.size();
  if (v.empty()) return s;
  s.min_s = *std::min_element(v.begin(), v.end());
  s.max_s = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean_s = sum / static_cast<double>(v.size());
  return s;
}

}  // namespace

RepeatTimes RepeatTimes::of(std::vector<double> times) {
  RepeatTimes r;
  if (times.empty()) return r;
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  r.runs = n;
  r.min_s = times.front();
  r.max_s = times.back();
  r.median_s = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  return r;
}

Spread Region::thread_spread() const {
  std::vector<double> t;
  for (const ThreadRow& r : threads) t.push_back(r.time_s);
  return spread_of(t);
}

Spread Region::process_spread() const {
  std::map<std::pair<std::string, int64_t>, double> by_process;
  for (const ThreadRow& r : threads) {
    double& t = by_process[{r.host, r.pid}];
    t = std::max(t, r.time_s);
  }
  std::vector<double> t;
  for (const auto& [k, v] : by_process) t.push_back(v);
  return spread_of(t);
}

int Region::processes_on_one_host() const {
  std::map<std::string, std::set<int64_t>> pids;
  for (const ThreadRow& r : threads) pids[r.host].insert(r.pid);
  size_t most = 0;
  for (const auto& [host, set] : pids) most = std::max(most, set.size());
  return static_cast<int>(most);
}

const Region* Profile::find(const std::vector<std::string>& path) const {
  for (const Region& r : regions) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

std::string path_string(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) {
    if (!s.empty()) s += '/';
    s += p;
  }
  return s;
}

void sort_tree(std::vector<Region>& regions) {
  // Children of each path, ordered by time; then a depth-first walk that
  // picks the order, and the regions moved once into it (performance, issue
  // 16: no copies of 100,000 regions).
  std::map<std::vector<std::string>, std::vector<size_t>> children;
  for (size_t i = 0; i < regions.size(); ++i) {
    std::vector<std::string> parent(regions[i].path.begin(),
                                    regions[i].path.end() - 1);
    children[parent].push_back(i);
  }
  std::vector<size_t> order;
  order.reserve(regions.size());
  std::vector<bool> placed(regions.size(), false);
  std::function<void(const std::vector<std::string>&)> walk =
      [&](const std::vector<std::string>& parent) {
        auto it = children.find(parent);
        if (it == children.end()) return;
        std::vector<size_t> kids = std::move(it->second);
        children.erase(it);  // a path seen twice is walked once
        std::stable_sort(kids.begin(), kids.end(), [&](size_t a, size_t b) {
          if (regions[a].is_program() != regions[b].is_program()) {
            return regions[a].is_program();
          }
          return regions[a].time_s > regions[b].time_s;
        });
        for (size_t k : kids) {
          order.push_back(k);
          placed[k] = true;
          walk(regions[k].path);
        }
      };
  walk({});
  // Regions whose parent path is missing (cannot happen for raw input, but a
  // hand-edited profile may) are kept at the end rather than dropped.
  for (size_t i = 0; i < regions.size(); ++i) {
    if (!placed[i]) order.push_back(i);
  }
  // Permuted in place, cycle by cycle: position k takes regions[order[k]]
  // (no second array of 100,000 regions).
  children.clear();
  std::vector<bool> done(regions.size(), false);
  for (size_t start = 0; start < regions.size(); ++start) {
    if (done[start]) continue;
    Region held = std::move(regions[start]);
    size_t k = start;
    while (order[k] != start) {
      regions[k] = std::move(regions[order[k]]);
      done[k] = true;
      k = order[k];
    }
    regions[k] = std::move(held);
    done[k] = true;
  }
}

Profile aggregate(const std::vector<RawProfile>& raws, RunInfo run) {
  Profile p;
  // Two passes: the distinct paths first (in path order), then the regions,
  // built in place in an array of exactly that size: no second copy of
  // 100,000 regions, and no moved-from ones beside them.
  using PathIndex = std::map<std::vector<std::string>, size_t>;
  PathIndex by_path;
  std::vector<std::vector<std::vector<PathIndex::iterator>>> node_region(raws.size());
  for (size_t k = 0; k < raws.size(); ++k) {
    const RawProfile& raw = raws[k];
    node_region[k].resize(raw.threads.size());
    for (size_t ti = 0; ti < raw.threads.size(); ++ti) {
      const RawThread& t = raw.threads[ti];
      node_region[k][ti].reserve(t.nodes.size());
      for (size_t i = 0; i < t.nodes.size(); ++i) {
        node_region[k][ti].push_back(by_path.emplace(node_path(raw, t, i), 0).first);
      }
    }
  }
  const bool program_row = run.wall_time_s > 0;
  const std::vector<std::string> program_path = {kProgramRegion};
  const bool program_new = program_row && by_path.emplace(program_path, 0).second;
  p.regions.resize(by_path.size());
  {
    size_t next = 0;
    for (auto& [path, index] : by_path) {
      index = next++;
      p.regions[index].path = path;
      p.regions[index].name = path.back();
    }
  }
  std::set<std::string> counter_names;
  std::set<std::string> backends;
  // Regions of an instrumented program timed for their first calls only
  // (kind "throttled"): name -> calls measured on a thread.
  std::map<std::string, uint64_t> throttled;
  int threads = 0;
  for (size_t k = 0; k < raws.size(); ++k) {
    const RawProfile& raw = raws[k];
    backends.insert(raw.backend);
    counter_names.insert(raw.counters.begin(), raw.counters.end());
    if (run.host.empty()) run.host = raw.host;
    if (run.start_unix_s == 0) run.start_unix_s = raw.start_unix_s;
    if (raw.reason == "signal") {
      p.notes.push_back("process " + std::to_string(raw.pid) +
                        " was stopped by signal " + std::to_string(raw.signal) +
                        ": its regions are those completed before it");
    }
    for (size_t ti = 0; ti < raw.threads.size(); ++ti) {
      const RawThread& t = raw.threads[ti];
      // Threads that called a marker: the runtime creates the main thread's
      // tables at start-up, before any marker (lib/runtime/signals.h).
      threads += !t.nodes.empty() || !t.errors.empty();
      for (size_t i = 0; i < t.nodes.size(); ++i) {
        const RawNode& n = t.nodes[i];
        Region& r = p.regions[node_region[k][ti][i]->second];
        ThreadRow row;
        row.host = raw.host;
        row.pid = raw.pid;
        row.rank = raw.rank;
        row.thread = t.index;
        row.tid = t.tid;
        row.calls = n.calls;
        row.time_s = static_cast<double>(n.incl_ns) * kNs;
        row.exclusive_time_s = static_cast<double>(n.excl_ns) * kNs;
        row.counters = to_map(raw.counters, n.incl);
        CounterMap excl = to_map(raw.counters, n.excl);
        // The runtime's CPU time counter is a time, not a count: moved out.
        if (auto c = row.counters.find(RPROF_CPU_TIME_COUNTER); c != row.counters.end()) {
          row.cpu_time_s = static_cast<double>(c->second) * kNs;
          row.counters.erase(c);
          excl.erase(RPROF_CPU_TIME_COUNTER);
          r.cpu_time_s += row.cpu_time_s;
          r.has_cpu_time = true;
        }
        // So is the run delay read beside it.
        if (auto c = row.counters.find(RPROF_RUN_DELAY_COUNTER); c != row.counters.end()) {
          row.run_delay_s = static_cast<double>(c->second) * kNs;
          row.counters.erase(c);
          excl.erase(RPROF_RUN_DELAY_COUNTER);
          r.run_delay_s += row.run_delay_s;
          r.has_run_delay = true;
        }
        if (excl == row.counters) excl = row.counters;  // a leaf: one copy for both
        r.calls += n.calls;
        r.time_s = std::max(r.time_s, row.time_s);
        r.exclusive_time_s = std::max(r.exclusive_time_s, row.exclusive_time_s);
        r.thread_time_s += row.time_s;
        r.open_calls += n.open_calls;
        r.open_time_s = std::max(r.open_time_s, static_cast<double>(n.open_ns) * kNs);
        if (n.open_calls > 0) r.complete = false;
        r.work_calls += n.work_calls;
        r.work_flops += n.work_flops;
        r.work_bytes += n.work_bytes;
        r.counters.add(row.counters);
        r.exclusive_counters.add(excl);
        r.threads.push_back(std::move(row));
      }
      for (const RawError& e : t.errors) {
        if (e.kind == "throttled") {  // not an error: a region timed for its first calls
          throttled[region_name_or(raw, e.got)] = std::max<uint64_t>(
              throttled[region_name_or(raw, e.got)], e.count);
          continue;
        }
        MarkerError me;
        me.kind = e.kind;
        me.expected = region_name_or(raw, e.expected);
        me.got = region_name_or(raw, e.got);
        me.count = e.count;
        me.pid = raw.pid;
        me.thread = t.index;
        p.errors.push_back(std::move(me));
      }
    }
  }
  if (run.backend.empty()) {
    for (const std::string& b : backends) {
      run.backend += (run.backend.empty() ? "" : "+") + b;
    }
  }
  run.processes = static_cast<int>(raws.size());
  std::set<int64_t> ranks;
  for (const RawProfile& raw : raws) {
    run.world_size = std::max<int>(run.world_size, static_cast<int>(raw.world_size));
    if (raw.rank >= 0) ranks.insert(raw.rank);
  }
  run.missing_ranks.clear();
  for (int r = 0; r < run.world_size; ++r) {
    if (!ranks.count(r)) run.missing_ranks.push_back(r);
  }
  if (!run.missing_ranks.empty()) {
    std::string list;
    for (int r : run.missing_ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    p.notes.push_back("rank" + std::string(run.missing_ranks.size() > 1 ? "s " : " ") + list +
                      " of " + std::to_string(run.world_size) +
                      " left no profile (died or was killed before flushing); the other "
                      "ranks' results are complete");
  }
  if (!throttled.empty()) {
    std::string list;
    size_t shown = 0;
    for (const auto& [name, calls] : throttled) {
      if (shown++ == 8) {
        list += ", and " + std::to_string(throttled.size() - 8) + " more";
        break;
      }
      list += (list.empty() ? "" : ", ") + name;
    }
    p.notes.push_back(
        "timed for their first " + std::to_string(throttled.begin()->second) +
        " calls on a thread only (each took under 1 us on average, little more than timing "
        "its entry and exit costs): " + list +
        "; their later calls, time and counts, are in the enclosing region's");
  }
  run.threads = threads;
  if (program_new) {
    Region& prog = p.regions[by_path.at(program_path)];
    prog.calls = 1;
    prog.time_s = run.wall_time_s;
    prog.thread_time_s = run.wall_time_s;
    double top = 0;
    for (const Region& r : p.regions) {
      if (r.path.size() == 1 && &r != &prog) top += r.time_s;
    }
    prog.exclusive_time_s = std::max(0.0, run.wall_time_s - top);
    prog.complete = run.signal == 0;
  }
  node_region.clear();
  by_path.clear();  // its keys repeat every path
  sort_tree(p.regions);
  counter_names.erase(RPROF_CPU_TIME_COUNTER);
  counter_names.erase(RPROF_RUN_DELAY_COUNTER);
  p.counters.assign(counter_names.begin(), counter_names.end());
  p.run = std::move(run);
  return p;
}

}  // namespace rprof
