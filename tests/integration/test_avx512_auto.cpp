// A program with AVX-512 code under --backend=auto where the simulator would
// be chosen: rprof says before running that Valgrind cannot run it and
// offers `rprof cc`, and no row of the report comes from a failed counted
// run. The scan of the program's code needs no AVX-512 CPU.
#include <catch2/catch.hpp>
#include <filesystem>

#include "backends/sim/avx512_scan.h"
#include "integration/harness.h"

using namespace rprof;
using namespace rprof::test;

namespace {

std::string avx512_app() { return std::string(RPROF_TEST_BIN_DIR) + "/apps/avx512_loop"; }

}  // namespace

TEST_CASE("avx512 scan: a run of EVEX instructions, not stray 0x62 bytes") {
  // vaddpd zmm0,zmm0,zmm0 (62 f1 fd 48 58 c0), vmovapd [rax],zmm1
  // (62 f1 fd 48 29 08), vzeroupper (c5 f8 77).
  const uint8_t run[] = {0x48, 0x89, 0xc7, 0x62, 0xf1, 0xfd, 0x48, 0x58, 0xc0, 0x62,
                         0xf1, 0xfd, 0x48, 0x29, 0x08, 0xc5, 0xf8, 0x77, 0xc3};
  CHECK(find_avx512_run(run, sizeof(run)) == 3);
  // One EVEX instruction followed by scalar code: not a run.
  const uint8_t lone[] = {0x62, 0xf1, 0xfd, 0x48, 0x58, 0xc0, 0x48, 0x89, 0xc7, 0xc3, 0x90, 0x90};
  CHECK(find_avx512_run(lone, sizeof(lone)) == -1);
  // 0x62 in an immediate (mov eax, 0x62626262) is no prefix.
  const uint8_t imm[] = {0xb8, 0x62, 0x62, 0x62, 0x62, 0xc3, 0x90, 0x90, 0x90, 0x90};
  CHECK(find_avx512_run(imm, sizeof(imm)) == -1);
  // This test's own code (built without AVX-512 flags) has none.
  CHECK(avx512_code_in("/proc/self/exe") == "");
  CHECK(avx512_code_in(sample("daxpy")) == "");
  CHECK(avx512_code_in(sample("matmul_avx2")) == "");  // VEX (AVX2) code is not AVX-512
}

TEST_CASE("auto backend on an AVX-512 program: refused by sim before running, rprof cc offered") {
#ifndef RPROF_TEST_HAVE_AVX512_APP
  skip_test("the compiler has no -mavx512f: no AVX-512 program to test with");
#else
  const std::string where = avx512_code_in(avx512_app());
  INFO("scan of " << avx512_app());
  REQUIRE(where.rfind("0x", 0) == 0);
  if (!__builtin_cpu_supports("avx512f")) {
    // The rest runs the program natively (timing only), which this CPU cannot.
    skip_test("this CPU has no AVX-512F: the scan passed; the program is not run");
  }
  auto r = run_rprof({"--backend=auto", avx512_app(), "4096"});
  INFO(r.err);
  auto p = load_json(r.dir + "/profile.json");
  const std::string backend = p["run"]["backend"].get<std::string>();
  if (backend != "time" && backend != "inst") {
    skip_test("auto chose " + backend + " (hardware counters work here): sim was not the choice");
  }
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("uses AVX-512 (EVEX-encoded) instructions (at " + where) &&
                        Catch::Contains("which Valgrind cannot run") &&
                        Catch::Contains("`rprof cc`"));
  // Refused before running: there is no simulated run in the output.
  CHECK_FALSE(std::filesystem::exists(r.dir + "/raw-sim"));
  CHECK_FALSE(p["run"].contains("failure"));
  CHECK(find_region(p, "add512").is_object());
#endif
}

TEST_CASE("sim backend on an AVX-512 program: the failed counted run leaves no rows") {
#ifndef RPROF_TEST_HAVE_AVX512_APP
  skip_test("the compiler has no -mavx512f: no AVX-512 program to test with");
#else
  if (!__builtin_cpu_supports("avx512f")) {
    skip_test("this CPU has no AVX-512F: the native run of --backend=sim cannot run it");
  }
  auto r = run_rprof({"--backend=sim", avx512_app(), "4096"});
  INFO(r.err);
  if (r.err.find("no sim backend") != std::string::npos ||
      r.err.find("Valgrind") == std::string::npos) {
    skip_test("the sim backend does not run here");
  }
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("`rprof cc`"));
  auto p = load_json(r.dir + "/profile.json");
  const std::string failure = p["run"].value("failure", "");
  CHECK_THAT(failure, Catch::StartsWith("the simulated (counted) run failed: ") &&
                          Catch::Contains("AVX-512"));
  // The native run's rows only: times, no counts from the failed run.
  for (const auto& reg : p["regions"]) {
    INFO(reg["path"].dump());
    CHECK(reg["counters"].empty());
  }
  // Every writer's header names the failure.
  CHECK_THAT(read_text(r.dir + "/report.txt"), Catch::Contains("FAILED: " + failure));
  CHECK_THAT(r.out, Catch::Contains("FAILED: " + failure));
  // The chart's title (HTML <title>, the SVG's heading) and the HTML's data.
  const std::string title = "(FAILED: the simulated (counted) run failed: ";
  CHECK_THAT(read_text(r.dir + "/report.html"), Catch::Contains(title));
  CHECK_THAT(read_text(r.dir + "/roofline.svg"), Catch::Contains(title));
#endif
}
