#include "profile/profile_json.h"

#include <filesystem>

#include "common/error.h"
#include "common/fs.h"

namespace rprof {
namespace {

using nlohmann::json;

json counters_json(const CounterMap& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

std::string format_of(const json& doc) {
  if (!doc.is_object()) return "";
  auto it = doc.find("format");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw Error(file + ": not a valid rprof profile: " + what);
}

template <class T>
T get(const json& obj, const char* key, const std::string& file) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(file, std::string("missing '") + key + "'");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    bad(file, std::string("'") + key + "' has the wrong type");
  }
}

template <class T>
T get_or(const json& obj, const char* key, T fallback, const std::string& file) {
  return obj.contains(key) ? get<T>(obj, key, file) : fallback;
}

// Per-thread rows are stored by column ({"pid": [...], "calls": [...]}):
// a merge of hundreds of ranks holds hundreds of thousands of rows, and
// columns are several times faster to build, write and read than objects.
json thread_columns(const std::vector<ThreadRow>& rows) {
  std::vector<std::string> host;
  std::vector<int64_t> pid, rank, tid;
  std::vector<uint32_t> thread;
  std::vector<uint64_t> calls;
  std::vector<double> time_s, excl_s;
  std::map<std::string, std::vector<uint64_t>> counters;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ThreadRow& t = rows[i];
    host.push_back(t.host);
    pid.push_back(t.pid);
    rank.push_back(t.rank);
    thread.push_back(t.thread);
    tid.push_back(t.tid);
    calls.push_back(t.calls);
    time_s.push_back(t.time_s);
    excl_s.push_back(t.exclusive_time_s);
    for (const auto& [k, v] : t.counters) {
      auto& col = counters[k];
      col.resize(rows.size(), 0);
      col[i] = v;
    }
  }
  json c = json::object();
  for (auto& [k, v] : counters) {
    v.resize(rows.size(), 0);
    c[k] = std::move(v);
  }
  return {{"rows", rows.size()}, {"host", host},   {"pid", pid},
          {"rank", rank},        {"thread", thread}, {"tid", tid},
          {"calls", calls},      {"time_s", time_s}, {"exclusive_time_s", excl_s},
          {"counters", std::move(c)}};
}

std::vector<ThreadRow> thread_rows(const json& cols, const std::string& file) {
  const size_t n = get<size_t>(cols, "rows", file);
  auto column = [&]<class T>(const char* key, std::vector<T>* out) {
    *out = get<std::vector<T>>(cols, key, file);
    if (out->size() != n) bad(file, std::string("threads.") + key + " has the wrong length");
  };
  std::vector<std::string> host;
  std::vector<int64_t> pid, rank, tid;
  std::vector<uint32_t> thread;
  std::vector<uint64_t> calls;
  std::vector<double> time_s, excl_s;
  column("host", &host);
  column("pid", &pid);
  column("rank", &rank);
  column("thread", &thread);
  column("tid", &tid);
  column("calls", &calls);
  column("time_s", &time_s);
  column("exclusive_time_s", &excl_s);
  std::vector<ThreadRow> rows(n);
  for (size_t i = 0; i < n; ++i) {
    rows[i] = ThreadRow{host[i], pid[i], rank[i], thread[i], tid[i], calls[i],
                        time_s[i], excl_s[i], {}};
  }
  const json counters = get_or<json>(cols, "counters", json::object(), file);
  for (const auto& [k, v] : counters.items()) {
    std::vector<uint64_t> col;
    try {
      col = v.get<std::vector<uint64_t>>();
    } catch (const json::exception&) {
      bad(file, "threads.counters." + k + " is not a list of counts");
    }
    if (col.size() != n) bad(file, "threads.counters." + k + " has the wrong length");
    for (size_t i = 0; i < n; ++i) rows[i].counters[k] = col[i];
  }
  return rows;
}

}  // namespace

