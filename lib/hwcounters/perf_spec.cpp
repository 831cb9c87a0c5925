#include "hwcounters/perf_spec.h"
#include "runtime/handshake.h"

#include <cerrno>
#include <cstdlib>

namespace rprof {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  const std::string str(s);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(str.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0' || str[0] == '-') return false;
  *out = v;
  return true;
}

std::string hex(uint64_t v) { return "0x" + hex_digits(v); }

}  // namespace

std::string hex_digits(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return s;
}

std::vector<std::string> PerfGroupSpec::output_keys() const {
  std::vector<std::string> keys;
  for (const PerfEventSpec& e : events) {
    bool seen = false;
    if (e.system_wide) {
      for (const std::string& k : keys) seen |= k == e.key;
    }
    if (!seen) keys.push_back(e.key);
  }
  return keys;
}

std::vector<std::string> perf_counter_names(const PerfGroupSpec& g) {
  const std::string prefix = "hw.g" + std::to_string(g.id) + ".";
  std::vector<std::string> names;
  for (const std::string& k : g.output_keys()) names.push_back(prefix + k);
  names.push_back(prefix + "enabled_ns");
  names.push_back(prefix + "running_ns");
  return names;
}

int perf_counter_count(const std::vector<PerfGroupSpec>& groups) {
  int n = 0;
  for (const PerfGroupSpec& g : groups) n += static_cast<int>(g.output_keys().size()) + 2;
  return n;
}

std::string format_perf_spec(const std::vector<PerfGroupSpec>& groups) {
  std::string out;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (gi) out += ';';
    const PerfGroupSpec& g = groups[gi];
    for (size_t ei = 0; ei < g.events.size(); ++ei) {
      const PerfEventSpec& e = g.events[ei];
      if (ei) out += ',';
      out += e.key + "=" + std::to_string(e.type) + ":" + hex(e.config) + ":" +
             hex(e.config1) + ":" + hex(e.config2) + ":";
      if (e.user_only) out += 'u';
      if (e.system_wide) out += 's';
      if (e.system_wide) out += ":" + std::to_string(e.cpu);
    }
  }
  return out;
}

bool parse_perf_spec(std::string_view text, int first_group_id,
                     std::vector<PerfGroupSpec>* groups, std::string* why) {
  groups->clear();
  if (text.empty()) {
    *why = RPROF_ENV_PERF_EVENTS " is empty";
    return false;
  }
  int id = first_group_id;
  for (std::string_view gtext : split(text, ';')) {
    PerfGroupSpec g;
    g.id = id++;
    for (std::string_view etext : split(gtext, ',')) {
      const std::string quoted = "'" + std::string(etext) + "'";
      const size_t eq = etext.find('=');
      if (eq == std::string_view::npos) {
        *why = "event " + quoted + " has no '=' (expected key=type:config...)";
        return false;
      }
      PerfEventSpec e;
      e.key = std::string(etext.substr(0, eq));
      if (!valid_key(e.key)) {
        *why = "event " + quoted + ": key must be [A-Za-z0-9_.-]+";
        return false;
      }
      const std::vector<std::string_view> f = split(etext.substr(eq + 1), ':');
      if (f.size() < 2 || f.size() > 6) {
        *why = "event " + quoted + ": expected type:config[:config1[:config2[:flags[:cpu]]]]";
        return false;
      }
      uint64_t type = 0;
      if (!parse_u64(f[0], &type) || type > 0xffffffffu || !parse_u64(f[1], &e.config) ||
          (f.size() > 2 && !parse_u64(f[2], &e.config1)) ||
          (f.size() > 3 && !parse_u64(f[3], &e.config2))) {
        *why = "event " + quoted + ": type and configs must be numbers";
        return false;
      }
      e.type = static_cast<uint32_t>(type);
      e.user_only = false;
      if (f.size() > 4) {
        for (char c : f[4]) {
          if (c == 'u') {
            e.user_only = true;
          } else if (c == 's') {
            e.system_wide = true;
          } else {
            *why = "event " + quoted + ": unknown flag '" + std::string(1, c) + "' (u, s)";
            return false;
          }
        }
      }
      if (e.system_wide) {
        uint64_t cpu = 0;
        if (f.size() < 6 || !parse_u64(f[5], &cpu) || cpu > 1u << 20) {
          *why = "event " + quoted + ": a system-wide event needs a cpu number";
          return false;
        }
        e.cpu = static_cast<int>(cpu);
      }
      if (!g.events.empty() && g.events.front().system_wide != e.system_wide) {
        *why = "event " + quoted + ": a group is either all per-thread or all system-wide";
        return false;
      }
      g.events.push_back(std::move(e));
    }
    groups->push_back(std::move(g));
  }
  return true;
}

std::string perf_key(std::string_view name) {
  std::string k(name);
  for (char& c : k) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) c = '.';
  }
  return k;
}

}  // namespace rprof
