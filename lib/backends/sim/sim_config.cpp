#include "backends/sim/sim_config.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "common/error.h"

namespace rprof {
namespace {

constexpr int kMaxWays = 64;  // the tool's limit (rp_cache.c)

void from_level(const CacheLevel* c, SimCache& out) {
  if (c == nullptr || c->size_bytes == 0) return;
  out.size_bytes = c->size_bytes;
  out.line_bytes = c->line_bytes > 0 ? c->line_bytes : 64;
  if (c->associativity > 0 && c->associativity <= kMaxWays) {
    out.ways = c->associativity;
  } else if (c->associativity < 0 || c->associativity > kMaxWays) {
    out.ways = kMaxWays;  // fully associative or very wide: nearest we model
  } else {
    out.ways = 8;  // unknown
  }
  // Sizes the OS reports are not always a multiple of ways * line (virtual
  // machines): round down to whole sets.
  const uint64_t set_bytes = static_cast<uint64_t>(out.ways) * out.line_bytes;
  if (out.size_bytes >= set_bytes) out.size_bytes -= out.size_bytes % set_bytes;
}

[[noreturn]] void bad(const std::string& item, const std::string& why) {
  throw Error("--sim-cache: '" + item + "': " + why +
                  " (expected LEVEL=SIZE[:WAYS[:LINE]], LEVEL l1, l2 or llc, "
                  "e.g. llc=1M:16)",
              2);
}

uint64_t parse_size(const std::string& item, const std::string& s) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (v > (UINT64_MAX - 9) / 10) bad(item, "size too large");
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    ++i;
  }
  if (i == 0) bad(item, "size is not a number");
  uint64_t mult = 1;
  if (i < s.size()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    if (u == 'K') mult = 1ULL << 10;
    else if (u == 'M') mult = 1ULL << 20;
    else if (u == 'G') mult = 1ULL << 30;
    else bad(item, "unknown size unit '" + s.substr(i) + "'");
    ++i;
    if (i < s.size() && (s[i] == 'B' || s[i] == 'b')) ++i;  // "32KB"
    if (i < s.size() && (s[i] == 'i' || s[i] == 'I')) bad(item, "write sizes as 32K or 32KB");
  }
  if (i != s.size()) bad(item, "unexpected '" + s.substr(i) + "' after the size");
  if (v > (1ULL << 34) / mult) bad(item, "size too large (at most 16G)");
  return v * mult;
}

int parse_int(const std::string& item, const std::string& s, const char* what) {
  if (s.empty() || s.size() > 6) bad(item, std::string(what) + " is not a number");
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      bad(item, std::string(what) + " is not a number");
    }
  }
  return std::stoi(s);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

void check_one(const char* name, const SimCache& c) {
  const std::string level = name;
  if (c.line_bytes < 8 || c.line_bytes > 4096 || (c.line_bytes & (c.line_bytes - 1)) != 0) {
    throw Error("simulated " + level + ": line size " + std::to_string(c.line_bytes) +
                    " B is not a power of two between 8 and 4096",
                2);
  }
  if (c.ways < 1 || c.ways > kMaxWays) {
    throw Error("simulated " + level + ": " + std::to_string(c.ways) +
                    " ways; the model supports 1 to 64",
                2);
  }
  const uint64_t set_bytes = static_cast<uint64_t>(c.ways) * c.line_bytes;
  if (c.size_bytes == 0 || c.size_bytes % set_bytes != 0) {
    throw Error("simulated " + level + ": size " + std::to_string(c.size_bytes) +
                    " B is not a non-zero multiple of ways * line (" +
                    std::to_string(set_bytes) + " B)",
                2);
  }
}

}  // namespace

SimCaches sim_caches_from_topology(const Topology& topo) {
  SimCaches s;
  from_level(topo.level(1), s.l1);
  from_level(topo.level(2), s.l2);
  const CacheLevel* last = topo.last_level();
  if (last != nullptr && last->level >= 3) from_level(last, s.llc);
  if (topo.level(1) != nullptr) {
    s.source = system_root() == "/" ? "this machine's caches (sysfs)"
                                    : "the caches of the recorded machine RPROF_SYSROOT=" +
                                          system_root();
  }
  return s;
}

