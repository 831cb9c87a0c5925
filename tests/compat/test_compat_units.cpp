// Unit tests of the drop-ins' supporting pieces: the runtime's read-only
// region query (what LIKWID_MARKER_GET returns), name lookup without
// insertion, and the launcher's marker-API detection.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "backends/fake/fake_backend.h"
#include "runtime/clock.h"
#include "runtime/region_table.h"
#include "runtime/thread_state.h"
#include "common/elf_file.h"
#include "tools/rprof/marker_apis.h"

using namespace rprof::runtime;

// The fake backend advances counter 0 by 1 and counter 1 by 2 per read; a
// begin and an end read once each, so a region's count is the reads it spans.
TEST_CASE("region totals: calls and inclusive counters over every place and recursion once") {
  rprof::FakeBackend backend{1};
  ThreadState t{&backend, 2, 0, 1};
  const uint32_t a = intern_region("totals_a"), b = intern_region("totals_b");
  // Times are checked against clock reads around each part (c0..c3), never
  // against each other: the inner calls' times are parts of these spans.
  const uint64_t c0 = now_ticks();
  REQUIRE(t.begin(a) == 0);  // read 1
  REQUIRE(t.begin(b) == 0);  // read 2
  REQUIRE(t.end(b) == 0);    // read 3: b += 1
  REQUIRE(t.end(a) == 0);    // read 4: a += 3
  const uint64_t c1 = now_ticks();
  REQUIRE(t.begin(b) == 0);  // b at the top level too
  REQUIRE(t.end(b) == 0);    // b += 1
  const uint64_t c2 = now_ticks();
  REQUIRE(t.begin(a) == 0);  // recursion: the inner a is counted on the same node
  REQUIRE(t.begin(a) == 0);
  // The inner a lasts at least kSpin: counted twice, a's time would exceed
  // the spans around it (unless the rest of the part took longer still).
  constexpr uint64_t kSpin = 1000000;
  for (const uint64_t s = now_ticks(); now_ticks() - s < kSpin;) {
  }
  REQUIRE(t.end(a) == 0);
  REQUIRE(t.end(a) == 0);  // outer a spans 3 reads: a += 3
  const uint64_t c3 = now_ticks();
  const RegionTotals ta = t.totals(a), tb = t.totals(b);
  CHECK(ta.calls == 3);  // once, then twice (recursive)
  CHECK(ta.incl[0] == 6);
  CHECK(ta.incl[1] == 12);
  CHECK(tb.calls == 2);
  CHECK(tb.incl[0] == 2);
  CHECK(tb.incl[1] == 4);
  CHECK(ta.incl_ticks >= kSpin);
  CHECK(ta.incl_ticks <= (c1 - c0) + (c3 - c2));
  CHECK(tb.incl_ticks <= c2 - c0);
  // An open region is not counted until it ends.
  REQUIRE(t.begin(b) == 0);
  CHECK(t.totals(b).calls == 2);
  REQUIRE(t.end(b) == 0);
  CHECK(t.totals(b).calls == 3);
}

TEST_CASE("find_region looks names up and never inserts") {
  const uint32_t before = region_count();
  CHECK(find_region("find_region_never_interned") == 0);
  CHECK(region_count() == before);
  const uint32_t id = intern_region("find_region_interned");
  CHECK(find_region("find_region_interned") == id);
}

TEST_CASE("marker APIs: which DT_NEEDED entries get which drop-in") {
  using rprof::shim_for_library;
  CHECK(shim_for_library("liblikwid.so.5").shim_file == "librprof-likwid.so");
  CHECK(shim_for_library("liblikwid.so.5.2").api == "LIKWID marker API");
  CHECK_FALSE(shim_for_library("liblikwid.so").is_shim);
  CHECK(shim_for_library("liblikwidpin.so.5").api.empty());  // LIKWID's pinning library
  CHECK(shim_for_library("libpapi.so.7.0").shim_file == "librprof-papi.so");
  CHECK(shim_for_library("libpapi.so.7.0").api == "PAPI high-level API");
  CHECK(shim_for_library("librprof-papi.so.0").is_shim);
  CHECK(shim_for_library("librprof-likwid.so.0").is_shim);
  CHECK(shim_for_library("libc.so.6").api.empty());
  CHECK(shim_for_library("libpapix.so").api.empty());
}

TEST_CASE("elf_needed reads DT_NEEDED and gives nothing for anything else") {
  const std::vector<std::string> self = rprof::elf_needed("/proc/self/exe");
  CHECK(std::find(self.begin(), self.end(), "libc.so.6") != self.end());
  CHECK(rprof::elf_needed("/nonexistent/program").empty());
  const std::string text = std::string(RPROF_TEST_BIN_DIR) + "/not-elf.txt";
  std::ofstream(text) << "#!/bin/sh\necho hi\n";
  CHECK(rprof::elf_needed(text).empty());
  CHECK(rprof::detect_marker_apis(text, {text}).empty());
}

TEST_CASE("preload: drop-ins first and then the LD_PRELOAD of the user") {
  rprof::MarkerApiUse u;
  u.api = "LIKWID marker API";
  u.shim = "/p/lib/librprof-likwid.so";
  std::map<std::string, std::string> env;
  ::setenv("LD_PRELOAD", "/user/libmine.so", 1);
  rprof::preload_marker_shims({u}, env);
  CHECK(env["LD_PRELOAD"] == "/p/lib/librprof-likwid.so:/user/libmine.so");
  ::unsetenv("LD_PRELOAD");
  std::map<std::string, std::string> plain;
  rprof::preload_marker_shims({u}, plain);
  CHECK(plain["LD_PRELOAD"] == "/p/lib/librprof-likwid.so");
  rprof::MarkerApiUse linked = u;
  linked.shim.clear();  // built against the drop-in: nothing to preload
  std::map<std::string, std::string> none;
  rprof::preload_marker_shims({linked}, none);
  CHECK(none.count("LD_PRELOAD") == 0);
}