json profile_to_json(const Profile& p) {
  json doc;
  doc["format"] = "rprof-profile";
  doc["schema_version"] = p.schema_version;
  doc["conventions"] = {
      {"time", "seconds; region time_s is the maximum over threads"},
      {"thread_time_s", "seconds summed over threads"},
      {"flops", "FMA = 2 FLOPs"},
      {"bytes", "bytes crossing the named boundary; GB = 1e9 bytes"},
  };
  const RunInfo& r = p.run;
  doc["run"] = {
      {"command", r.command},         {"backend", r.backend},
      {"host", r.host},               {"start_unix_s", r.start_unix_s},
      {"wall_time_s", r.wall_time_s}, {"user_time_s", r.user_time_s},
      {"system_time_s", r.system_time_s}, {"exit_code", r.exit_code},
      {"signal", r.signal},           {"processes", r.processes},
      {"world_size", r.world_size},   {"missing_ranks", r.missing_ranks},
      {"threads", r.threads},
  };
  doc["counters"] = p.counters;
  json regions = json::array();
  for (const Region& g : p.regions) {
    json j;
    j["name"] = g.name;
    j["path"] = g.path;
    j["depth"] = g.depth();
    j["calls"] = g.calls;
    j["time_s"] = g.time_s;
    j["exclusive_time_s"] = g.exclusive_time_s;
    j["thread_time_s"] = g.thread_time_s;
    const Spread ts = g.thread_spread();
    j["thread_spread"] = {{"threads", ts.count}, {"min_time_s", ts.min_s},
                          {"mean_time_s", ts.mean_s}, {"max_time_s", ts.max_s},
                          {"imbalance", ts.imbalance()}};
    const Spread ps = g.process_spread();
    if (ps.count > 1) {
      j["process_spread"] = {{"processes", ps.count}, {"min_time_s", ps.min_s},
                             {"mean_time_s", ps.mean_s}, {"max_time_s", ps.max_s},
                             {"imbalance", ps.imbalance()}};
    }
    if (r.wall_time_s > 0) j["percent_of_run"] = 100.0 * g.time_s / r.wall_time_s;
    j["complete"] = g.complete;
    j["open_calls"] = g.open_calls;
    j["open_time_s"] = g.open_time_s;
    if (g.work_calls > 0) {
      j["declared_work"] = {{"calls", g.work_calls},
                            {"flops", g.work_flops},
                            {"bytes", g.work_bytes}};
    }
    j["counters"] = counters_json(g.counters);
    j["exclusive_counters"] = counters_json(g.exclusive_counters);
    j["threads"] = thread_columns(g.threads);
    regions.push_back(std::move(j));
  }
  doc["regions"] = std::move(regions);
  json errors = json::array();
  for (const MarkerError& e : p.errors) {
    errors.push_back({{"kind", e.kind},
                      {"expected", e.expected},
                      {"got", e.got},
                      {"count", e.count},
                      {"pid", e.pid},
                      {"thread", e.thread}});
  }
  doc["errors"] = std::move(errors);
  doc["notes"] = p.notes;
  return doc;
}