void apply_machine_caches(SimCaches& caches, const Machine& machine, const std::string& file) {
  int last = 0;
  for (const CacheInfo& c : machine.caches) last = std::max(last, c.level);
  std::string replaced;
  for (const CacheInfo& c : machine.caches) {
    SimCache* s = c.level == 1                  ? &caches.l1
                  : c.level == 2                ? &caches.l2
                  : c.level >= 3 && c.level == last ? &caches.llc
                                                    : nullptr;
    if (s == nullptr || c.effective_bytes == 0) continue;
    // The level as this machine reports it, against the file's measurement:
    // a size within kCacheContradictionFactor of the report stays reported,
    // so recalibrating never changes what is simulated.
    CacheInfo here = c;
    here.reported_bytes = s->size_bytes;
    const CacheSizeChoice choice = chosen_cache_size(here);
    const uint64_t set_bytes = static_cast<uint64_t>(s->ways) * s->line_bytes;
    if (!choice.replaced || choice.bytes < set_bytes) continue;
    s->size_bytes = choice.bytes - choice.bytes % set_bytes;
    replaced += (replaced.empty() ? "" : "; ") + choice.why;
  }
  if (!replaced.empty()) {
    caches.source += ", with the effective size from the machine file " + file + " where it "
                     "contradicts the report: " + replaced;
  }
}

void apply_sim_cache_spec(SimCaches& caches, const std::string& spec) {
  if (spec.empty()) return;
  for (const std::string& item : split(spec, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) bad(item, "missing '='");
    const std::string level = item.substr(0, eq);
    SimCache* c = level == "l1"    ? &caches.l1
                  : level == "l2"  ? &caches.l2
                  : level == "llc" ? &caches.llc
                                   : nullptr;
    if (c == nullptr) bad(item, "unknown level '" + level + "'");
    const std::vector<std::string> f = split(item.substr(eq + 1), ':');
    if (f.size() > 3) bad(item, "too many fields");
    c->size_bytes = parse_size(item, f[0]);
    if (f.size() > 1) c->ways = parse_int(item, f[1], "ways");
    if (f.size() > 2) c->line_bytes = parse_int(item, f[2], "line size");
  }
  caches.source += ", overridden by --sim-cache " + spec;
}

void check_sim_caches(const SimCaches& caches) {
  check_one("L1", caches.l1);
  check_one("L2", caches.l2);
  check_one("LLC", caches.llc);
  if (caches.l1.line_bytes != caches.l2.line_bytes ||
      caches.l1.line_bytes != caches.llc.line_bytes) {
    throw Error("simulated caches: all levels must have the same line size", 2);
  }
}

std::vector<std::string> sim_tool_options(const SimCaches& caches) {
  auto opt = [](const char* name, const SimCache& c) {
    return std::string("--rp-") + name + "=" + std::to_string(c.size_bytes) + "," +
           std::to_string(c.ways) + "," + std::to_string(c.line_bytes);
  };
  return {opt("l1", caches.l1), opt("l2", caches.l2), opt("llc", caches.llc)};
}

std::string format_bytes_binary(uint64_t bytes) {
  if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0) {
    return std::to_string(bytes >> 30) + " GiB";
  }
  if (bytes >= (1ULL << 20) && bytes % (1ULL << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= (1ULL << 10) && bytes % (1ULL << 10) == 0) {
    return std::to_string(bytes >> 10) + " KiB";
  }
  return std::to_string(bytes) + " B";
}

std::string describe_sim_caches(const SimCaches& c) {
  std::ostringstream s;
  s << "L1 " << format_bytes_binary(c.l1.size_bytes) << " " << c.l1.ways << "-way, L2 "
    << format_bytes_binary(c.l2.size_bytes) << " " << c.l2.ways
    << "-way (private per thread), LLC " << format_bytes_binary(c.llc.size_bytes) << " "
    << c.llc.ways << "-way (shared), " << c.l1.line_bytes
    << " B lines; LRU, write-back, write-allocate (" << c.source << ")";
  return s.str();
}

std::string own_cache_note(const Profile& p, const SimCaches& caches) {
  int most = 0;
  size_t regions = 0;
  for (const Region& r : p.regions) {
    const int n = r.processes_on_one_host();
    if (n > 1) ++regions;
    most = std::max(most, n);
  }
  if (most < 2) return "";
  return std::to_string(most) + " processes (MPI ranks or forked children) ran on one host, in " +
         std::to_string(regions) + " region" + (regions == 1 ? "" : "s") +
         ": the cache model simulated each process with caches of its own, an LLC of " +
         format_bytes_binary(caches.llc.size_bytes) +
         " included, where on the machine they share one: each process's LLC and DRAM traffic "
         "is what it would move with the LLC to itself, so when their working sets together "
         "exceed the LLC its DRAM traffic is a lower bound and its LLC traffic may be high "
         "(docs/sim-backend.md)";
}

}  // namespace rprof
