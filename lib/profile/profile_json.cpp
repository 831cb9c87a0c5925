#include "profile/profile_json.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_out.h"
#include "common/json_reader.h"
#include "common/limits.h"
#include "profile/raw_profile.h"
#include "profile/run_layout.h"

namespace rprof {
namespace {

using nlohmann::json;

std::string format_of(const json& doc) {
  if (!doc.is_object()) return "";
  auto it = doc.find("format");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<ThreadRow> thread_rows(const json& cols, const JsonReader& r) {
  const size_t n = r.get<size_t>(cols, "rows");
  auto column = [&]<class T>(const char* key, std::vector<T>* out) {
    const json& c = r.array(cols, key, n);
    if (c.size() != n) r.fail_at(key, fmt::format("{} entries, but rows is {}", c.size(), n));
    *out = r.get<std::vector<T>>(cols, key);
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
    if (time_s[i] < 0 || excl_s[i] < 0) {
      r.at(time_s[i] < 0 ? "time_s" : "exclusive_time_s").at(i).fail("a time is negative");
    }
    rows[i] = ThreadRow{host[i], pid[i], rank[i], thread[i], tid[i], calls[i],
                        time_s[i], excl_s[i], {}};
  }
  if (cols.contains("cpu_time_s")) {
    std::vector<double> cpu_s;
    column("cpu_time_s", &cpu_s);
    for (size_t i = 0; i < n; ++i) {
      if (cpu_s[i] < 0) r.at("cpu_time_s").at(i).fail("a time is negative");
      rows[i].cpu_time_s = cpu_s[i];
    }
  }
  if (cols.contains("run_delay_s")) {
    std::vector<double> delay_s;
    column("run_delay_s", &delay_s);
    for (size_t i = 0; i < n; ++i) {
      if (delay_s[i] < 0) r.at("run_delay_s").at(i).fail("a time is negative");
      rows[i].run_delay_s = delay_s[i];
    }
  }
  if (!cols.contains("counters")) return rows;
  const json& counters = r.object(cols, "counters");
  if (counters.size() > limits::kCounters) {
    r.fail_at("counters", fmt::format("{} counters are beyond the limit of {}", counters.size(),
                                      limits::kCounters));
  }
  const JsonReader rc = r.at("counters");
  for (const auto& [k, v] : counters.items()) {
    if (!v.is_array() || v.size() != n) {
      rc.fail_at(k, fmt::format("expected a list of {} counts", n));
    }
    const std::vector<uint64_t> col = rc.get<std::vector<uint64_t>>(counters, k.c_str());
    for (size_t i = 0; i < n; ++i) rows[i].counters[k] = col[i];
  }
  return rows;
}

// Equal counter maps of a region (a leaf's inclusive and exclusive, its one
// thread row's) kept once: 100,000 regions read back in a third of the space.
void share_equal_counters(Region& g) {
  if (g.exclusive_counters == g.counters) g.exclusive_counters = g.counters;
  for (ThreadRow& t : g.threads) {
    if (t.counters == g.counters) t.counters = g.counters;
  }
}

CounterMap counter_map(const json& j, const char* key, const JsonReader& r) {
  if (!j.contains(key)) return {};
  const json& m = r.object(j, key);
  if (m.size() > limits::kCounters) {
    r.fail_at(key, fmt::format("{} counters are beyond the limit of {}", m.size(),
                               limits::kCounters));
  }
  return CounterMap(r.get<std::map<std::string, uint64_t>>(j, key));
}

// One element of "regions", checked; ri names it ("regions[3]").
Region region_from_json(const json& j, const JsonReader& ri) {
  namespace lim = limits;
  if (!j.is_object()) ri.fail("expected an object");
  Region g;
  g.name = ri.str(j, "name", lim::kNameBytes);
  ri.array(j, "path", lim::kPathDepth);
  g.path = ri.get<std::vector<std::string>>(j, "path");
  if (g.path.empty() || g.path.back() != g.name) {
    ri.fail_at("path", "does not end in the region's name '" + g.name + "'");
  }
  g.calls = ri.get<uint64_t>(j, "calls");
  g.time_s = ri.nonneg(j, "time_s");
  g.exclusive_time_s = ri.nonneg(j, "exclusive_time_s");
  g.thread_time_s = ri.nonneg(j, "thread_time_s");
  g.has_cpu_time = j.contains("cpu_time_s");
  g.cpu_time_s = g.has_cpu_time ? ri.nonneg(j, "cpu_time_s") : 0;
  g.has_run_delay = j.contains("run_delay_s");
  g.run_delay_s = g.has_run_delay ? ri.nonneg(j, "run_delay_s") : 0;
  g.complete = ri.get<bool>(j, "complete");
  g.open_calls = ri.get_or<uint64_t>(j, "open_calls", 0);
  g.open_time_s = j.contains("open_time_s") ? ri.nonneg(j, "open_time_s") : 0;
  if (j.contains("repeat_times")) {
    const json& t = ri.object(j, "repeat_times");
    const JsonReader rt = ri.at("repeat_times");
    g.repeat.runs = static_cast<size_t>(rt.in_range(t, "runs", 1, 1000000));
    g.repeat.min_s = rt.nonneg(t, "min_time_s");
    g.repeat.median_s = rt.nonneg(t, "median_time_s");
    g.repeat.max_s = rt.nonneg(t, "max_time_s");
    if (!(g.repeat.min_s <= g.repeat.median_s && g.repeat.median_s <= g.repeat.max_s)) {
      rt.fail("expected min_time_s <= median_time_s <= max_time_s");
    }
  }
  if (j.contains("declared_work")) {
    const json& w = ri.object(j, "declared_work");
    const JsonReader rw = ri.at("declared_work");
    g.work_calls = rw.get<uint64_t>(w, "calls");
    g.work_flops = rw.nonneg(w, "flops");
    g.work_bytes = rw.nonneg(w, "bytes");
  }
  if (j.contains("function")) {
    const json& f = ri.object(j, "function");
    const JsonReader rf = ri.at("function");
    g.fn_object = rf.str(f, "object", lim::kNameBytes);
    g.fn_symbol = rf.str(f, "symbol", lim::kNameBytes);
    g.fn_source = f.contains("source") ? rf.str(f, "source", lim::kNameBytes) : "";
    g.fn_inclusive = counter_map(f, "inclusive_counters", rf);
    if (f.contains("sampling")) {
      const json& s = rf.object(f, "sampling");
      const JsonReader rs = rf.at("sampling");
      g.fn_sampled = true;
      g.fn_samples = rs.get<uint64_t>(s, "samples");
      g.fn_period_s = rs.nonneg(s, "period_s");
      // Threads of every process of a run: far above what a run has.
      g.fn_threads = static_cast<unsigned>(
          rs.in_range(s, "threads", 0, static_cast<int64_t>(lim::kThreads * lim::kThreads)));
    }
  }
  g.counters = counter_map(j, "counters", ri);
  g.exclusive_counters = counter_map(j, "exclusive_counters", ri);
  if (j.contains("threads")) g.threads = thread_rows(ri.object(j, "threads"), ri.at("threads"));
  share_equal_counters(g);
  return g;
}

}  // namespace

namespace {

namespace jo = json_out;

void write_counters(jo::Writer& w, const CounterMap& m) {
  w.begin_object();
  for (const auto& [k, v] : m) w.member(k, v);
  w.end_object();
}

void write_spread(jo::Writer& w, const Spread& s, const char* count_key) {
  w.begin_object();
  w.member("imbalance", s.imbalance());
  w.member("max_time_s", s.max_s);
  w.member("mean_time_s", s.mean_s);
  w.member("min_time_s", s.min_s);
  w.member(count_key, static_cast<uint64_t>(s.count));
  w.end_object();
}

template <class T, class Get>
void write_column(jo::Writer& w, const char* key, const std::vector<ThreadRow>& rows, Get get) {
  w.key(key).begin_array();
  for (const ThreadRow& t : rows) w.value(static_cast<T>(get(t)));
  w.end_array();
}

// Per-thread rows are stored by column ({"pid": [...], "calls": [...]}):
// a merge of hundreds of ranks holds hundreds of thousands of rows, and
// columns are several times faster to build, write and read than objects.
void write_thread_columns(jo::Writer& w, const std::vector<ThreadRow>& rows, bool has_cpu_time,
                          bool has_run_delay) {
  w.begin_object();
  write_column<uint64_t>(w, "calls", rows, [](const ThreadRow& t) { return t.calls; });
  std::map<std::string, std::vector<uint64_t>> counters;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [k, v] : rows[i].counters) {
      auto& col = counters[k];
      col.resize(rows.size(), 0);
      col[i] = v;
    }
  }
  w.key("counters").begin_object();
  for (auto& [k, col] : counters) {
    col.resize(rows.size(), 0);
    w.key(k).array(col);
  }
  w.end_object();
  if (has_cpu_time) {
    write_column<double>(w, "cpu_time_s", rows, [](const ThreadRow& t) { return t.cpu_time_s; });
  }
  write_column<double>(w, "exclusive_time_s", rows,
                       [](const ThreadRow& t) { return t.exclusive_time_s; });
  w.key("host").begin_array();
  for (const ThreadRow& t : rows) w.value(t.host);
  w.end_array();
  write_column<int64_t>(w, "pid", rows, [](const ThreadRow& t) { return t.pid; });
  write_column<int64_t>(w, "rank", rows, [](const ThreadRow& t) { return t.rank; });
  w.member("rows", static_cast<uint64_t>(rows.size()));
  if (has_run_delay) {
    write_column<double>(w, "run_delay_s", rows, [](const ThreadRow& t) { return t.run_delay_s; });
  }
  write_column<uint64_t>(w, "thread", rows, [](const ThreadRow& t) { return t.thread; });
  write_column<int64_t>(w, "tid", rows, [](const ThreadRow& t) { return t.tid; });
  write_column<double>(w, "time_s", rows, [](const ThreadRow& t) { return t.time_s; });
  w.end_object();
}

// One element of "regions": its measured members, keys sorted; the caller
// ends the object (lib/report adds the analysis' members after these).
void write_region_members(jo::Writer& w, const Region& g, const RunInfo& r) {
  w.member("calls", g.calls);
  w.member("complete", g.complete);
  w.key("counters");
  write_counters(w, g.counters);
  if (g.has_cpu_time) w.member("cpu_time_s", g.cpu_time_s);
  if (g.work_calls > 0) {
    w.key("declared_work").begin_object();
    w.member("bytes", g.work_bytes);
    w.member("calls", g.work_calls);
    w.member("flops", g.work_flops);
    w.end_object();
  }
  w.member("depth", static_cast<uint64_t>(g.depth()));
  w.key("exclusive_counters");
  write_counters(w, g.exclusive_counters);
  w.member("exclusive_time_s", g.exclusive_time_s);
  if (g.is_function()) {
    w.key("function").begin_object();
    w.key("inclusive_counters");
    write_counters(w, g.fn_inclusive);
    w.member("object", g.fn_object);
    if (g.fn_sampled) {
      w.key("sampling").begin_object();
      w.member("period_s", g.fn_period_s);
      w.member("samples", g.fn_samples);
      w.member("threads", static_cast<uint64_t>(g.fn_threads));
      w.end_object();
    }
    w.member("source", g.fn_source);
    w.member("symbol", g.fn_symbol);
    w.end_object();
  }
  w.member("name", g.name);
  w.member("open_calls", g.open_calls);
  w.member("open_time_s", g.open_time_s);
  w.key("path").array(g.path);
  if (r.wall_time_s > 0) w.member("percent_of_run", 100.0 * g.time_s / r.wall_time_s);
  const Spread ps = g.process_spread();
  if (ps.count > 1) {
    w.key("process_spread");
    write_spread(w, ps, "processes");
  }
  if (g.repeat.runs > 0) {
    w.key("repeat_times").begin_object();
    w.member("max_time_s", g.repeat.max_s);
    w.member("median_time_s", g.repeat.median_s);
    w.member("min_time_s", g.repeat.min_s);
    w.member("runs", static_cast<uint64_t>(g.repeat.runs));
    w.member("spread", g.repeat.spread());
    w.end_object();
  }
  if (g.has_run_delay) w.member("run_delay_s", g.run_delay_s);
  w.key("thread_spread");
  write_spread(w, g.thread_spread(), "threads");
  w.member("thread_time_s", g.thread_time_s);
  w.key("threads");
  write_thread_columns(w, g.threads, g.has_cpu_time, g.has_run_delay);
  w.member("time_s", g.time_s);
}

}  // namespace

