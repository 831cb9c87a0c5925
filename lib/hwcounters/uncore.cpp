#include "hwcounters/uncore.h"

#include "common/fs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace rprof {
namespace {

namespace fs = std::filesystem;

bool parse_num(const std::string& s, uint64_t* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  *v = std::strtoull(s.c_str(), &end, 0);
  return end != nullptr && *end == '\0';
}

// Suffix number of "uncore_imc_12" after `prefix`, or -1.
long suffix_number(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  const std::string rest = name.substr(prefix.size());
  if (!std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::atol(rest.c_str());
}

UncorePmu read_pmu(const fs::path& dir) {
  UncorePmu p;
  p.name = dir.filename().string();
  uint64_t type = 0;
  parse_num(read_system_file((dir / "type").string()), &type);
  p.type = static_cast<uint32_t>(type);
  p.cpus = parse_cpu_list(read_system_file((dir / "cpumask").string()));
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir / "format", ec)) {
    p.formats[f.path().filename().string()] = read_system_file(f.path().string());
  }
  for (const auto& f : fs::directory_iterator(dir / "events", ec)) {
    const std::string n = f.path().filename().string();
    if (n.find('.') == std::string::npos) {  // not the .scale/.unit companions
      p.events[n] = read_system_file(f.path().string());
    }
  }
  return p;
}

PerfGroupSpec group_of(const std::vector<UncorePmu>& pmus,
                       const std::vector<std::pair<std::string, EventTerms>>& events,
                       std::string* why, bool* ok) {
  PerfGroupSpec g;
  *ok = false;
  for (const UncorePmu& p : pmus) {
    for (const auto& [key, terms] : events) {
      PerfEventSpec e;
      e.key = key;
      e.system_wide = true;
      e.user_only = false;
      e.type = p.type;
      if (!encode_terms(p, terms, &e, why)) return g;
      for (int cpu : p.cpus) {
        e.cpu = cpu;
        g.events.push_back(e);
      }
    }
  }
  *ok = !g.events.empty();
  if (!*ok) *why = "the uncore PMUs list no CPU to count on";
  return g;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    const int lo = std::atoi(part.substr(0, dash).c_str());
    const int hi = dash == std::string::npos ? lo : std::atoi(part.substr(dash + 1).c_str());
    for (int c = lo; c <= hi && c - lo < 4096; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::vector<UncorePmu> find_uncore_pmus(const std::string& root, const std::string& prefix,
                                        bool exact_name) {
  std::vector<std::pair<long, UncorePmu>> found;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(root + "/sys/bus/event_source/devices", ec)) {
    const std::string name = d.path().filename().string();
    const long n = exact_name ? (name == prefix ? 0 : -1) : suffix_number(name, prefix);
    if (n >= 0) found.emplace_back(n, read_pmu(d.path()));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<UncorePmu> pmus;
  for (auto& f : found) pmus.push_back(std::move(f.second));
  return pmus;
}

std::optional<EventTerms> parse_event_terms(const std::string& text) {
  EventTerms terms;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const size_t eq = part.find('=');
    uint64_t v = 1;  // a bare flag term means 1
    if (eq != std::string::npos && !parse_num(part.substr(eq + 1), &v)) return std::nullopt;
    const std::string name = part.substr(0, eq);
    if (name.empty()) return std::nullopt;
    terms.emplace_back(name, v);
  }
  if (terms.empty()) return std::nullopt;
  return terms;
}

bool encode_terms(const UncorePmu& pmu, const EventTerms& terms, PerfEventSpec* e,
                  std::string* why) {
  for (const auto& [name, value] : terms) {
    auto it = pmu.formats.find(name);
    if (it == pmu.formats.end()) {
      *why = pmu.name + " has no format field '" + name + "'";
      return false;
    }
    const std::string& f = it->second;  // "config:0-7,32-35"
    const size_t colon = f.find(':');
    const std::string field = f.substr(0, colon);
    uint64_t* target = field == "config"    ? &e->config
                       : field == "config1" ? &e->config1
                       : field == "config2" ? &e->config2
                                            : nullptr;
    if (target == nullptr || colon == std::string::npos) {
      *why = pmu.name + ": cannot read format '" + f + "'";
      return false;
    }
    uint64_t rest = value;
    for (int bit : parse_cpu_list(f.substr(colon + 1))) {  // same "a-b,c" syntax
      if (bit < 0 || bit > 63) continue;
      if (rest & 1) *target |= uint64_t{1} << bit;
      rest >>= 1;
    }
    if (rest != 0) {
      *why = pmu.name + ": value of '" + name + "' does not fit its format " + f;
      return false;
    }
  }
  return true;
}

std::optional<PerfGroupSpec> dram_uncore_group(UncoreKind kind, const std::string& root,
                                               std::string* why) {
  std::vector<UncorePmu> pmus;
  std::vector<std::pair<std::string, EventTerms>> events;
  if (kind == UncoreKind::kIntelImc) {
    pmus = find_uncore_pmus(root, "uncore_imc_");
    if (pmus.empty()) {
      *why = "no uncore_imc PMU in sysfs (memory-controller counters not exposed here)";
      return std::nullopt;
    }
    for (const char* alias : {"cas_count_read", "cas_count_write"}) {
      auto it = pmus.front().events.find(alias);
      std::optional<EventTerms> t;
      if (it != pmus.front().events.end()) t = parse_event_terms(it->second);
      if (!t) {
        *why = pmus.front().name + " has no usable event '" + alias + "'";
        return std::nullopt;
      }
      events.emplace_back(alias == std::string("cas_count_read") ? kUncoreDramRead
                                                                  : kUncoreDramWrite,
                          *t);
    }
  } else if (kind == UncoreKind::kAmdUmc) {
    pmus = find_uncore_pmus(root, "amd_umc_");
    if (pmus.empty()) {
      *why = "no amd_umc PMU in sysfs (needs Linux 6.9 or later on Zen 4)";
      return std::nullopt;
    }
    events.emplace_back(kUncoreDramRead, EventTerms{{"event", 0x0a}, {"rdwrmask", 1}});
    events.emplace_back(kUncoreDramWrite, EventTerms{{"event", 0x0a}, {"rdwrmask", 2}});
  } else if (kind == UncoreKind::kAmdDf) {
    pmus = find_uncore_pmus(root, "amd_df", true);
    if (pmus.empty()) {
      *why = "no amd_df PMU in sysfs";
      return std::nullopt;
    }
    for (uint64_t ch = 0; ch < 8; ++ch) {
      events.emplace_back(kUncoreDfBeats, EventTerms{{"event", 0x07 + 0x40 * ch}, {"umask", 0x38}});
    }
  } else {
    *why = "no memory-controller counters known for this CPU";
    return std::nullopt;
  }
  bool ok = false;
  PerfGroupSpec g = group_of(pmus, events, why, &ok);
  if (!ok) return std::nullopt;
  return g;
}

}  // namespace rprof
