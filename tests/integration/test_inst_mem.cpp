// The inst backend's memory accesses for the cache model (plugin option
// memory=on, inst_counters.h RPROF_INST_SET_BITS): programs built with
// `rprof cc` at -O0, -O2 and -O3 -mavx2 -mfma, run natively with a stand-in
// for librprof preloaded (inst_mem/mem_hooks.c) that sets the set filter and
// sums what reaches rprof_inst_mem. With every access passed, the bytes
// passed to the load and store hooks equal the bytes the counters count,
// kernel by kernel and for the whole run, exactly; each access lies in the
// kernel's arrays; the program's own initial filter calls nothing; a filter
// of 1 line in F passes every byte of those lines (the same bytes as
// passing everything) with about 1/F of the calls.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backends/inst/inst_cc.h"
#include "backends/inst/inst_counters.h"
#include "integration/harness.h"
#include "integration/inst_build.h"
#include "skip.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

const std::string kCc = RPROF_TEST_CC;
const std::string kHooks = RPROF_TEST_MEM_HOOKS;

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

const std::string kSource =
    std::string(RPROF_SOURCE_DIR) + "/tests/integration/inst_mem/mem_kernels.c";

// mem_kernels.c built with `rprof cc` and `opts`.
std::string build(const std::string& opts, const std::string& tag,
                  const std::string& compiler = kCc) {
  const std::string out = fresh_path("mem_kernels_" + tag);
  std::vector<std::string> argv = {RPROF_BIN, "cc", "--", compiler};
  for (const std::string& o : split_words(opts)) argv.push_back(o);
  for (const std::string& a : {kSource, std::string("-o"), out}) argv.push_back(a);
  return compile(argv, out);
}

// One line of mem_hooks.c's output.
struct Line {
  unsigned long long read = 0, write = 0;     // the counters' bytes
  unsigned long long loaded = 0, stored = 0;  // the hooks'
  unsigned long long calls = 0;
  unsigned long long selected = 0;  // bytes in RPROF_TEST_SELECT's lines
  unsigned long long inside = 0;  // calls within the kernel's arrays
};

// Runs the program with the hooks preloaded; filter: "" (every access),
// "none" (the program's initial filter) or "F:C"; select: "F:C" for the
// selected bytes, or "".
// counting: RPROF_INST_COUNTING, the loop nests' version: "2" counted with
// their accesses (as rprof's counted run with the cache model sets it), "1"
// counted, "" (unset) their plain copies.
std::map<std::string, Line> run(const std::string& program, const std::string& mode,
                                const std::string& filter = "", const std::string& select = "",
                                const std::string& counting = "2") {
  const std::string out = fresh_path("mem_hooks") + ".txt";
  std::vector<std::string> env = {preload_env(kHooks), "RPROF_TEST_MEM_OUT=" + out};
  if (!counting.empty()) env.push_back(std::string(RPROF_INST_COUNTING_ENV) + "=" + counting);
  if (!filter.empty()) env.push_back("RPROF_TEST_FILTER=" + filter);
  if (!select.empty()) env.push_back("RPROF_TEST_SELECT=" + select);
  const RunResult r = run_command({program, mode}, env);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, Line> lines;
  std::ifstream in(out);
  std::string name;
  Line l;
  while (in >> name >> l.read >> l.write >> l.loaded >> l.stored >> l.calls >> l.selected >>
         l.inside) {
    lines[name] = l;
  }
  REQUIRE(lines.count("total") == 1);
  return lines;
}

struct Level {
  std::string opts, tag;
};

}  // namespace

TEST_CASE("inst memory: the hooks get exactly the bytes the counters count", "[inst][memory]") {
  need_plugin();
  std::vector<Level> levels = {{"-O0", "O0"}, {"-O2", "O2"}};
  if (cpu_has_avx2()) levels.push_back({"-O3 -mavx2 -mfma", "O3avx2"});
  for (const Level& lv : levels) {
    INFO(lv.opts);
    const std::string program = build(lv.opts, lv.tag);
    CHECK(rprof::inst_memory_instrumented(program));
    const std::map<std::string, Line> lines = run(program, "all");
    for (const char* k : {"daxpy", "masked", "stencil", "records", "blocks", "total"}) {
      INFO(k);
      REQUIRE(lines.count(k) == 1);
      const Line& l = lines.at(k);
      CHECK(l.read > 0);
      CHECK(l.loaded == l.read);
      CHECK(l.stored == l.write);
      CHECK(l.calls > 0);
    }
    // Every access of the kernels given their arrays lies in them.
    for (const char* k : {"daxpy", "masked", "stencil", "blocks"}) {
      INFO(k);
      CHECK(lines.at(k).inside == lines.at(k).calls);
    }
    // daxpy, n = 1000: x and y read, y written (8 bytes each), vectorized
    // or not; memcpy of 4096 (read and written) and memset of 4096.
    CHECK(lines.at("daxpy").loaded == 16000);
    CHECK(lines.at("daxpy").stored == 8000);
    CHECK(lines.at("blocks").loaded == 4096);
    CHECK(lines.at("blocks").stored == 8192);
    CHECK(lines.at("blocks").calls == 3);
    if (lv.tag == "O0") {
      // 62 x 62 points, 5 loads and a store each; one call per access.
      CHECK(lines.at("stencil").loaded == 5 * 62 * 62 * 8);
      CHECK(lines.at("stencil").stored == 62 * 62 * 8);
      CHECK(lines.at("stencil").calls == 6 * 62 * 62);
      CHECK(lines.at("daxpy").calls == 3000);
    }
    if (lv.tag != "O3avx2") {
      // Scalar: c[i] read, a[i] read and s[i] written for the 500 odd i.
      CHECK(lines.at("masked").loaded == 4000 + 500 * 8);
      CHECK(lines.at("masked").stored == 500 * 8);
    } else {
      // Masked loads and stores count (and pass) their whole vector: more
      // than the scalar code's bytes.
      CHECK(lines.at("masked").loaded > 8000);
      CHECK(lines.at("masked").stored > 4000);
    }
  }
}