void write_profile_json(std::ostream& out, const Profile& p, const ProfileJsonParts& parts) {
  // Regions go out a megabyte at a time: a stream writes any piece of 1 KiB
  // or more with a system call of its own (libstdc++), one per region.
  constexpr size_t kBatchBytes = 1 << 20;
  std::string text;
  text.reserve(kBatchBytes + (64 << 10));
  jo::Writer w(text, 2);
  // Keys sorted, as the schema has always had them.
  w.begin_object();
  w.key("conventions").begin_object();
  w.member("bytes", "bytes crossing the named boundary; GB = 1e9 bytes");
  w.member("cpu_time_s",
           "thread CPU seconds (CLOCK_THREAD_CPUTIME_ID), inclusive, summed over threads");
  w.member("flops", "FMA = 2 FLOPs");
  w.member("run_delay_s",
           "thread seconds runnable but not running (waiting for a CPU: the kernel's run "
           "delay), inclusive, summed over threads");
  w.member("thread_time_s", "seconds summed over threads");
  w.member("time", "seconds; region time_s is the maximum over threads");
  w.end_object();
  w.key("counters").array(p.counters);
  w.key("errors").begin_array();
  for (const MarkerError& e : p.errors) {
    w.begin_object();
    w.member("count", e.count);
    w.member("expected", e.expected);
    w.member("got", e.got);
    w.member("kind", e.kind);
    w.member("pid", e.pid);
    w.member("thread", e.thread);
    w.end_object();
  }
  w.end_array();
  w.member("format", "rprof-profile");
  w.key("notes").array(p.notes);
  // One region a line.
  w.key("regions").begin_array();
  for (size_t i = 0; i < p.regions.size(); ++i) {
    w.begin_object(/*compact=*/true);
    // The measured members' doubles have always been the shortest text.
    w.set_doubles(jo::Doubles::kShortest);
    write_region_members(w, p.regions[i], p.run);
    w.set_doubles(jo::Doubles::kAsDom);
    if (parts.region_end) parts.region_end(w, i);
    w.end_object();
    if (text.size() >= kBatchBytes) {
      out << text;
      text.clear();
    }
  }
  w.end_array();
  if (parts.before_run) parts.before_run(w);
  const RunInfo& r = p.run;
  w.key("run").begin_object();
  w.member("backend", r.backend);
  w.key("command").array(r.command);
  w.member("exit_code", r.exit_code);
  if (!r.failure.empty()) w.member("failure", r.failure);
  w.member("host", r.host);
  w.key("missing_ranks").array(r.missing_ranks);
  w.member("processes", r.processes);
  if (r.per_process_cache_model) w.member("per_process_cache_model", true);
  if (r.repeat > 0) w.member("repeat", r.repeat);
  w.member("signal", r.signal);
  w.member("start_unix_s", r.start_unix_s);
  w.member("system_time_s", r.system_time_s);
  w.member("threads", r.threads);
  w.member("user_time_s", r.user_time_s);
  w.member("wall_time_s", r.wall_time_s);
  w.member("world_size", r.world_size);
  w.end_object();
  w.member("schema_version", p.schema_version);
  if (parts.at_end) parts.at_end(w);
  w.end_object();
  text += '\n';
  out << text;
}

