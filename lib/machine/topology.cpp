#include "machine/topology.h"

#include "common/fs.h"
#include "runtime/handshake.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace rprof {
namespace {

namespace fs = std::filesystem;

int to_int(const std::string& s, int fallback = 0) {
  try {
    return std::stoi(s, nullptr, 0);
  } catch (...) {
    return fallback;
  }
}

}  // namespace

const CacheLevel* Topology::level(int l) const {
  for (const CacheLevel& c : caches) {
    if (c.level == l) return &c;
  }
  return nullptr;
}

const CacheLevel* Topology::last_level() const {
  return caches.empty() ? nullptr : &caches.back();
}

CpuId parse_cpuinfo(const std::string& text) {
  CpuId id;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (!id.vendor.empty()) break;  // end of the first processor block
      continue;
    }
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "vendor_id") id.vendor = value;
    else if (key == "cpu family") id.family = to_int(value);
    else if (key == "model") id.model = to_int(value);
    else if (key == "stepping") id.stepping = to_int(value);
    else if (key == "model name") id.model_name = value;
    else if (key == "flags") {
      std::istringstream flags(value);
      std::string f;
      while (flags >> f) {
        if (f == "sse2") id.sse2 = true;
        else if (f == "avx") id.avx = true;
        else if (f == "avx2") id.avx2 = true;
        else if (f == "fma") id.fma = true;
        else if (f == "avx512f") id.avx512f = true;
      }
    }
  }
  return id;
}

uint64_t parse_cache_size(const std::string& text) {
  if (text.empty()) return 0;
  size_t pos = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (...) {
    return 0;
  }
  const char unit = pos < text.size() ? text[pos] : ' ';
  if (unit == 'K' || unit == 'k') return v << 10;
  if (unit == 'M' || unit == 'm') return v << 20;
  if (unit == 'G' || unit == 'g') return v << 30;
  return v;
}

int count_cpu_list(const std::string& text) {
  int n = 0;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const size_t dash = part.find('-');
    if (part.empty()) continue;
    if (dash == std::string::npos) {
      ++n;
    } else {
      n += to_int(part.substr(dash + 1)) - to_int(part.substr(0, dash)) + 1;
    }
  }
  return std::max(n, 0);
}

std::string system_root() {
  const char* env = std::getenv(RPROF_ENV_SYSROOT);
  return env != nullptr && env[0] != '\0' ? env : "/";
}

Topology detect_topology(const std::string& root) {
  Topology t;
  const fs::path base = root.empty() ? fs::path(system_root()) : fs::path(root);
  t.cpu = parse_cpuinfo(read_system_file((base / "proc/cpuinfo").string()));
  const fs::path cpu = base / "sys/devices/system/cpu";
  const std::string online = read_system_file((cpu / "online").string());
  t.logical_cpus = online.empty() ? static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))
                                  : count_cpu_list(online);
  std::error_code ec;
  for (int i = 0; i < 16; ++i) {
    const fs::path idx = cpu / "cpu0/cache" / ("index" + std::to_string(i));
    if (!fs::exists(idx, ec)) break;
    const std::string type = read_system_file((idx / "type").string());
    if (type == "Instruction") continue;
    CacheLevel c;
    c.level = to_int(read_system_file((idx / "level").string()));
    c.size_bytes = parse_cache_size(read_system_file((idx / "size").string()));
    c.associativity = to_int(read_system_file((idx / "ways_of_associativity").string()));
    c.line_bytes = to_int(read_system_file((idx / "coherency_line_size").string()), 64);
    c.shared_cpus =
        std::max(1, count_cpu_list(read_system_file((idx / "shared_cpu_list").string())));
    if (c.level > 0 && c.size_bytes > 0) t.caches.push_back(c);
  }
  std::sort(t.caches.begin(), t.caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  return t;
}

}  // namespace rprof