TEST_CASE("inst memory through clang: the hooks get exactly the bytes the counters count",
          "[inst][memory]") {
#if !RPROF_TEST_LLVM_PLUGIN
  skip_test("rprof is built without its LLVM plugin (no clang, or no llvm-N-dev for it)");
#endif
  std::vector<Level> levels = {{"-O0", "clangO0"}, {"-O2", "clangO2"}};
  if (cpu_has_avx2()) levels.push_back({"-O3 -march=haswell", "clangO3hsw"});
  for (const Level& lv : levels) {
    INFO("clang " << lv.opts);
    const std::string program = build(lv.opts, lv.tag, RPROF_TEST_CLANG);
    CHECK(rprof::inst_memory_instrumented(program));
    // Optimized, each function with loops has a plain and a counted version.
    CHECK(rprof::inst_loops_versioned(program) == (lv.opts != "-O0"));
    const std::map<std::string, Line> lines = run(program, "all");
    if (lv.opts != "-O0") {
      // RPROF_INST_COUNTING unset: daxpy's plain version counts nothing and
      // calls no hook.
      const std::map<std::string, Line> plain = run(program, "all", "", "", "");
      CHECK(plain.at("daxpy").read == 0);
      CHECK(plain.at("daxpy").write == 0);
      CHECK(plain.at("daxpy").calls == 0);
      // RPROF_INST_COUNTING=1, counts alone: the counted version, whose
      // filter then passes nothing (a filter that passes everything is set).
      const std::map<std::string, Line> bytes_only = run(program, "all", "", "", "1");
      CHECK(bytes_only.at("daxpy").read == 16000);
      CHECK(bytes_only.at("daxpy").write == 8000);
      CHECK(bytes_only.at("daxpy").calls == 0);
    }
    for (const char* k : {"daxpy", "masked", "stencil", "records", "blocks", "total"}) {
      INFO(k);
      REQUIRE(lines.count(k) == 1);
      const Line& l = lines.at(k);
      CHECK(l.read > 0);
      CHECK(l.loaded == l.read);
      CHECK(l.stored == l.write);
      CHECK(l.calls > 0);
    }
    // clang at -O0 keeps every local variable in memory (its loop counters
    // too): accesses outside the arrays, which the counters count as well.
    for (const char* k : {"daxpy", "masked", "stencil", "blocks"}) {
      INFO(k);
      if (lv.opts != "-O0") CHECK(lines.at(k).inside == lines.at(k).calls);
    }
    if (lv.opts == "-O0") {
      CHECK(lines.at("daxpy").loaded > 16000);
      CHECK(lines.at("daxpy").stored > 8000);
      continue;
    }
    CHECK(lines.at("daxpy").loaded == 16000);
    CHECK(lines.at("daxpy").stored == 8000);
    CHECK(lines.at("blocks").loaded == 4096);
    CHECK(lines.at("blocks").stored == 8192);
    // The program's initial filter: nothing passed.
    const Line none = run(program, "all", "none").at("total");  // a copy: the map is a temporary
    CHECK(none.calls == 0);
    CHECK(none.loaded + none.stored == 0);
  }
  // The GCC plugin's options, through the environment: one version, counted
  // whatever the flag; a bad value refused with the reason.
  const std::string one = build("-O2 -fplugin-arg-rprof_inst-versions=off", "clangO2nov",
                                RPROF_TEST_CLANG);
  CHECK_FALSE(rprof::inst_loops_versioned(one));
  CHECK(run(one, "all", "", "", "").at("daxpy").read == 16000);
  const RunResult r = run_command({RPROF_BIN, "cc", "--", RPROF_TEST_CLANG, "-O2",
                                   "-fplugin-arg-rprof_inst-versions=maybe", "-c", kSource, "-o",
                                   fresh_path("badv_clang") + ".o"});
  CHECK(r.status != 0);
  CHECK(r.err.find("versions=maybe: expected on or off") != std::string::npos);
}