std::string profile_json_text(const Profile& p) {
  std::ostringstream out;
  write_profile_json(out, p);
  return out.str();
}

Profile profile_from_json(const json& doc, const std::string& file) {
  namespace lim = limits;
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
  const json& run = r.object(doc, "run");
  const JsonReader rr = r.at("run");
  p.run.command = rr.get<std::vector<std::string>>(run, "command");
  p.run.backend = rr.str(run, "backend", 64);
  p.run.host = rr.str(run, "host", 255);
  p.run.start_unix_s = rr.get<int64_t>(run, "start_unix_s");
  p.run.wall_time_s = rr.nonneg(run, "wall_time_s");
  p.run.user_time_s = run.contains("user_time_s") ? rr.nonneg(run, "user_time_s") : 0;
  p.run.system_time_s = run.contains("system_time_s") ? rr.nonneg(run, "system_time_s") : 0;
  p.run.exit_code = rr.get<int>(run, "exit_code");
  if (run.contains("failure")) p.run.failure = rr.str(run, "failure", 4096);
  p.run.signal = static_cast<int>(rr.in_range(run, "signal", 0, 128));
  p.run.processes = static_cast<int>(rr.in_range(run, "processes", 0, lim::kWorldSize));
  p.run.threads = static_cast<int>(rr.in_range(run, "threads", 0, INT32_MAX));
  if (run.contains("repeat")) {
    p.run.repeat = static_cast<int>(rr.in_range(run, "repeat", 1, 1000000));
  }
  if (run.contains("per_process_cache_model")) {
    p.run.per_process_cache_model = rr.get<bool>(run, "per_process_cache_model");
  }
  p.run.world_size = -1;
  if (run.contains("world_size")) {
    p.run.world_size = static_cast<int>(rr.in_range(run, "world_size", -1, lim::kWorldSize));
  }
  if (run.contains("missing_ranks")) {
    const json& missing = rr.array(run, "missing_ranks",
                                   static_cast<size_t>(std::max(p.run.world_size, 0)));
    const JsonReader rm = rr.at("missing_ranks");
    for (size_t i = 0; i < missing.size(); ++i) {
      if (!missing[i].is_number_integer() || missing[i].get<int64_t>() < 0 ||
          missing[i].get<int64_t>() >= p.run.world_size) {
        rm.at(i).fail(fmt::format("expected a rank (0 to {})", p.run.world_size - 1));
      }
      p.run.missing_ranks.push_back(missing[i].get<int>());
    }
  }
  r.array(doc, "counters", lim::kCounters);
  p.counters = r.get<std::vector<std::string>>(doc, "counters");
  const json& regions = r.array(doc, "regions", lim::kRegions);
  const JsonReader rg = r.at("regions");
  p.regions.reserve(regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    p.regions.push_back(region_from_json(regions[i], rg.at(i)));
  }
  if (doc.contains("errors")) {
    const json& errors = r.array(doc, "errors", lim::kErrors);
    const JsonReader re = r.at("errors");
    for (size_t i = 0; i < errors.size(); ++i) {
      const json& e = errors[i];
      const JsonReader rei = re.at(i);
      MarkerError me;
      me.kind = rei.str(e, "kind", 64);
      me.expected = rei.str(e, "expected", lim::kNameBytes);
      me.got = rei.str(e, "got", lim::kNameBytes);
      me.count = rei.get<uint64_t>(e, "count");
      me.pid = rei.get<int64_t>(e, "pid");
      me.thread = rei.get<uint32_t>(e, "thread");
      p.errors.push_back(std::move(me));
    }
  }
  p.notes = r.get_or<std::vector<std::string>>(doc, "notes", {});
  return p;
}