Profile profile_from_json(const json& doc, const std::string& file) {
  if (format_of(doc) != "rprof-profile") {
    bad(file, "missing \"format\": \"rprof-profile\" (a foreign file?)");
  }
  Profile p;
  p.schema_version = get<int>(doc, "schema_version", file);
  if (p.schema_version != kProfileSchemaVersion) {
    bad(file, "schema_version " + std::to_string(p.schema_version) +
                  " is not supported (this rprof reads version " +
                  std::to_string(kProfileSchemaVersion) + ")");
  }
  const json& run = get<json>(doc, "run", file);
  p.run.command = get<std::vector<std::string>>(run, "command", file);
  p.run.backend = get<std::string>(run, "backend", file);
  p.run.host = get<std::string>(run, "host", file);
  p.run.start_unix_s = get<int64_t>(run, "start_unix_s", file);
  p.run.wall_time_s = get<double>(run, "wall_time_s", file);
  p.run.user_time_s = get_or<double>(run, "user_time_s", 0, file);
  p.run.system_time_s = get_or<double>(run, "system_time_s", 0, file);
  p.run.exit_code = get<int>(run, "exit_code", file);
  p.run.signal = get<int>(run, "signal", file);
  p.run.processes = get<int>(run, "processes", file);
  p.run.threads = get<int>(run, "threads", file);
  p.run.world_size = get_or<int>(run, "world_size", -1, file);
  p.run.missing_ranks = get_or<std::vector<int>>(run, "missing_ranks", {}, file);
  p.counters = get<std::vector<std::string>>(doc, "counters", file);
  const json& regions = get<json>(doc, "regions", file);
  if (!regions.is_array()) bad(file, "'regions' is not an array");
  for (const json& j : regions) {
    Region g;
    g.name = get<std::string>(j, "name", file);
    g.path = get<std::vector<std::string>>(j, "path", file);
    if (g.path.empty() || g.path.back() != g.name) {
      bad(file, "region '" + g.name + "' has a path that does not end in its name");
    }
    g.calls = get<uint64_t>(j, "calls", file);
    g.time_s = get<double>(j, "time_s", file);
    g.exclusive_time_s = get<double>(j, "exclusive_time_s", file);
    g.thread_time_s = get<double>(j, "thread_time_s", file);
    g.complete = get<bool>(j, "complete", file);
    g.open_calls = get_or<uint64_t>(j, "open_calls", 0, file);
    g.open_time_s = get_or<double>(j, "open_time_s", 0, file);
    if (j.contains("declared_work")) {
      const json& w = j["declared_work"];
      g.work_calls = get<uint64_t>(w, "calls", file);
      g.work_flops = get<double>(w, "flops", file);
      g.work_bytes = get<double>(w, "bytes", file);
    }
    g.counters = get_or<CounterMap>(j, "counters", {}, file);
    g.exclusive_counters = get_or<CounterMap>(j, "exclusive_counters", {}, file);
    if (j.contains("threads")) g.threads = thread_rows(j["threads"], file);
    p.regions.push_back(std::move(g));
  }
  for (const json& e : get_or<json>(doc, "errors", json::array(), file)) {
    MarkerError me;
    me.kind = get<std::string>(e, "kind", file);
    me.expected = get<std::string>(e, "expected", file);
    me.got = get<std::string>(e, "got", file);
    me.count = get<uint64_t>(e, "count", file);
    me.pid = get<int64_t>(e, "pid", file);
    me.thread = get<uint32_t>(e, "thread", file);
    p.errors.push_back(std::move(me));
  }
  p.notes = get_or<std::vector<std::string>>(doc, "notes", {}, file);
  return p;
}

Profile load_profile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string saved = (fs::path(path) / "profile.json").string();
    if (fs::exists(saved, ec)) return load_profile(saved);
    std::vector<std::string> files = list_raw_profiles(path);
    const fs::path raw_dir = fs::path(path) / "raw";
    if (files.empty() && fs::is_directory(raw_dir, ec)) {
      files = list_raw_profiles(raw_dir.string());
    }
    if (files.empty()) {
      throw Error(path + ": no profile.json and no raw profiles (rprof-raw.*.json) in it");
    }
    return aggregate(read_raw_profiles(files, nullptr), RunInfo{});
  }
  if (!fs::exists(path, ec)) throw Error(path + ": no such file or directory");
  const std::string text = read_file(path);
  if (text.empty()) throw Error(path + ": the file is empty");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    throw Error(path + ": not JSON (truncated or corrupt?)");
  }
  const std::string format = format_of(doc);
  if (format == "rprof-raw") {
    return aggregate({parse_raw_profile(text, path)}, RunInfo{});
  }
  return profile_from_json(doc, path);
}

}  // namespace rprof
