// The raw profile of 100,000 region paths (issue 16), generated in memory:
// outer_<o> (1 call) holding inner_<i> (1 + i % 3 calls, (1000 + i) ns
// each), one thread of pid 4242 on host node0, in the order and shape the
// runtime writes. tests/integration/test_scale checks what rprof makes of it,
// bench/scale_paths times rprof merge on it.
#ifndef RPROF_TESTS_INTEGRATION_MANY_PATHS_RAW_H_
#define RPROF_TESTS_INTEGRATION_MANY_PATHS_RAW_H_

#include <string>

namespace rprof::test {

struct ManyPaths {
  long outer = 1000;  // outer regions; each holds `inner` children
  long inner = 99;    // 1,000 + 1,000 x 99 = 100,000 paths
  // With one counter, flops.dp.scalar = calls x 10 (backend "sim"); without,
  // no counters (backend "time").
  bool flops = true;
};

// outer_<o> takes (1000 x (inner + 1) + o) ns, 1000 ns of it its own.
inline std::string many_paths_raw(const ManyPaths& m) {
  std::string s =
      "{\"format\":\"rprof-raw\",\"schema_version\":1,\"host\":\"node0\",\"pid\":4242,"
      "\"parent_pid\":1,\"rank\":-1,\"backend\":\"" +
      std::string(m.flops ? "sim" : "time") +
      "\",\"start_unix_s\":0,\"duration_ns\":1000000000,\"reason\":\"exit\",\"signal\":0,"
      "\"counters\":[" +
      std::string(m.flops ? "\"flops.dp.scalar\"" : "") + "],\"regions\":[";
  for (long o = 0; o < m.outer; ++o) {
    s += (o ? "," : "") + std::string("{\"id\":") + std::to_string(o + 1) +
         ",\"name\":\"outer_" + std::to_string(o) + "\"}";
  }
  for (long i = 0; i < m.inner; ++i) {
    s += ",{\"id\":" + std::to_string(m.outer + i + 1) + ",\"name\":\"inner_" +
         std::to_string(i) + "\"}";
  }
  s += "],\"threads\":[{\"index\":0,\"tid\":4242,\"exited\":false,\"open\":[],\"nodes\":[";
  // The counts of a node: "" without counters.
  auto counts = [&m](long incl, long excl) {
    if (!m.flops) return std::string();
    return ",\"incl\":[" + std::to_string(incl) + "],\"excl\":[" + std::to_string(excl) + "]";
  };
  long flops = 0;  // of one outer region: its inner ones'
  for (long i = 0; i < m.inner; ++i) flops += (1 + i % 3) * 10;
  long next = 0;  // node ids in order
  for (long o = 0; o < m.outer; ++o) {
    const long parent = next++;
    s += (parent > 0 ? "," : "") + std::string("{\"id\":") + std::to_string(parent) +
         ",\"parent\":-1,\"region\":" + std::to_string(o + 1) + ",\"calls\":1,\"incl_ns\":" +
         std::to_string(1000 * (m.inner + 1) + o) + ",\"excl_ns\":1000" + counts(flops, 0) +
         "}";
    for (long i = 0; i < m.inner; ++i) {
      const long calls = 1 + i % 3;
      const long me = next++;
      s += ",{\"id\":" + std::to_string(me) + ",\"parent\":" + std::to_string(parent) +
           ",\"region\":" + std::to_string(m.outer + i + 1) + ",\"calls\":" +
           std::to_string(calls) + ",\"incl_ns\":" + std::to_string(1000 + i) +
           ",\"excl_ns\":" + std::to_string(1000 + i) + counts(calls * 10, calls * 10) + "}";
    }
  }
  s += "],\"errors\":[]}]}\n";
  return s;
}

// `paths` paths: min(paths, 1000) outer regions with the rest spread evenly.
inline ManyPaths many_paths_of(long paths, bool flops) {
  ManyPaths m;
  m.outer = paths >= 1000 ? 1000 : paths;
  m.inner = paths / m.outer - 1;
  m.flops = flops;
  return m;
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_INTEGRATION_MANY_PATHS_RAW_H_
