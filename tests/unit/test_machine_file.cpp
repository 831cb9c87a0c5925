// The machine file: round trip, every bad-input path, CPU matching, cache
// paths, nearest thread count.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "machine/machine_file.h"
#include "machine_fixture.h"

using namespace rprof;
namespace fs = std::filesystem;

namespace {

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::path(RPROF_TEST_BIN_DIR) / "machine-file-tmp";
  fs::create_directories(dir);
  return (dir / name).string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string load_error(const std::string& path) {
  try {
    load_machine_file(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("machine file round trip keeps every figure") {
  const Machine m = test::synthetic_machine();
  const std::string path = temp_path("round.json");
  save_machine_file(m, path);
  const Machine back = load_machine_file(path);
  CHECK(back.schema_version == kMachineSchemaVersion);
  // The streamed file is what a DOM of it dumps (keys sorted, indent 2), and
  // the machine read back writes the same file.
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == machine_to_json(m).dump(2) + "\n");
  CHECK(machine_json_text(back) == text);
  CHECK(back.mode == "quick");
  CHECK(back.cpu.model_name == "Test CPU");
  CHECK(back.cpu.model == 207);
  CHECK(back.cpu.avx512f);
  CHECK(back.clock_ghz == Approx(2.5));
  REQUIRE(back.caches.size() == 3);
  CHECK(back.caches[2].reported_bytes == 314572800);
  CHECK(back.caches[2].effective_bytes == 60000000);
  CHECK(back.caches[2].shared_cpus == 2);
  REQUIRE(back.ceilings.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const CeilingSet &a = m.ceilings[i], &b = back.ceilings[i];
    CHECK(b.threads == a.threads);
    CHECK(b.cpus == a.cpus);
    REQUIRE(b.peaks.size() == a.peaks.size());
    for (size_t k = 0; k < a.peaks.size(); ++k) {
      CHECK(b.peaks[k].precision == a.peaks[k].precision);
      CHECK(b.peaks[k].width == a.peaks[k].width);
      CHECK(b.peaks[k].mix == a.peaks[k].mix);
      CHECK(b.peaks[k].gflops == Approx(a.peaks[k].gflops));
      CHECK(b.peaks[k].how.repetitions == a.peaks[k].how.repetitions);
    }
    REQUIRE(b.bandwidth.size() == a.bandwidth.size());
    for (size_t k = 0; k < a.bandwidth.size(); ++k) {
      CHECK(b.bandwidth[k].boundary == a.bandwidth[k].boundary);
      CHECK(b.bandwidth[k].mix == a.bandwidth[k].mix);
      CHECK(b.bandwidth[k].gbs == Approx(a.bandwidth[k].gbs));
      CHECK(b.bandwidth[k].traffic_gbs == Approx(a.bandwidth[k].traffic_gbs));
      CHECK(b.bandwidth[k].how.working_set_bytes == 1000);
    }
    CHECK(b.latency.size() == 1);
  }
  CHECK(back.sweeps.size() == 1);
  CHECK(back.sweeps[0].points[1].bytes == (1u << 30));
  CHECK(back.notes == m.notes);
  // Derived lookups work on what was read back.
  CHECK(back.ceilings[0].top_peak(Precision::kDP)->gflops == Approx(80));
  CHECK(back.ceilings[0].peak(Precision::kDP, Width::k256)->mix == FlopMix::kFma);
  CHECK(back.ceilings[0].roof_bandwidth(Boundary::kDRAM)->mix == StreamMix::kTriad);
}

TEST_CASE("corrupt, truncated and foreign machine files are named and the fix given") {
  const Machine m = test::synthetic_machine();
  const std::string good = machine_to_json(m).dump();
  struct Case {
    const char* name;
    std::string text;
    const char* says;
  };
  nlohmann::json wrong_version = machine_to_json(m);
  wrong_version["schema_version"] = 99;
  nlohmann::json no_ceilings = machine_to_json(m);
  no_ceilings["ceilings"] = nlohmann::json::array();
  nlohmann::json negative = machine_to_json(m);
  negative["ceilings"][0]["peaks"][0]["gflops"] = -3;
  nlohmann::json absurd = machine_to_json(m);
  absurd["ceilings"][0]["peaks"][0]["gflops"] = 1e308;
  nlohmann::json absurd_bw = machine_to_json(m);
  absurd_bw["ceilings"][0]["bandwidth"][0]["gbs"] = 5e6;
  nlohmann::json wrong_type = machine_to_json(m);
  wrong_type["ceilings"][0]["threads"] = "two";
  nlohmann::json bad_width = machine_to_json(m);
  bad_width["ceilings"][0]["peaks"][0]["width"] = "1024";
  nlohmann::json no_cpu = machine_to_json(m);
  no_cpu.erase("cpu");
  nlohmann::json peaks_not_array = machine_to_json(m);
  peaks_not_array["ceilings"][0]["peaks"] = 5;
  const Case cases[] = {
      {"empty.json", "", "empty"},
      {"truncated.json", good.substr(0, good.size() / 2), "not JSON (truncated?), it ends at byte"},
      {"garbage.json", "\x01\x02 not json",
       "not JSON, syntax error at byte 0 (line 1, column 1): invalid literal"},
      {"foreign.json", R"({"format":"rprof-profile","schema_version":1})", "foreign"},
      {"array.json", "[1,2,3]", "foreign"},
      {"version.json", wrong_version.dump(), "schema_version 99"},
      {"noceil.json", no_ceilings.dump(), "no ceilings"},
      {"negative.json", negative.dump(), "ceilings[0].peaks[0].gflops: -3 GFLOP/s must be > 0"},
      {"absurd.json", absurd.dump(), "ceilings[0].peaks[0].gflops: 1e+308 GFLOP/s is beyond any machine (at most 1e+07 GFLOP/s)"},
      {"absurd_bw.json", absurd_bw.dump(), "ceilings[0].bandwidth[0].gbs: 5e+06 GB/s is beyond any machine (at most 1e+06 GB/s)"},
      {"type.json", wrong_type.dump(), "ceilings[0].threads: expected an integer, got a string"},
      {"width.json", bad_width.dump(), "unknown width '1024'"},
      {"nocpu.json", no_cpu.dump(), "missing 'cpu'"},
      {"peaks.json", peaks_not_array.dump(), "ceilings[0].peaks: expected an array, got 5"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = temp_path(c.name);
    write(path, c.text);
    const std::string err = load_error(path);
    CHECK(err.find(path) != std::string::npos);
    CHECK(err.find(c.says) != std::string::npos);
    CHECK(err.find("rprof machine --output " + path) != std::string::npos);
  }
  const std::string missing = load_error(temp_path("does-not-exist.json"));
  CHECK(missing.find("no such machine file") != std::string::npos);
  CHECK(missing.find("rprof machine --output") != std::string::npos);
}

TEST_CASE("a file measured on another CPU does not apply") {
  CpuId a;
  a.vendor = "GenuineIntel";
  a.family = 6;
  a.model = 207;
  a.model_name = "Intel(R) Xeon(R) Platinum 8581C";
  a.avx512f = a.avx2 = a.fma = true;
  CpuId b = a;
  CHECK(cpu_mismatch(a, b).empty());
  b.stepping = 3;  // a stepping alone does not change the ceilings' meaning
  CHECK(cpu_mismatch(a, b).empty());
  b.model = 143;
  const std::string why = cpu_mismatch(a, b);
  CHECK(why.find("model 207") != std::string::npos);
  CHECK(why.find("model 143") != std::string::npos);
  CpuId c = a;
  c.vendor = "AuthenticAMD";
  CHECK_FALSE(cpu_mismatch(a, c).empty());
  CpuId d = a;
  d.avx512f = false;  // AVX-512 disabled (e.g. a VM that hides it)
  CHECK(cpu_mismatch(a, d).find("instruction sets") != std::string::npos);
}

TEST_CASE("cache path: XDG_CACHE_HOME, keyed by CPU and thread count") {
  CpuId c;
  c.vendor = "AuthenticAMD";
  c.family = 25;
  c.model = 17;
  c.stepping = 1;
  c.model_name = "AMD EPYC 9R14 96-Core Processor";
  const std::string key = cpu_key(c);
  CHECK(key.rfind("AuthenticAMD-f25-m17-s1-", 0) == 0);
  CHECK(key.find(' ') == std::string::npos);
  CHECK(key.find('/') == std::string::npos);
  CpuId other = c;
  other.model_name = "AMD EPYC 9654";
  CHECK(cpu_key(other) != key);
  setenv("XDG_CACHE_HOME", "/tmp/rprof-xdg-test", 1);
  CHECK(machine_cache_dir() == "/tmp/rprof-xdg-test/rprof");
  CHECK(machine_cache_path(c, 2) == "/tmp/rprof-xdg-test/rprof/machine-" + key + "-2t.json");
  CHECK(machine_cache_path(c, 2) != machine_cache_path(c, 4));
  setenv("XDG_CACHE_HOME", "relative/ignored", 1);  // the spec wants absolute paths
  setenv("HOME", "/home/someone", 1);
  CHECK(machine_cache_dir() == "/home/someone/.cache/rprof");
  unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("nearest thread count: ties go to the smaller count") {
  Machine m;
  for (int t : {1, 4, 8}) {
    CeilingSet s;
    s.threads = t;
    m.ceilings.push_back(s);
  }
  CHECK(m.nearest(1)->threads == 1);
  CHECK(m.nearest(2)->threads == 1);
  CHECK(m.nearest(3)->threads == 4);
  CHECK(m.nearest(6)->threads == 4);
  CHECK(m.nearest(7)->threads == 8);
  CHECK(m.nearest(64)->threads == 8);
  CHECK(m.max_threads() == 8);
  CHECK(Machine{}.nearest(1) == nullptr);
}
