// The inst backend through clang (issue 49): `rprof cc -- clang` builds with
// rprof's LLVM pass plugin, which feeds the same run-time object and note as
// the GCC plugin. Checked against the source's own counts (PolyBench-style
// kernels at -O0), against the sim backend on the same binary (-O2, -O3
// -march=haswell), AVX-512 totals where the CPU has it, OpenMP with libomp,
// loop region names against GCC's, and a program mixing GCC and clang
// objects. Skips where clang or the LLVM plugin is missing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "integration/inst_build.h"
#include "skip.h"

using nlohmann::json;
using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

const std::string kClang = RPROF_TEST_CLANG;
const std::string kCc = RPROF_TEST_CC;
const std::string kLibDir = RPROF_TEST_LIB_DIR;

void need_llvm_plugin() {
#if !RPROF_TEST_LLVM_PLUGIN
  skip_test("rprof is built without its LLVM plugin (no clang, or no llvm-N-dev for it, at "
            "build time)");
#endif
}

void need_sim_backend() {
#if !RPROF_TEST_SIM
  skip_test("rprof is built without the sim backend (no valgrind at build time)");
#endif
}

bool cpu_has(const std::string& feature) {
  __builtin_cpu_init();
  if (feature == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (feature == "avx512f") return __builtin_cpu_supports("avx512f");
  return false;
}

std::string source(const std::string& rel) { return std::string(RPROF_SOURCE_DIR) + "/" + rel; }

// `src` built by `rprof cc -- compiler` with the markers on.
std::string build(const std::string& compiler, const std::string& src, const std::string& opts,
                  const std::vector<std::string>& extra = {}) {
  const std::string out = fresh_path(fs::path(src).stem().string() + "_clang");
  std::vector<std::string> argv = {RPROF_BIN, "cc", "--", compiler};
  for (const std::string& o : split_words(opts)) argv.push_back(o);
  for (const std::string& e : extra) argv.push_back(e);
  argv.push_back(src);
  for (const std::string& a : with_rprof(kLibDir, out)) argv.push_back(a);
  return compile(argv, out);
}

// Every region of a run by path ("a/b"): its counters.
std::map<std::string, json> regions_of(const RunResult& r) {
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  std::map<std::string, json> out;
  std::vector<const json*> todo;
  for (const json& x : p["regions"]) todo.push_back(&x);
  while (!todo.empty()) {
    const json& x = *todo.back();
    todo.pop_back();
    std::string path;
    for (const json& part : x["path"]) path += (path.empty() ? "" : "/") + part.get<std::string>();
    out[path] = x.value("counters", json::object());
    for (const json& c : x.value("children", json::array())) todo.push_back(&c);
  }
  return out;
}

double counter(const json& c, const std::string& name) { return c.value(name, 0.0); }

const char* const kFlopCounters[] = {
    "flops.sp.scalar", "flops.sp.128", "flops.sp.256", "flops.sp.512",
    "flops.dp.scalar", "flops.dp.128", "flops.dp.256", "flops.dp.512"};

double flops_total(const json& c) {
  double s = 0;
  for (const char* k : kFlopCounters) s += counter(c, k);
  return s;
}

// tests/sim/polybench.c's kernels, sizes and source FLOPs (as test_inst's).
const std::vector<std::string> kPolyArgs = {"gemm=20,22,24", "2mm=10,12,14,16", "atax=30,34",
                                            "mvt=40", "syrk=18,20", "jacobi1d=10,100",
                                            "jacobi2d=4,20", "trisolv=50"};
const std::map<std::string, double> kPolyFlops = {
    {"gemm", 20 * 22 + 3.0 * 20 * 22 * 24},
    {"2mm", 3.0 * 10 * 12 * 14 + 10 * 16 + 2.0 * 10 * 16 * 12},
    {"atax", 4.0 * 30 * 34},
    {"mvt", 4.0 * 40 * 40},
    {"syrk", 18 * 19 / 2 * (1 + 3.0 * 20)},
    {"jacobi1d", 6.0 * 10 * 98},
    {"jacobi2d", 10.0 * 4 * 18 * 18},
    {"trisolv", 50.0 * 50}};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A script named `name` in a fresh directory that answers --version and
// -dumpversion as a compiler would: the refusals come before any compile.
std::string fake_compiler(const std::string& name, const std::string& version_line,
                          const std::string& dumpversion) {
  const std::string dir = fresh_path("fake compiler");
  fs::create_directories(dir);
  const std::string path = dir + "/" + name;
  {
    std::ofstream f(path);
    f << "#!/bin/sh\ncase \"$1\" in\n  --version) echo '" << version_line << "' ;;\n"
      << "  -dumpversion) echo '" << dumpversion << "' ;;\n"
      << "  *) echo 'compiled' > \"$(dirname \"$0\")/ran\" ;;\nesac\n";
  }
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

}  // namespace

TEST_CASE("rprof cc -- clang: the flags it adds, and the compilers and options it refuses") {
  need_llvm_plugin();
  const RunResult flags = run_tool({"cc", "--flags", kClang});
  REQUIRE(flags.status == 0);
  CHECK(flags.out.rfind("-fpass-plugin=/", 0) == 0);
  CHECK(flags.out.find("rprof_inst_llvm.so") != std::string::npos);
  // Another LLVM major: one line, before compiling, exit 2.
  const std::string other = fake_compiler("clang", "clang version 99.0.1", "99.0.1");
  const RunResult bad = run_tool({"cc", "--", other, "-O2", "-c", "x.c"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("clang 99") != std::string::npos);
  CHECK(bad.err.find('\n') == bad.err.size() - 1);
  CHECK_FALSE(fs::exists(fs::path(other).parent_path() / "ran"));
  // LTO: the plugin would run before the link-time optimizer.
  const RunResult lto = run_tool({"cc", "--", kClang, "-O2", "-flto", "-c", "x.c"});
  CHECK(lto.status == 2);
  CHECK(lto.err.find("-flto") != std::string::npos);
  // flang-new: named, refused.
  const std::string flang = fake_compiler("flang-new", "flang-new version 14.0.6", "14.0.6");
  const RunResult f = run_tool({"cc", "--", flang, "-O2", "-c", "x.f90"});
  CHECK(f.status == 2);
  CHECK(f.err.find("flang-new") != std::string::npos);
}

TEST_CASE("clang at -O0: every PolyBench-style kernel counts exactly the FLOPs its source writes") {
  need_llvm_plugin();
  const std::string exe = build(kClang, source("tests/sim/polybench.c"), "-O0");
  const auto inst = regions_of(run_rprof(with({"--backend=inst", exe}, kPolyArgs)));
  for (const auto& [kernel, flops] : kPolyFlops) {
    INFO(kernel);
    REQUIRE(inst.count(kernel));
    CHECK(flops_total(inst.at(kernel)) == flops);
    CHECK(counter(inst.at(kernel), "flops.dp.scalar") == flops);
  }
}

TEST_CASE("clang at -O2 and -O3 -march=haswell: inst and sim count the same FLOPs per region and class") {
  need_llvm_plugin();
  need_sim_backend();
  for (const std::string opts : {"-O2", "-O3 -march=haswell"}) {
    if (opts.find("haswell") != std::string::npos && !cpu_has("avx2")) {
      WARN("this CPU has no AVX2+FMA: " << opts << " not run");
      continue;
    }
    struct Case {
      std::string src;
      std::vector<std::string> args;
    };
    for (const Case& c : std::vector<Case>{{"tests/sim/polybench.c", kPolyArgs},
                                           {"samples/precision.c", {"20000", "2"}},
                                           {"samples/triad.c", {"30000", "2"}}}) {
      const std::string exe = build(kClang, source(c.src), opts, {"-I" + source("samples"), "-lm"});
      const auto inst = regions_of(run_rprof(with({"--backend=inst", exe}, c.args)));
      const auto sim = regions_of(run_rprof(with({"--backend=sim", exe}, c.args)));
      size_t compared = 0;
      for (const auto& [path, s] : sim) {
        if (path == "[program]" || path.find('/') != std::string::npos) continue;
        INFO(c.src << " " << opts << ": region " << path << " sim " << s.dump());
        REQUIRE(inst.count(path));
        INFO("inst " << inst.at(path).dump());
        for (const char* k : kFlopCounters) CHECK(counter(inst.at(path), k) == counter(s, k));
        ++compared;
      }
      CHECK(compared > 0);
    }
  }
}

TEST_CASE("clang: daxpy's L1 bytes exact, and AVX-512 totals in the 512-bit columns") {
  need_llvm_plugin();
  const std::string o2 = build(kClang, source("samples/daxpy.c"), "-O2", {"-I" + source("samples")});
  const auto r = regions_of(run_rprof({"--backend=inst", o2, "20000", "3"}));
  CHECK(counter(r.at("daxpy"), "bytes.l1.read") == 16.0 * 20000 * 3);
  CHECK(counter(r.at("daxpy"), "bytes.l1.write") == 8.0 * 20000 * 3);
  CHECK(flops_total(r.at("daxpy")) == 2.0 * 20000 * 3);
  // A block whose first instruction accesses memory (tiny.c's volatile x):
  // its filter's place moved as the block was split (once a broken module).
  const std::string tiny = build(kClang, source("samples/tiny.c"), "-O2");
  const auto tr = regions_of(run_rprof({"--backend=inst", tiny, "100"}));
  CHECK(flops_total(tr.at("tiny")) == 100);
  if (!cpu_has("avx512f")) skip_test("this CPU has no AVX-512F: the AVX-512 builds are not run");
  const std::string opts = "-O3 -march=skylake-avx512 -mprefer-vector-width=512";
  const std::string d = build(kClang, source("samples/daxpy.c"), opts, {"-I" + source("samples")});
  const auto dx = regions_of(run_rprof({"--backend=inst", d, "10000", "2"}));
  CHECK(flops_total(dx.at("daxpy")) == 2.0 * 10000 * 2);
  CHECK(counter(dx.at("daxpy"), "flops.dp.512") > 0);
  const std::string t = build(kClang, source("samples/triad.c"), opts, {"-I" + source("samples")});
  const auto tx = regions_of(run_rprof({"--backend=inst", t, "30000", "2"}));
  CHECK(flops_total(tx.at("triad")) == 2.0 * 30000 * 2);
  CHECK(counter(tx.at("triad"), "flops.dp.512") > 0);
}

TEST_CASE("clang -fopenmp (libomp), 2 threads: every thread's FLOPs in the region that opened them") {
  need_llvm_plugin();
#if !RPROF_TEST_LIBOMP
  skip_test("no libomp for this clang (install libomp-N-dev)");
#endif
  const std::string omp =
      build(kClang, source("samples/omp_triad.c"), "-O2 -fopenmp", {"-I" + source("samples")});
  const auto o = regions_of(run_rprof({"--backend=inst", omp, "40000", "3"}, {"OMP_NUM_THREADS=2"}));
  CHECK(flops_total(o.at("triad")) == 2.0 * 40000 * 3);
  CHECK(counter(o.at("triad"), "bytes.l1.write") >= 8.0 * 40000 * 3);
  const std::string sum =
      build(kClang, source("samples/omp_sum.c"), "-O2 -fopenmp", {"-I" + source("samples")});
  const auto s = regions_of(run_rprof({"--backend=inst", sum, "40000", "4"}, {"OMP_NUM_THREADS=2"}));
  // The sums (2 per element) and the chunks' and threads' combines.
  CHECK(flops_total(s.at("parallel")) >= 2.0 * 40000);
  CHECK(flops_total(s.at("parallel")) <= 2.0 * 40000 + 8);
  // The parallel loop's body is its opener's ._omp_fn.0, as GCC names it,
  // and the marked region inside it runs in its chunk loop.
  size_t work = 0;
  for (const auto& [path, counters] : s) {
    if (path.rfind("parallel/main._omp_fn.0()/loop omp_sum.c:", 0) == 0 &&
        path.size() > 5 && path.compare(path.size() - 5, 5, "/work") == 0) {
      ++work;
    }
  }
  CHECK(work == 1);
}

TEST_CASE("clang's loop regions have GCC's names and calls on the same source, and objects of both mix") {
  need_llvm_plugin();
  need_plugin();
  // Without markers: every function with loops and every loop nest a region.
  const std::string src = source("tests/integration/apps/inst_regions.c");
  auto regions_built_by = [&](const std::string& compiler) {
    const std::string out = fresh_path("inst_regions_" + fs::path(compiler).filename().string());
    compile({RPROF_BIN, "cc", "--", compiler, "-O2", src, "-I" + source("include"), "-lm", "-o", out},
            out);
    const RunResult r = run_rprof({"--backend=inst", out, "500", "2", "plain"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json p = load_json(r.dir + "/profile.json");
    std::map<std::string, std::pair<double, double>> calls;  // calls, FLOPs
    std::vector<const json*> todo;
    for (const json& x : p["regions"]) todo.push_back(&x);
    while (!todo.empty()) {
      const json& x = *todo.back();
      todo.pop_back();
      std::string path;
      for (const json& part : x["path"]) path += (path.empty() ? "" : "/") + part.get<std::string>();
      calls[path] = {x.value("calls", 0.0), flops_total(x.value("counters", json::object()))};
      for (const json& c : x.value("children", json::array())) todo.push_back(&c);
    }
    return calls;
  };
  const auto gcc = regions_built_by(kCc);
  const auto clang = regions_built_by(kClang);
  size_t loops = 0;
  for (const auto& [path, calls] : gcc) {
    if (path == "[program]") continue;
    INFO("GCC's region " << path);
    REQUIRE(clang.count(path));
    CHECK(clang.at(path).first == calls.first);
    // A function's FLOPs are its source's under both. A loop nest's are
    // what its loops run: clang leaves the remainder of an unrolled vector
    // loop (a few iterations' worth) after the loop, in the function.
    const bool loop = path.rfind('/') == std::string::npos
                          ? path.rfind("loop ", 0) == 0
                          : path.compare(path.rfind('/') + 1, 5, "loop ") == 0;
    if (loop) {
      CHECK(clang.at(path).second <= calls.second);
      CHECK(clang.at(path).second >= 0.95 * calls.second);
    } else {
      CHECK(clang.at(path).second == calls.second);
    }
    loops += path.find("loop ") != std::string::npos;
  }
  CHECK(loops >= 5);
  CHECK(clang.size() == gcc.size());
  // One program, one object from each compiler: both counted.
  const std::string dir = fresh_path("mixed objects");
  fs::create_directories(dir);
  {
    std::ofstream a(dir + "/a.c");
    a << "void scale(double* x, int n) { for (int i = 0; i < n; ++i) x[i] *= 3.0; }\n";
    std::ofstream m(dir + "/main.c");
    m << "#include <rprof/markers.h>\n#include <stdlib.h>\nvoid scale(double*, int);\n"
         "int main(void) { int n = 1000; double* x = calloc(n, 8); double s = 0;\n"
         "  RPROF_BEGIN(\"both\"); scale(x, n);\n"
         "  for (int i = 0; i < n; ++i) s += x[i] * 0.5;\n"
         "  RPROF_END(\"both\"); return s > 1;\n}\n";
  }
  const std::string ao = dir + "/a.o", mo = dir + "/main.o", exe = dir + "/mixed";
  compile({RPROF_BIN, "cc", "--", kCc, "-O2", "-c", dir + "/a.c", "-o", ao}, ao);
  compile({RPROF_BIN, "cc", "--", kClang, "-O2", "-DRPROF_ENABLE", "-I" + source("include"), "-c",
           dir + "/main.c", "-o", mo},
          mo);
  compile(with({RPROF_BIN, "cc", "--", kClang, ao, mo}, with_rprof(kLibDir, exe)), exe);
  const auto m = regions_of(run_rprof({"--backend=inst", exe}));
  CHECK(flops_total(m.at("both")) == 1000 + 2 * 1000);
}