namespace {

// Thrown by the streaming parse when the file says it is a raw profile.
struct RawFormat {};

// profile.json read as a stream (performance, issue 16: 100,000 regions):
// each element of "regions" is converted as soon as it is parsed and dropped
// from the document, so the reader holds one region's DOM at a time rather
// than the whole file's. Without `with_regions` they are skipped (run facts).
Profile parse_profile_stream(JsonText& text, const std::string& file, bool with_regions) {
  const JsonReader r(file, "rprof profile");
  const JsonReader rg = r.at("regions");
  std::vector<Region> regions;
  std::string key;  // the top-level member being parsed
  // Regions are converted as they end only once the file has said it is a
  // profile (rprof writes "format" first); before that they stay in the
  // document and are converted, or refused, by profile_from_json.
  bool profile = false;
  const json::parser_callback_t keep = [&](int depth, json::parse_event_t event,
                                           json& parsed) {
    using E = json::parse_event_t;
    if (depth == 1 && event == E::key) {
      key = parsed.get<std::string>();
    } else if (depth == 3 && event == E::key && key == "regions") {
      // Derived sections are recomputed, never read: not built at all.
      const std::string& k = parsed.get_ref<const std::string&>();
      return k != "verdict" && k != "roofline" && k != "memory" && k != "thread_spread" &&
             k != "process_spread";
    } else if (depth == 1 && event == E::value && key == "format") {
      if (parsed == "rprof-raw") throw RawFormat{};
      profile = parsed == "rprof-profile";
    } else if (depth == 2 && event == E::object_end && key == "regions") {
      if (!with_regions) return false;
      if (!profile) return true;
      if (regions.size() >= limits::kRegions) {
        r.fail_at("regions", fmt::format("more than {} regions (the limit)", limits::kRegions));
      }
      regions.push_back(region_from_json(parsed, rg.at(regions.size())));
      return false;
    }
    return true;
  };
  json doc = r.parse(text, keep);
  // The regions before "format" (and anything in "regions" that is not an
  // object) come first, as they stood in the file.
  Profile p = profile_from_json(doc, file);
  if (p.regions.empty()) {
    p.regions = std::move(regions);
  } else {
    p.regions.reserve(p.regions.size() + regions.size());
    for (Region& g : regions) p.regions.push_back(std::move(g));
  }
  p.regions.shrink_to_fit();  // 100,000 regions: no quarter of a million slots
  return p;
}

}  // namespace

