// Topology parsers on canned /proc/cpuinfo and sysfs text (Intel and AMD),
// and detect_topology() on a fake root.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "machine/topology.h"

using namespace rprof;
namespace fs = std::filesystem;

namespace {

const char* kIntel = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 207
model name	: INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.30GHz
stepping	: 2
flags		: fpu vme sse sse2 ssse3 fma sse4_1 sse4_2 avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl amx_tile

processor	: 1
vendor_id	: GenuineIntel
cpu family	: 6
model		: 207
model name	: SOMETHING ELSE
flags		: fpu
)";

const char* kAmdNoAvx512 = R"(processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 1
model name	: AMD EPYC 7B13
stepping	: 0
flags		: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx avx2 sse4a
)";

const char* kOld = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 0x2a
model name	: Intel(R) Core(TM) i7-2600
flags		: sse sse2 avx
)";

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// A fake root with cpuinfo and the cache entries of cpu0.
std::string fake_root(const std::string& name, const char* cpuinfo, const char* online,
                      const std::vector<std::vector<std::string>>& caches) {
  const fs::path root = fs::path(RPROF_TEST_BIN_DIR) / "topology-tmp" / name;
  fs::remove_all(root);
  put(root / "proc/cpuinfo", cpuinfo);
  put(root / "sys/devices/system/cpu/online", online);
  int i = 0;
  for (const auto& c : caches) {  // level, type, size, ways, line, shared list
    const fs::path idx =
        root / "sys/devices/system/cpu/cpu0/cache" / ("index" + std::to_string(i++));
    put(idx / "level", c[0]);
    put(idx / "type", c[1]);
    put(idx / "size", c[2]);
    put(idx / "ways_of_associativity", c[3]);
    put(idx / "coherency_line_size", c[4]);
    put(idx / "shared_cpu_list", c[5]);
  }
  return root.string();
}

}  // namespace

TEST_CASE("cpuinfo: Intel with AVX-512, first processor block only") {
  const CpuId id = parse_cpuinfo(kIntel);
  CHECK(id.vendor == "GenuineIntel");
  CHECK(id.family == 6);
  CHECK(id.model == 207);
  CHECK(id.stepping == 2);
  CHECK(id.model_name == "INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.30GHz");
  CHECK(id.sse2);
  CHECK(id.avx);
  CHECK(id.avx2);
  CHECK(id.fma);
  CHECK(id.avx512f);
}

TEST_CASE("cpuinfo: AMD without AVX-512, and a hexadecimal model") {
  const CpuId amd = parse_cpuinfo(kAmdNoAvx512);
  CHECK(amd.vendor == "AuthenticAMD");
  CHECK(amd.family == 25);
  CHECK(amd.model == 1);
  CHECK(amd.avx2);
  CHECK(amd.fma);
  CHECK_FALSE(amd.avx512f);
  const CpuId old = parse_cpuinfo(kOld);
  CHECK(old.model == 42);
  CHECK(old.avx);
  CHECK_FALSE(old.avx2);
  CHECK_FALSE(old.fma);
}

TEST_CASE("sysfs text: cache sizes and CPU lists") {
  CHECK(parse_cache_size("32K") == 32768);
  CHECK(parse_cache_size("1024K") == 1048576);
  CHECK(parse_cache_size("32768K") == 33554432);
  CHECK(parse_cache_size("300M") == 314572800);
  CHECK(parse_cache_size("512") == 512);
  CHECK(parse_cache_size("") == 0);
  CHECK(parse_cache_size("K") == 0);
  CHECK(count_cpu_list("0") == 1);
  CHECK(count_cpu_list("0-1") == 2);
  CHECK(count_cpu_list("0-3,8") == 5);
  CHECK(count_cpu_list("0-15,32-47") == 32);
  CHECK(count_cpu_list("") == 0);
}

TEST_CASE("detect_topology on a fake Intel root: L1d, L2, shared L3 -- L1i skipped") {
  const std::string root = fake_root(
      "intel", kIntel, "0-1",
      {{"1", "Data", "48K", "12", "64", "0-1"},
       {"1", "Instruction", "32K", "8", "64", "0-1"},
       {"2", "Unified", "2048K", "16", "64", "0-1"},
       {"3", "Unified", "307200K", "15", "64", "0-1"}});
  const Topology t = detect_topology(root);
  CHECK(t.cpu.model == 207);
  CHECK(t.logical_cpus == 2);
  REQUIRE(t.caches.size() == 3);
  CHECK(t.level(1)->size_bytes == 49152);
  CHECK(t.level(1)->associativity == 12);
  CHECK(t.level(1)->shared_cpus == 2);  // hyperthread siblings
  CHECK(t.level(2)->size_bytes == 2097152);
  CHECK(t.last_level()->level == 3);
  CHECK(t.last_level()->size_bytes == 314572800);
}

TEST_CASE("detect_topology on a fake AMD root: L3 shared by two CPUs") {
  const std::string root = fake_root(
      "amd", kAmdNoAvx512, "0-1",
      {{"1", "Data", "32K", "8", "64", "0"},
       {"1", "Instruction", "32K", "8", "64", "0"},
       {"2", "Unified", "1024K", "8", "64", "0"},
       {"3", "Unified", "32768K", "16", "64", "0-1"}});
  const Topology t = detect_topology(root);
  CHECK(t.cpu.vendor == "AuthenticAMD");
  REQUIRE(t.caches.size() == 3);
  CHECK(t.level(1)->size_bytes == 32768);
  CHECK(t.level(1)->shared_cpus == 1);
  CHECK(t.level(2)->size_bytes == 1048576);
  CHECK(t.level(3)->size_bytes == 33554432);
  CHECK(t.level(3)->shared_cpus == 2);
  CHECK(t.level(3)->line_bytes == 64);
}
