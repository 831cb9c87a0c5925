#include "profile/profile_json.h"

#include <filesystem>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"

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

std::vector<ThreadRow> thread_rows(const json& cols, const JsonReader& r) {
  const size_t n = r.get<size_t>(cols, "rows");
  auto column = [&]<class T>(const char* key, std::vector<T>* out) {
    *out = r.get<std::vector<T>>(cols, key);
    if (out->size() != n) r.fail(std::string("threads.") + key + " has the wrong length");
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
  const json counters = r.get_or<json>(cols, "counters", json::object());
  for (const auto& [k, v] : counters.items()) {
    std::vector<uint64_t> col;
    try {
      col = v.get<std::vector<uint64_t>>();
    } catch (const json::exception&) {
      r.fail("threads.counters." + k + " is not a list of counts");
    }
    if (col.size() != n) r.fail("threads.counters." + k + " has the wrong length");
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
    if (g.is_function()) {
      j["function"] = {{"object", g.fn_object},
                       {"symbol", g.fn_symbol},
                       {"source", g.fn_source},
                       {"inclusive_counters", counters_json(g.fn_inclusive)}};
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
  const JsonReader r(file, "rprof profile");
  if (format_of(doc) != "rprof-profile") {
    r.fail("missing \"format\": \"rprof-profile\" (a foreign file?)");
  }
  Profile p;
  p.schema_version = r.get<int>(doc, "schema_version");
  if (p.schema_version != kProfileSchemaVersion) {
    r.fail("schema_version " + std::to_string(p.schema_version) +
                  " is not supported (this rprof reads version " +
                  std::to_string(kProfileSchemaVersion) + ")");
  }
  const json& run = r.get<json>(doc, "run");
  p.run.command = r.get<std::vector<std::string>>(run, "command");
  p.run.backend = r.get<std::string>(run, "backend");
  p.run.host = r.get<std::string>(run, "host");
  p.run.start_unix_s = r.get<int64_t>(run, "start_unix_s");
  p.run.wall_time_s = r.get<double>(run, "wall_time_s");
  p.run.user_time_s = r.get_or<double>(run, "user_time_s", 0);
  p.run.system_time_s = r.get_or<double>(run, "system_time_s", 0);
  p.run.exit_code = r.get<int>(run, "exit_code");
  p.run.signal = r.get<int>(run, "signal");
  p.run.processes = r.get<int>(run, "processes");
  p.run.threads = r.get<int>(run, "threads");
  p.run.world_size = r.get_or<int>(run, "world_size", -1);
  p.run.missing_ranks = r.get_or<std::vector<int>>(run, "missing_ranks", {});
  p.counters = r.get<std::vector<std::string>>(doc, "counters");
  const json& regions = r.get<json>(doc, "regions");
  if (!regions.is_array()) r.fail("'regions' is not an array");
  for (const json& j : regions) {
    Region g;
    g.name = r.get<std::string>(j, "name");
    g.path = r.get<std::vector<std::string>>(j, "path");
    if (g.path.empty() || g.path.back() != g.name) {
      r.fail("region '" + g.name + "' has a path that does not end in its name");
    }
    g.calls = r.get<uint64_t>(j, "calls");
    g.time_s = r.get<double>(j, "time_s");
    g.exclusive_time_s = r.get<double>(j, "exclusive_time_s");
    g.thread_time_s = r.get<double>(j, "thread_time_s");
    g.complete = r.get<bool>(j, "complete");
    g.open_calls = r.get_or<uint64_t>(j, "open_calls", 0);
    g.open_time_s = r.get_or<double>(j, "open_time_s", 0);
    if (j.contains("declared_work")) {
      const json& w = j["declared_work"];
      g.work_calls = r.get<uint64_t>(w, "calls");
      g.work_flops = r.get<double>(w, "flops");
      g.work_bytes = r.get<double>(w, "bytes");
    }
    if (j.contains("function")) {
      const json& f = j["function"];
      g.fn_object = r.get<std::string>(f, "object");
      g.fn_symbol = r.get<std::string>(f, "symbol");
      g.fn_source = r.get_or<std::string>(f, "source", "");
      g.fn_inclusive = r.get_or<CounterMap>(f, "inclusive_counters", {});
    }
    g.counters = r.get_or<CounterMap>(j, "counters", {});
    g.exclusive_counters = r.get_or<CounterMap>(j, "exclusive_counters", {});
    if (j.contains("threads")) g.threads = thread_rows(j["threads"], r);
    p.regions.push_back(std::move(g));
  }
  for (const json& e : r.get_or<json>(doc, "errors", json::array())) {
    MarkerError me;
    me.kind = r.get<std::string>(e, "kind");
    me.expected = r.get<std::string>(e, "expected");
    me.got = r.get<std::string>(e, "got");
    me.count = r.get<uint64_t>(e, "count");
    me.pid = r.get<int64_t>(e, "pid");
    me.thread = r.get<uint32_t>(e, "thread");
    p.errors.push_back(std::move(me));
  }
  p.notes = r.get_or<std::vector<std::string>>(doc, "notes", {});
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
