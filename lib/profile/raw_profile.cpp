#include "profile/raw_profile.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <optional>
#include <thread>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/limits.h"

namespace rprof {
using nlohmann::json;

RawProfile parse_raw_profile(const std::string& text, const std::string& file) {
  return raw_profile_from_json(JsonReader(file, "rprof raw profile").parse(text), file);
}

RawProfile raw_profile_from_json(const json& doc, const std::string& file) {
  namespace lim = limits;
  const JsonReader r(file, "rprof raw profile");
  const auto format = doc.is_object() ? doc.find("format") : doc.end();
  if (!doc.is_object() || format == doc.end() || *format != "rprof-raw") {
    r.fail("missing \"format\": \"rprof-raw\" (a foreign file?)");
  }
  RawProfile p;
  p.file = file;
  p.schema_version = r.get<int>(doc, "schema_version");
  if (p.schema_version != kRawSchemaVersion) {
    r.fail("schema_version " + std::to_string(p.schema_version) +
           " is not supported (this rprof reads version " +
           std::to_string(kRawSchemaVersion) + ")");
  }
  p.host = r.str(doc, "host", 255);
  p.pid = r.get<int64_t>(doc, "pid");
  p.parent_pid = r.get<int64_t>(doc, "parent_pid");
  // -1 when not MPI (0 from an empty launcher variable means the same).
  if (doc.contains("world_size")) {
    p.world_size = r.in_range(doc, "world_size", -1, lim::kWorldSize);
    if (p.world_size == 0) p.world_size = -1;
  }
  p.rank = r.in_range(doc, "rank", -1, lim::kWorldSize - 1);
  p.backend = r.str(doc, "backend", 64);
  p.start_unix_s = r.get<int64_t>(doc, "start_unix_s");
  p.duration_ns = r.get<uint64_t>(doc, "duration_ns");
  if (doc.contains("clock")) {
    const json& clock = r.object(doc, "clock");
    const JsonReader rc = r.at("clock");
    p.clock_source = rc.str(clock, "source", 64);
    p.clock_ticks_per_s = rc.get<uint64_t>(clock, "ticks_per_s");
    if (p.clock_source != "tsc" && p.clock_source != "monotonic") {
      rc.fail_at("source", "'" + p.clock_source + "' is neither tsc nor monotonic");
    }
    if (p.clock_ticks_per_s == 0) rc.fail_at("ticks_per_s", "0 ticks per second");
  }
  p.reason = r.str(doc, "reason", 64);
  p.signal = static_cast<int>(r.in_range(doc, "signal", 0, 128));
  {
    const json& counters = r.array(doc, "counters", lim::kCounters);
    const JsonReader rc = r.at("counters");
    for (size_t i = 0; i < counters.size(); ++i) {
      const json& c = counters[i];
      if (!c.is_string()) rc.at(i).fail("expected a counter name (a string)");
      if (c.get_ref<const std::string&>().size() > lim::kCounterNameBytes) {
        rc.at(i).fail(fmt::format("a counter name is at most {} bytes", lim::kCounterNameBytes));
      }
      p.counters.push_back(c.get<std::string>());
    }
  }
  {
    const json& regions = r.array(doc, "regions", lim::kRegions);
    const JsonReader rr = r.at("regions");
    for (size_t i = 0; i < regions.size(); ++i) {
      const JsonReader ri = rr.at(i);
      const json& reg = regions[i];
      const uint64_t id = ri.get<uint64_t>(reg, "id");
      if (id == 0 || id > UINT32_MAX) ri.fail_at("id", "out of range (1 to 4294967295)");
      p.region_names[static_cast<uint32_t>(id)] = ri.str(reg, "name", lim::kNameBytes);
    }
  }
  const size_t nc = p.counters.size();
  const json& threads = r.array(doc, "threads", lim::kThreads);
  const JsonReader rt = r.at("threads");
  for (size_t ti = 0; ti < threads.size(); ++ti) {
    const JsonReader rth = rt.at(ti);
    const json& th = threads[ti];
    RawThread t;
    t.index = rth.get<uint32_t>(th, "index");
    t.tid = rth.get<int64_t>(th, "tid");
    t.exited = rth.get<bool>(th, "exited");
    const json& nodes = rth.array(th, "nodes", lim::kNodes);
    const JsonReader rn = rth.at("nodes");
    t.nodes.reserve(nodes.size());
    std::vector<uint32_t> depth;  // of each node: its path's length
    depth.reserve(nodes.size());
    for (size_t ni = 0; ni < nodes.size(); ++ni) {
      const JsonReader rni = rn.at(ni);
      const json& n = nodes[ni];
      RawNode node;
      const int64_t id = rni.get<int64_t>(n, "id");
      if (id != static_cast<int64_t>(t.nodes.size())) {
        rni.fail_at("id", fmt::format("{} is out of order (expected {})", id, t.nodes.size()));
      }
      node.parent = rni.get<int64_t>(n, "parent");
      if (node.parent < -1 || node.parent >= id) {
        rni.fail_at("parent", fmt::format("{} is out of range (-1 to {})", node.parent, id - 1));
      }
      depth.push_back(node.parent < 0 ? 1 : depth[static_cast<size_t>(node.parent)] + 1);
      if (depth.back() > lim::kPathDepth) {
        rni.fail(fmt::format("regions nested deeper than {} levels (the limit)", lim::kPathDepth));
      }
      const uint64_t region = rni.get<uint64_t>(n, "region");
      if (region > UINT32_MAX || !p.region_names.count(static_cast<uint32_t>(region))) {
        rni.fail_at("region", "refers to unknown region " + std::to_string(region));
      }
      node.region = static_cast<uint32_t>(region);
      node.calls = rni.get<uint64_t>(n, "calls");
      node.incl_ns = rni.get<uint64_t>(n, "incl_ns");
      node.excl_ns = rni.get<uint64_t>(n, "excl_ns");
      if (n.contains("work_calls")) {
        node.work_calls = rni.get<uint64_t>(n, "work_calls");
        node.work_flops = static_cast<double>(rni.get<uint64_t>(n, "work_flops"));
        node.work_bytes = static_cast<double>(rni.get<uint64_t>(n, "work_bytes"));
      }
      node.incl = rni.counts(n, "incl", nc);
      node.excl = rni.counts(n, "excl", nc);
      t.nodes.push_back(std::move(node));
    }
    const json& open = rth.array(th, "open", lim::kPathDepth);
    const JsonReader ro = rth.at("open");
    for (size_t oi = 0; oi < open.size(); ++oi) {
      const JsonReader roi = ro.at(oi);
      const int64_t id = roi.get<int64_t>(open[oi], "node");
      if (id < 0 || id >= static_cast<int64_t>(t.nodes.size())) {
        roi.fail_at("node", fmt::format("{} is out of range (0 to {})", id,
                                        static_cast<int64_t>(t.nodes.size()) - 1));
      }
      t.nodes[static_cast<size_t>(id)].open_calls += 1;
      // Recursive instances share a node: count the outermost's time once.
      RawNode& node = t.nodes[static_cast<size_t>(id)];
      node.open_ns = std::max(node.open_ns, roi.get<uint64_t>(open[oi], "elapsed_ns"));
    }
    const json& errors = rth.array(th, "errors", lim::kErrors);
    const JsonReader re = rth.at("errors");
    for (size_t ei = 0; ei < errors.size(); ++ei) {
      const JsonReader rei = re.at(ei);
      const json& e = errors[ei];
      RawError err;
      err.kind = rei.str(e, "kind", 64);
      err.expected = rei.get<uint32_t>(e, "expected");
      err.got = rei.get<uint32_t>(e, "got");
      err.count = rei.get<uint64_t>(e, "count");
      t.errors.push_back(std::move(err));
    }
    p.threads.push_back(std::move(t));
  }
  std::sort(p.threads.begin(), p.threads.end(),
            [](const RawThread& a, const RawThread& b) { return a.index < b.index; });
  return p;
}

RawProfile read_raw_profile(const std::string& file) {
  return parse_raw_profile(read_input_file(file, limits::kRawFileBytes, "rprof raw profile"),
                           file);
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

std::string raw_profile_to_json(const RawProfile& p) {
  json doc;
  doc["format"] = "rprof-raw";
  doc["schema_version"] = kRawSchemaVersion;
  doc["host"] = p.host;
  doc["pid"] = p.pid;
  doc["parent_pid"] = p.parent_pid;
  doc["world_size"] = p.world_size;
  doc["rank"] = p.rank;
  doc["backend"] = p.backend;
  doc["start_unix_s"] = p.start_unix_s;
  doc["duration_ns"] = p.duration_ns;
  doc["clock"] = {{"source", p.clock_source}, {"ticks_per_s", p.clock_ticks_per_s}};
  doc["reason"] = p.reason;
  doc["signal"] = p.signal;
  doc["counters"] = p.counters;
  json regions = json::array();
  for (const auto& [id, name] : p.region_names) regions.push_back({{"id", id}, {"name", name}});
  doc["regions"] = std::move(regions);
  json threads = json::array();
  for (const RawThread& t : p.threads) {
    json nodes = json::array();
    json open = json::array();
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const RawNode& n = t.nodes[i];
      json j = {{"id", i},           {"parent", n.parent},   {"region", n.region},
                {"calls", n.calls},  {"incl_ns", n.incl_ns}, {"excl_ns", n.excl_ns},
                {"incl", n.incl},    {"excl", n.excl}};
      if (n.work_calls > 0) {
        j["work_calls"] = n.work_calls;
        j["work_flops"] = static_cast<uint64_t>(std::llround(n.work_flops));
        j["work_bytes"] = static_cast<uint64_t>(std::llround(n.work_bytes));
      }
      nodes.push_back(std::move(j));
      // Recursive open instances share a node and its (outermost) time.
      for (uint64_t k = 0; k < n.open_calls; ++k) {
        open.push_back({{"node", i}, {"elapsed_ns", n.open_ns}});
      }
    }
    json errors = json::array();
    for (const RawError& e : t.errors) {
      errors.push_back(
          {{"kind", e.kind}, {"expected", e.expected}, {"got", e.got}, {"count", e.count}});
    }
    threads.push_back({{"index", t.index},
                       {"tid", t.tid},
                       {"exited", t.exited},
                       {"nodes", std::move(nodes)},
                       {"open", std::move(open)},
                       {"errors", std::move(errors)}});
  }
  doc["threads"] = std::move(threads);
  return doc.dump();
}

}  // namespace rprof
