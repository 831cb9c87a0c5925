// Synthetic profiles with canonical counters, for the chart, HTML and diff
// tests. Counters follow docs/profile-schema.md: FLOPs with FMA = 2, bytes
// per boundary split into read and write.
#ifndef RPROF_TESTS_UNIT_REPORT_FIXTURE_H_
#define RPROF_TESTS_UNIT_REPORT_FIXTURE_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof::test {

struct Bytes {
  double l1 = 0, l2 = 0, llc = 0, dram = 0;  // 0 = not counted
};

// A region on one thread with `flops` DP FLOPs at `width` ("scalar",
// "256", ...) and the given bytes (split 2/3 read, 1/3 write).
inline Region counted_region(const std::vector<std::string>& path, double time_s, double flops,
                             const std::string& width, Bytes b) {
  Region r;
  r.path = path;
  r.name = path.back();
  r.calls = 1;
  r.time_s = r.exclusive_time_s = r.thread_time_s = time_s;
  if (flops > 0) r.counters["flops.dp." + width] = static_cast<uint64_t>(flops);
  const std::pair<const char*, double> at[] = {
      {"l1", b.l1}, {"l2", b.l2}, {"llc", b.llc}, {"dram", b.dram}};
  for (const auto& [key, bytes] : at) {
    if (bytes <= 0) continue;
    const uint64_t read = static_cast<uint64_t>(bytes * 2 / 3);
    r.counters[std::string("bytes.") + key + ".read"] = read;
    r.counters[std::string("bytes.") + key + ".write"] = static_cast<uint64_t>(bytes) - read;
  }
  r.exclusive_counters = r.counters;
  ThreadRow t;
  t.calls = 1;
  t.time_s = time_s;
  r.threads.push_back(t);
  return r;
}

// The text report with its wrapped lines joined (a newline and the
// indentation after it become one space), for checks of whole sentences.
inline std::string unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

inline Profile profile_of(std::vector<Region> regions, double wall_s) {
  Profile p;
  p.run.command = {"./app", "42"};
  p.run.backend = "sim";
  p.run.wall_time_s = wall_s;
  p.run.processes = 1;
  p.run.threads = 1;
  p.regions = std::move(regions);
  return p;
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_UNIT_REPORT_FIXTURE_H_