RunInfo read_profile_run(const std::string& file) {
  const InputFile in(file, limits::kProfileFileBytes, "rprof profile");
  JsonText text(in);
  try {
    return parse_profile_stream(text, file, /*with_regions=*/false).run;
  } catch (const RawFormat&) {
    throw Error(file + ": a raw profile, not a profile.json");
  }
}

Profile load_profile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string saved = (fs::path(path) / layout::kProfileJson).string();
    if (fs::exists(saved, ec)) return load_profile(saved);
    std::vector<std::string> files = list_raw_profiles(path);
    const fs::path raw_dir = fs::path(path) / layout::kRawDir;
    if (files.empty() && fs::is_directory(raw_dir, ec)) {
      files = list_raw_profiles(raw_dir.string());
    }
    if (files.empty()) {
      throw Error(path + ": no profile.json and no raw profiles (rprof-raw.*.json) in it");
    }
    return aggregate(read_raw_profiles(files, nullptr), RunInfo{});
  }
  // Read from the file as it is parsed: no copy of its text is held.
  const InputFile in(path, limits::kProfileFileBytes, "rprof profile");
  JsonText text(in);
  try {
    return parse_profile_stream(text, path, /*with_regions=*/true);
  } catch (const RawFormat&) {
    if (text.size() > limits::kRawFileBytes) {
      throw Error(fmt::format("{}: {} bytes is beyond the limit of {} bytes for an rprof raw "
                              "profile",
                              path, text.size(), limits::kRawFileBytes));
    }
    return aggregate({parse_raw_profile(text, path)}, RunInfo{});  // read again from the start
  }
}

}  // namespace rprof
