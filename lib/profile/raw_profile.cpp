// Raw profile files: read one or many (the parser is raw_profile_reader.cpp),
// list a directory's, write one (what the launcher recovered from shared
// region tables).
#include "profile/raw_profile.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/limits.h"

namespace rprof {
using nlohmann::json;

RawProfile read_raw_profile(const std::string& file) {
  const InputFile in(file, limits::kRawFileBytes, "rprof raw profile");
  JsonText text(in);
  return parse_raw_profile(text, file);
}

std::vector<RawProfile> read_raw_profiles(const std::vector<std::string>& files,
                                          std::vector<std::string>* errors) {
  std::vector<std::optional<RawProfile>> parsed(files.size());
  std::vector<std::string> failures(files.size());
  std::atomic<size_t> next{0};
  // The files being read at once stay within kRawInFlightBytes in all (a
  // file waits until what it needs is free, or runs alone). Their texts are not
  // held (JsonText), but what each holds as JSON grows with its size up to
  // limits::kJsonKeptBytes, so many large hostile files on all cores do
  // not take that much per core.
  std::mutex mutex;
  std::condition_variable freed;
  uint64_t in_flight = 0;
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      std::error_code ec;
      const uint64_t size = std::filesystem::file_size(files[i], ec);
      const uint64_t bytes = ec ? 0 : std::min<uint64_t>(size, limits::kRawInFlightBytes);
      {
        std::unique_lock<std::mutex> lock(mutex);
        freed.wait(lock, [&] {
          return in_flight == 0 || in_flight + bytes <= limits::kRawInFlightBytes;
        });
        in_flight += bytes;
      }
      try {
        parsed[i] = read_raw_profile(files[i]);
      } catch (const std::exception& e) {
        failures[i] = e.what();
      }
      {
        const std::lock_guard<std::mutex> lock(mutex);
        in_flight -= bytes;
      }
      freed.notify_all();
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
