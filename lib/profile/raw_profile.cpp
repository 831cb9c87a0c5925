#include "profile/raw_profile.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"

namespace rprof {
using nlohmann::json;

RawProfile parse_raw_profile(const std::string& text, const std::string& file) {
  const JsonReader r(file, "rprof raw profile");
  if (text.empty()) r.fail("the file is empty");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    r.fail("not JSON (truncated or corrupt?)");
  }
  const auto format = doc.is_object() ? doc.find("format") : doc.end();
  if (!doc.is_object() || format == doc.end() || *format != "rprof-raw") {
    r.fail("missing \"format\": \"rprof-raw\" (a foreign file?)");
  }
  RawProfile p;
  p.file = file;
  p.schema_version = static_cast<int>(r.i64(doc, "schema_version", "profile"));
  if (p.schema_version != kRawSchemaVersion) {
    r.fail("schema_version " + std::to_string(p.schema_version) +
           " is not supported (this rprof reads version " +
           std::to_string(kRawSchemaVersion) + ")");
  }
  p.host = r.str(doc, "host", "profile");
  p.pid = r.i64(doc, "pid", "profile");
  p.parent_pid = r.i64(doc, "parent_pid", "profile");
  p.rank = r.i64(doc, "rank", "profile");
  if (doc.contains("world_size")) p.world_size = r.i64(doc, "world_size", "profile");
  p.backend = r.str(doc, "backend", "profile");
  p.start_unix_s = r.i64(doc, "start_unix_s", "profile");
  p.duration_ns = r.u64(doc, "duration_ns", "profile");
  if (doc.contains("clock")) {
    const json& clock = r.field(doc, "clock", "profile");
    p.clock_source = r.str(clock, "source", "clock");
    p.clock_ticks_per_s = r.u64(clock, "ticks_per_s", "clock");
    if (p.clock_source != "tsc" && p.clock_source != "monotonic") {
      r.fail("clock.source '" + p.clock_source + "' is neither tsc nor monotonic");
    }
    if (p.clock_ticks_per_s == 0) r.fail("clock.ticks_per_s is 0");
  }
  p.reason = r.str(doc, "reason", "profile");
  p.signal = static_cast<int>(r.i64(doc, "signal", "profile"));
  for (const json& c : r.array(doc, "counters", "profile")) {
    if (!c.is_string()) r.fail("profile.counters holds a non-string");
    p.counters.push_back(c.get<std::string>());
  }
  for (const json& reg : r.array(doc, "regions", "profile")) {
    const uint64_t id = r.u64(reg, "id", "region");
    if (id == 0 || id > UINT32_MAX) r.fail("region id out of range");
    p.region_names[static_cast<uint32_t>(id)] = r.str(reg, "name", "region");
  }
  const size_t nc = p.counters.size();
  for (const json& th : r.array(doc, "threads", "profile")) {
    RawThread t;
    t.index = static_cast<uint32_t>(r.u64(th, "index", "thread"));
    t.tid = r.i64(th, "tid", "thread");
    const json& exited = r.field(th, "exited", "thread");
    if (!exited.is_boolean()) r.fail("thread.exited is not a boolean");
    t.exited = exited.get<bool>();
    for (const json& n : r.array(th, "nodes", "thread")) {
      RawNode node;
      const int64_t id = r.i64(n, "id", "node");
      if (id != static_cast<int64_t>(t.nodes.size())) r.fail("node ids are not in order");
      node.parent = r.i64(n, "parent", "node");
      if (node.parent < -1 || node.parent >= id) r.fail("node parent out of range");
      const uint64_t region = r.u64(n, "region", "node");
      if (!p.region_names.count(static_cast<uint32_t>(region))) {
        r.fail("node refers to unknown region " + std::to_string(region));
      }
      node.region = static_cast<uint32_t>(region);
      node.calls = r.u64(n, "calls", "node");
      node.incl_ns = r.u64(n, "incl_ns", "node");
      node.excl_ns = r.u64(n, "excl_ns", "node");
      if (n.contains("work_calls")) {
        node.work_calls = r.u64(n, "work_calls", "node");
        node.work_flops = static_cast<double>(r.u64(n, "work_flops", "node"));
        node.work_bytes = static_cast<double>(r.u64(n, "work_bytes", "node"));
      }
      node.incl = r.counts(n, "incl", nc, "node");
      node.excl = r.counts(n, "excl", nc, "node");
      t.nodes.push_back(std::move(node));
    }
    for (const json& o : r.array(th, "open", "thread")) {
      const int64_t id = r.i64(o, "node", "open");
      if (id < 0 || id >= static_cast<int64_t>(t.nodes.size())) r.fail("open node out of range");
      t.nodes[static_cast<size_t>(id)].open_calls += 1;
      // Recursive instances share a node: count the outermost's time once.
      RawNode& node = t.nodes[static_cast<size_t>(id)];
      node.open_ns = std::max(node.open_ns, r.u64(o, "elapsed_ns", "open"));
    }
    for (const json& e : r.array(th, "errors", "thread")) {
      RawError err;
      err.kind = r.str(e, "kind", "error");
      err.expected = static_cast<uint32_t>(r.u64(e, "expected", "error"));
      err.got = static_cast<uint32_t>(r.u64(e, "got", "error"));
      err.count = r.u64(e, "count", "error");
      t.errors.push_back(std::move(err));
    }
    p.threads.push_back(std::move(t));
  }
  std::sort(p.threads.begin(), p.threads.end(),
            [](const RawThread& a, const RawThread& b) { return a.index < b.index; });
  return p;
}

RawProfile read_raw_profile(const std::string& file) {
  return parse_raw_profile(read_file(file), file);
}

std::vector<RawProfile> read_raw_profiles(const std::vector<std::string>& files,
                                          std::vector<std::string>* errors) {
  std::vector<std::optional<RawProfile>> parsed(files.size());
  std::vector<std::string> failures(files.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      try {
        parsed[i] = read_raw_profile(files[i]);
      } catch (const std::exception& e) {
        failures[i] = e.what();
      }
    }
  };
  const size_t n = std::min<size_t>(files.size(),
                                    std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  std::vector<RawProfile> out;
  for (size_t i = 0; i < files.size(); ++i) {
    if (parsed[i]) {
      out.push_back(std::move(*parsed[i]));
    } else if (errors != nullptr) {
      errors->push_back(failures[i]);
    } else {
      throw Error(failures[i]);
    }
  }
  return out;
}

std::vector<std::string> list_raw_profiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rprof-raw.", 0) == 0 && name.size() > 5 &&
        name.compare(name.size() - 5, 5, ".json") == 0) {
      files.push_back(e.path().string());
    }
  }
  if (ec) throw Error("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rprof
