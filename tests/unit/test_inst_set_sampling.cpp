// The inst backend's set sampling (lib/backends/inst/inst_sample.h): the
// model fed only the accesses to lines C modulo F, in caches of 1/F the
// sets, counts exactly the traffic the full model counts for those lines
// (every set of the full model holds lines of one class when F divides its
// set count). Checked against rprof's cache model itself
// (common/cache_model.h) run on every access, its counts split by the class
// of the accessed line, on a stream that mixes a reused working set, a
// stream larger than the LLC and a power-of-two stride. The settings parser's
// refusals too. Each case runs in a process of its own (the settings are
// read once, from the environment).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/inst/inst_counters.h"
#include "backends/inst/inst_sample.h"
#include "common/cache_model.h"

using namespace rprof::inst;

namespace {

// L1 4 KiB 4-way (16 sets), L2 32 KiB 8-way (64 sets), LLC 256 KiB 16-way
// (256 sets), 64-byte lines.
const char* const kCaches = "4096:4:64,32768:8:64,262144:16:64";

struct Access {
  uint64_t addr;
  bool store;
};

// 8-byte accesses: a working set of 192 KiB swept 4 times (reads and
// writes), a stream of 1 MiB read once, a column walk with a 4 KiB stride.
std::vector<Access> stream() {
  std::vector<Access> v;
  const uint64_t base = uint64_t{1} << 30;
  for (int rep = 0; rep < 4; ++rep) {
    for (uint64_t i = 0; i < 192 * 1024; i += 8) {
      v.push_back({base + i, false});
      if (i % 64 == 0) v.push_back({base + i, true});
    }
  }
  for (uint64_t i = 0; i < 1024 * 1024; i += 8) v.push_back({base + (8 << 20) + i, false});
  for (int col = 0; col < 64; ++col) {
    for (uint64_t row = 0; row < 256; ++row) {
      v.push_back({base + (32 << 20) + row * 4096 + static_cast<uint64_t>(col) * 8, row % 2 == 1});
    }
  }
  return v;
}

}  // namespace

TEST_CASE("set sampling: 1 line in 4 counts exactly the full model's traffic of those lines") {
  const uint64_t f = 4, c = 3;
  setenv(kCachesEnv, kCaches, 1);
  setenv(kSampleEnv, "sets=4,sel=3,unit=100", 1);
  REQUIRE(sample_num_counters() == kSampledCounters);
  unsigned long long program[RPROF_INST_ARRAY] = {};
  sample_thread_start(program);
  // The filter the program tests: lines 3 modulo 4 (bit j for the lines j
  // modulo 64), and those of the first rotating class, 0 (3 + 1 modulo 4).
  CHECK(program[RPROF_INST_SET_BITS] == (0x8888888888888888ull | 0x1111111111111111ull));

  // The full model on every access, its counts split by the line's class.
  RpcGeometry g[3] = {{4096, 4, 64}, {32768, 8, 64}, {262144, 16, 64}};
  std::vector<rpc_word> storage(rpc_cache_words(&g[0]) + rpc_cache_words(&g[1]) +
                                rpc_cache_words(&g[2]));
  RpcCache l1, l2, llc;
  rpc_cache_init(&l1, &g[0], storage.data());
  rpc_cache_init(&l2, &g[1], storage.data() + rpc_cache_words(&g[0]));
  rpc_cache_init(&llc, &g[2], storage.data() + rpc_cache_words(&g[0]) + rpc_cache_words(&g[1]));
  rpc_count in_class[RPC_NCOUNTS] = {}, other[RPC_NCOUNTS] = {};
  RpcPath path{&l1, &l2, &llc, nullptr, 6};
  double l1_in_class = 0;
  for (const Access& a : stream()) {
    const bool sampled = ((a.addr >> 6) % f) == c;
    path.counts = sampled ? in_class : other;
    rpc_access(&path, a.addr, 8, a.store ? 1 : 0);
    if (sampled) {
      l1_in_class += 8;
      // What the program passes: the accesses its filter selects.
      REQUIRE(((program[RPROF_INST_SET_BITS] >> ((a.addr >> 6) & 63)) & 1) == 1);
      sample_access(reinterpret_cast<const void*>(a.addr), 8, a.store ? 1 : 0);
    }
  }
  uint64_t out[kSampledCounters] = {};
  sample_read(out);
  // sample.l1, then per boundary read, write, sq, xy.
  CHECK(out[1] == static_cast<uint64_t>(l1_in_class));
  for (int b = 0; b < 3; ++b) {
    INFO("boundary " << b);
    CHECK(out[3 + 4 * b] == in_class[2 * b]);
    CHECK(out[4 + 4 * b] == in_class[2 * b + 1]);
    CHECK(in_class[2 * b] > 0);  // every boundary crossed: not 0 == 0
  }
  // Units of 100 simulated accesses.
  CHECK(out[0] == static_cast<uint64_t>((l1_in_class / 8 + 99) / 100));
  // The other classes are not what the sample saw (the test can tell).
  CHECK(other[RPC_DRAM_READ] != in_class[RPC_DRAM_READ]);
}

TEST_CASE("set sampling: an access over a line boundary is simulated for its sampled line only") {
  setenv(kCachesEnv, kCaches, 1);
  setenv(kSampleEnv, "sets=2,sel=1,unit=4096", 1);
  unsigned long long program[RPROF_INST_ARRAY] = {};
  sample_thread_start(program);
  // 32 bytes from 16 bytes before line 5's end: 16 in line 5 (sampled), 16
  // in line 6 (not); then a memset-like 256 bytes over lines 8 to 11.
  sample_access(reinterpret_cast<const void*>(uint64_t{6 * 64 - 16}), 32, 0);
  sample_access(reinterpret_cast<const void*>(uint64_t{8 * 64}), 256, 1);
  uint64_t out[kSampledCounters] = {};
  sample_read(out);
  CHECK(out[1] == 16 + 2 * 64);  // L1 bytes of lines 5, 9 and 11
  CHECK(out[3] == 3 * 64);       // each a miss: its line read from L2
}

TEST_CASE("set sampling: settings the runtime refuses") {
  SampleSettings s;
  std::string why;
  CHECK(parse_sample_settings("sets=64,sel=1", kCaches, &s, &why) == false);  // L1: 16 sets
  CHECK(why.find("is more than a level's set count") != std::string::npos);
  CHECK(parse_sample_settings("sets=3", kCaches, &s, &why) == false);
  CHECK(why.find("power of two") != std::string::npos);
  CHECK(parse_sample_settings("sets=4,sel=4", kCaches, &s, &why) == false);
  CHECK(why.find("sel must be below sets") != std::string::npos);
  CHECK(parse_sample_settings("sel=1", kCaches, &s, &why) == false);
  CHECK(why.find("no sets") != std::string::npos);
  CHECK(parse_sample_settings("sets=16,sel=0,unit=7", kCaches, &s, &why));
  CHECK(s.mode == SampleSettings::kSampled);
  CHECK(s.sets == 16);
  CHECK(s.sel == 0);
  CHECK(s.unit == 7);
  CHECK(parse_sample_settings("full", kCaches, &s, &why));
  CHECK(s.mode == SampleSettings::kFull);
  CHECK(parse_sample_settings("off", nullptr, &s, &why));
  CHECK(s.mode == SampleSettings::kOff);
}