TEST_CASE("inst memory: the program's initial filter calls nothing", "[inst][memory]") {
  need_plugin();
  const std::string program = build("-O2", "O2none");
  const std::map<std::string, Line> lines = run(program, "all", "none");
  const Line& t = lines.at("total");
  // Not even the accesses over 64 bytes (memcpy, memset), which a sampling
  // filter always passes.
  CHECK(t.read >= 16000);
  CHECK(t.write >= 8000);
  CHECK(t.calls == 0);
  CHECK(t.loaded == 0);
  CHECK(t.stored == 0);
}

TEST_CASE("inst memory: without RPROF_INST_COUNTING the loops run their plain copies",
          "[inst][memory]") {
  need_plugin();
  for (const char* opts : {"-O2", "-O2 -fplugin-arg-rprof_inst-versions=off"}) {
    INFO(opts);
    const bool versions = std::string(opts).find("versions=off") == std::string::npos;
    const std::string program = build(opts, versions ? "O2plain" : "O2noversions");
    CHECK(rprof::inst_loops_versioned(program) == versions);
    const std::map<std::string, Line> counted = run(program, "all");
    const std::map<std::string, Line> bytes_only = run(program, "all", "", "", "1");
    const std::map<std::string, Line> plain = run(program, "all", "", "", "");
    // Counted: the kernels' bytes, every access passed on.
    CHECK(counted.at("daxpy").read == 16000);
    CHECK(counted.at("daxpy").calls > 0);
    // Counted without accesses: the same bytes, no hook called in the loop
    // (a filter that passes everything is set: nothing reaches it).
    CHECK(bytes_only.at("daxpy").read == 16000);
    CHECK(bytes_only.at("daxpy").write == 8000);
    CHECK((bytes_only.at("daxpy").calls == 0) == versions);
    if (versions) {
      // The plain copy of daxpy's loop counts nothing and calls no hook.
      CHECK(plain.at("daxpy").read == 0);
      CHECK(plain.at("daxpy").write == 0);
      CHECK(plain.at("daxpy").calls == 0);
    } else {
      // One version, counted whatever the flag.
      CHECK(plain.at("daxpy").read == 16000);
      CHECK(plain.at("daxpy").calls == counted.at("daxpy").calls);
    }
  }
  // A bad value is refused by the plugin, with the reason.
  const RunResult r = run_command({RPROF_BIN, "cc", kCc, "-O2", "-fplugin-arg-rprof_inst-versions=maybe",
                                   "-c", kSource, "-o", fresh_path("badv") + ".o"});
  CHECK(r.status != 0);
  CHECK(r.err.find("versions=maybe: expected on or off") != std::string::npos);
}

TEST_CASE("inst memory: a filter of 1 line in F passes every byte of those lines",
          "[inst][memory]") {
  need_plugin();
  std::vector<Level> levels = {{"-O0", "O0f"}, {"-O2", "O2f"}};
  if (cpu_has_avx2()) levels.push_back({"-O3 -mavx2 -mfma", "O3avx2f"});
  for (const Level& lv : levels) {
    const std::string program = build(lv.opts, lv.tag);
    for (const std::string sel : {"8:3", "64:1"}) {
      INFO(lv.opts << ", lines " << sel);
      // Every access passed: the bytes that lie in the lines, counted by the
      // stand-in; then only the filter's: the same bytes, fewer calls.
      const std::map<std::string, Line> all = run(program, "all", "", sel);
      const std::map<std::string, Line> some = run(program, "all", sel, sel);
      // (Not records, on the stack: its lines move with the stack between runs.)
      for (const char* k : {"daxpy", "masked", "stencil", "blocks"}) {
        INFO(k);
        CHECK(all.at(k).selected > 0);
        CHECK(some.at(k).selected == all.at(k).selected);
      }
      // Fewer calls: at most the share of the lines plus the accesses that
      // straddle two lines or pass beside a selected one in their statement,
      // and those over 64 bytes (memcpy, memset).
      const double f = sel == "8:3" ? 8 : 64;
      CHECK(some.at("total").calls < all.at("total").calls);
      CHECK(static_cast<double>(some.at("stencil").calls) <
            4.0 / f * static_cast<double>(all.at("stencil").calls) + 64);
    }
  }
}

TEST_CASE("inst memory: memory=off leaves the accesses alone and says so", "[inst][memory]") {
  need_plugin();
  const std::string program = build("-O2 -fplugin-arg-rprof_inst-memory=off", "O2off");
  CHECK_FALSE(rprof::inst_memory_instrumented(program));
  // "M" is not a function name.
  for (const std::string& c : rprof::uncounted_callees(build("-O2", "O2on"))) CHECK(c != "M");
  const std::map<std::string, Line> lines = run(program, "all");
  CHECK(lines.at("daxpy").read == 16000);
  CHECK(lines.at("total").calls == 0);
  // A bad value is refused by the plugin, with the reason.
  const RunResult r = run_command({RPROF_BIN, "cc", kCc, "-O2", "-fplugin-arg-rprof_inst-memory=yes",
                                   "-c", kSource, "-o", fresh_path("bad") + ".o"});
  CHECK(r.status != 0);
  CHECK(r.err.find("memory=yes: expected on or off") != std::string::npos);
}
