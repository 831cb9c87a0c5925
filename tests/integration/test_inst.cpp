// The inst backend (issue 29): programs built with `rprof cc` count their own
// FLOPs and L1 bytes. Checked against the source's own counts (PolyBench-style
// kernels at -O0) and against the sim backend, which counts the executed
// instructions, on the same sources at -O0, -O2 and -O3 -mavx2 -mfma: FLOPs
// equal per region and per precision and width; L1 bytes within the stated
// difference (the stack frames of calls, which the plugin does not see).
// AVX-512: the plugin's static counts per block on every machine; the run
// where the CPU has AVX-512.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "skip.h"

using nlohmann::json;
using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

const std::string kCc = RPROF_TEST_CC;
const std::string kLibDir = RPROF_TEST_LIB_DIR;

void need_plugin() {
#if !RPROF_TEST_INST_PLUGIN
  skip_test("rprof is built without its GCC plugin (no gcc-N-plugin-dev at build time)");
#endif
}

void need_sim() {
#if !RPROF_TEST_SIM
  skip_test("rprof is built without the sim backend (no valgrind at build time)");
#endif
}

// A CPU feature of this machine, for running what a compiler flag emits.
bool cpu_has(const std::string& feature) {
  __builtin_cpu_init();
  if (feature == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (feature == "avx512f") return __builtin_cpu_supports("avx512f");
  return false;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < s.size()) {
    const size_t sp = s.find(' ', at);
    const std::string w = s.substr(at, sp == std::string::npos ? std::string::npos : sp - at);
    if (!w.empty()) out.push_back(w);
    if (sp == std::string::npos) break;
    at = sp + 1;
  }
  return out;
}

// Builds `src` with the markers on, instrumented (rprof cc) or plain.
std::string build(const std::string& src, const std::string& opts, bool instrumented,
                  const std::vector<std::string>& extra = {}) {
  const std::string out = fresh_path(fs::path(src).stem().string() + (instrumented ? "_inst" : "_plain"));
  std::vector<std::string> argv;
  if (instrumented) argv = {RPROF_BIN, "cc"};
  argv.push_back(kCc);
  for (const std::string& o : split(opts)) argv.push_back(o);
  for (const std::string& e : extra) argv.push_back(e);
  for (const std::string& a :
       {src, std::string("-DRPROF_ENABLE"), "-I" + std::string(RPROF_SOURCE_DIR) + "/include",
        "-L" + kLibDir, "-Wl,-rpath," + kLibDir, std::string("-lrprof"), std::string("-o"), out}) {
    argv.push_back(a);
  }
  const RunResult r = run_command(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

std::string source(const std::string& rel) { return std::string(RPROF_SOURCE_DIR) + "/" + rel; }

// Every region's counters, by its path ("a/b").
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

// The PolyBench-style kernels' arguments and FLOPs from their source
// (tests/sim/polybench.c's header: FMA = 2, one per + - * /).
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

// Every counted region of `inst` has `sim`'s FLOPs, class by class.
void require_same_flops(const std::map<std::string, json>& inst,
                        const std::map<std::string, json>& sim, const std::string& what) {
  size_t compared = 0;
  for (const auto& [path, c] : sim) {
    if (path == "[program]" || path.find('/') != std::string::npos) continue;  // functions
    auto it = inst.find(path);
    INFO(what << ": region " << path << " sim " << c.dump());
    REQUIRE(it != inst.end());
    INFO("inst " << it->second.dump());
    for (const char* k : kFlopCounters) CHECK(counter(it->second, k) == counter(c, k));
    ++compared;
  }
  REQUIRE(compared > 0);
}

}  // namespace

TEST_CASE("rprof cc: usage errors and the flags it adds") {
  need_plugin();
  const RunResult none = run_tool({"cc"});
  CHECK(none.status == 2);
  const RunResult flags = run_tool({"cc", "--flags"});
  REQUIRE(flags.status == 0);
  CHECK(flags.out.rfind("-fplugin=/", 0) == 0);
  CHECK(flags.out.find("rprof_inst.so") != std::string::npos);
  const RunResult libs = run_tool({"cc", "--libs"});
  REQUIRE(libs.status == 0);
  CHECK(libs.out.find("librprof_inst_rt.a") != std::string::npos);
  // Not a compiler: one line, exit 2.
  const RunResult bad = run_tool({"cc", "/bin/false", "-c", "x.c"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("-dumpversion") != std::string::npos);
}

TEST_CASE("inst refuses a program not built with rprof cc, naming the fix") {
  const RunResult r = run_rprof({"--backend=inst", sample("daxpy"), "1000", "1"});
  CHECK(r.status == 2);
  CHECK(r.err.find("not built with rprof cc") != std::string::npos);
  CHECK(r.err.find("rprof cc gcc") != std::string::npos);
}

TEST_CASE("inst at -O0: every PolyBench-style kernel counts exactly the FLOPs its source writes") {
  need_plugin();
  const std::string exe = build(source("tests/sim/polybench.c"), "-O0", true);
  std::vector<std::string> args = {"--backend=inst", exe};
  args.insert(args.end(), kPolyArgs.begin(), kPolyArgs.end());
  const auto inst = regions_of(run_rprof(args));
  for (const auto& [kernel, flops] : kPolyFlops) {
    INFO(kernel);
    REQUIRE(inst.count(kernel));
    CHECK(flops_total(inst.at(kernel)) == flops);
    CHECK(counter(inst.at(kernel), "flops.dp.scalar") == flops);
  }
}

TEST_CASE("inst and sim count the same FLOPs per region, class by class, at -O0, -O2, -O3 -mavx2") {
  need_plugin();
  need_sim();
  for (const std::string opts : {"-O0", "-O2", "-O3 -mavx2 -mfma"}) {
    if (opts.find("avx2") != std::string::npos && !cpu_has("avx2")) {
      WARN("this CPU has no AVX2+FMA: " << opts << " is built but not run");
      continue;
    }
    // The same binary under both: FLOPs are the executed instructions'.
    const std::string poly = build(source("tests/sim/polybench.c"), opts, true);
    std::vector<std::string> pa = {poly};
    pa.insert(pa.end(), kPolyArgs.begin(), kPolyArgs.end());
    std::vector<std::string> ia = {"--backend=inst"}, sa = {"--backend=sim"};
    ia.insert(ia.end(), pa.begin(), pa.end());
    sa.insert(sa.end(), pa.begin(), pa.end());
    require_same_flops(regions_of(run_rprof(ia)), regions_of(run_rprof(sa)), "polybench " + opts);
    // Samples in single and double precision, vectorized at -O3.
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"precision", {"20000", "2"}}, {"matmul", {"48", "16"}}, {"triad", {"30000", "2"}}}) {
      const std::string exe = build(source("samples/" + name + ".c"), opts, true,
                                    {"-I" + source("samples"), "-lm"});
      std::vector<std::string> i2 = {"--backend=inst", exe}, s2 = {"--backend=sim", exe};
      i2.insert(i2.end(), args.begin(), args.end());
      s2.insert(s2.end(), args.begin(), args.end());
      require_same_flops(regions_of(run_rprof(i2)), regions_of(run_rprof(s2)), name + " " + opts);
    }
  }
}

TEST_CASE("inst L1 bytes equal sim's of the plain build but for the calls' stack frames") {
  need_plugin();
  need_sim();
  // daxpy: one call per repetition; the plugin counts the loop's 16 bytes
  // loaded and 8 stored per element; the executed code adds the call's frame
  // (return address, saved registers): under 64 bytes per call.
  const std::string n = "20000", reps = "3";
  for (const std::string opts : {"-O2", "-O3 -mavx2 -mfma"}) {
    if (opts.find("avx2") != std::string::npos && !cpu_has("avx2")) {
      WARN("this CPU has no AVX2+FMA: " << opts << " not run");
      continue;
    }
    const std::string inst_exe = build(source("samples/daxpy.c"), opts, true, {"-I" + source("samples")});
    const std::string plain_exe = build(source("samples/daxpy.c"), opts, false, {"-I" + source("samples")});
    const auto inst = regions_of(run_rprof({"--backend=inst", inst_exe, n, reps}));
    const auto sim = regions_of(run_rprof({"--backend=sim", plain_exe, n, reps}));
    INFO(opts << " inst " << inst.at("daxpy").dump() << " sim " << sim.at("daxpy").dump());
    const double in_read = counter(inst.at("daxpy"), "bytes.l1.read");
    const double in_write = counter(inst.at("daxpy"), "bytes.l1.write");
    CHECK(in_read == 16.0 * 20000 * 3);
    CHECK(in_write == 8.0 * 20000 * 3);
    const double sim_read = counter(sim.at("daxpy"), "bytes.l1.read");
    const double sim_write = counter(sim.at("daxpy"), "bytes.l1.write");
    CHECK(sim_read >= in_read);
    CHECK(sim_read - in_read <= 64.0 * 3);
    CHECK(sim_write >= in_write);
    CHECK(sim_write - in_write <= 64.0 * 3);
    CHECK(flops_total(inst.at("daxpy")) == flops_total(sim.at("daxpy")));
  }
}

TEST_CASE("inst counts the bytes of memcpy calls and of loops GCC turns into them") {
  need_plugin();
  // samples/memcpy.c calls memcpy; a copy loop at -O2 becomes one
  // (-ftree-loop-distribute-patterns): both are counted at run time, n bytes
  // read and n written per call.
  const std::string exe = build(source("samples/memcpy.c"), "-O2", true, {"-I" + source("samples")});
  const auto inst = regions_of(run_rprof({"--backend=inst", exe, "1000000", "3"}));
  CHECK(counter(inst.at("memcpy"), "bytes.l1.read") == 3.0 * 1000000);
  // ... and one byte stored per pass before it (src[p % bytes] = p).
  CHECK(counter(inst.at("memcpy"), "bytes.l1.write") == 3.0 * 1000000 + 3);
  const std::string src = fresh_path("copy_loop") + ".c";
  {
    std::ofstream f(src);
    f << "#include <rprof/markers.h>\n#include <stdlib.h>\n"
         "__attribute__((noinline)) void copy(double* restrict c, const double* restrict a, int n) {\n"
         "  for (int j = 0; j < n; j++) c[j] = a[j];\n}\n"
         "int main(int argc, char** argv) {\n  int n = atoi(argv[1]);\n"
         "  double* a = calloc(n, 8); double* c = calloc(n, 8);\n"
         "  RPROF_BEGIN(\"copy\"); copy(c, a, n); RPROF_END(\"copy\");\n  return c[0] != 0;\n}\n";
  }
  const std::string loop = build(src, "-O2", true);
  const auto l = regions_of(run_rprof({"--backend=inst", loop, "50000"}));
  CHECK(counter(l.at("copy"), "bytes.l1.read") == 8.0 * 50000);
  CHECK(counter(l.at("copy"), "bytes.l1.write") == 8.0 * 50000);
}

TEST_CASE("AVX-512: the plugin puts 512-bit FMAs in the 512-bit column (static counts per block)") {
  need_plugin();
  // Compile side, on every machine: the plugin's table of the daxpy loop.
  const std::string dump = fresh_path("avx512_dump") + ".txt";
  fs::remove(dump);
  const std::string exe = build(source("samples/daxpy.c"), "-O3 -mavx512f -mprefer-vector-width=512", true,
                                {"-I" + source("samples"), "-fplugin-arg-rprof_inst-dump=" + dump});
  const std::string table = read_text(dump);
  INFO(table);
  // A block line: function file:line then the 18 counters (inst_counters.h):
  // flops.dp.512 is the 8th, fpins.dp.512 the 16th.
  bool found = false;
  for (const std::string& line : [&] {
         std::vector<std::string> lines;
         size_t at = 0;
         while (at < table.size()) {
           const size_t nl = table.find('\n', at);
           lines.push_back(table.substr(at, nl - at));
           if (nl == std::string::npos) break;
           at = nl + 1;
         }
         return lines;
       }()) {
    const std::vector<std::string> w = split(line);
    if (w.size() != 20 || w[0].rfind("daxpy", 0) != 0) continue;
    const unsigned long long flops512 = std::stoull(w[2 + 7]), ins512 = std::stoull(w[2 + 15]);
    if (ins512 == 0) continue;
    // Every 512-bit DP instruction of the loop is an FMA on 8 lanes: 16 FLOPs.
    CHECK(flops512 == 16 * ins512);
    found = true;
  }
  CHECK(found);
  // Run side: only where the CPU has AVX-512 (Valgrind cannot run it at all).
  if (!cpu_has("avx512f")) skip_test("this CPU has no AVX-512F: the instrumented build is not run");
  const auto inst = regions_of(run_rprof({"--backend=inst", exe, "10000", "2"}));
  CHECK(flops_total(inst.at("daxpy")) == 2.0 * 10000 * 2);
  CHECK(counter(inst.at("daxpy"), "flops.dp.512") > 0);
}

TEST_CASE("an instrumented program runs as usual alone, and --backend=auto picks inst for it") {
  need_plugin();
  const std::string inst_exe = build(source("samples/daxpy.c"), "-O2", true, {"-I" + source("samples")});
  const std::string plain_exe = build(source("samples/daxpy.c"), "-O2", false, {"-I" + source("samples")});
  const RunResult alone = run_command({inst_exe, "5000", "2"});
  const RunResult plain = run_command({plain_exe, "5000", "2"});
  CHECK(alone.status == 0);
  CHECK(alone.out == plain.out);
  const RunResult r = run_rprof({inst_exe, "5000", "2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = load_json(r.dir + "/profile.json");
  const std::string backend = p["run"].value("backend", "");
  if (backend != "inst") {
    // Only hardware counters come before inst.
    CHECK((backend == "perf" || backend == "papi" || backend == "likwid"));
    skip_test("this machine has hardware counters: --backend=auto prefers " + backend);
  }
  CHECK(r.err.find("--backend=inst") != std::string::npos);
  CHECK(find_region(p, "daxpy")["counters"].value("flops.dp.scalar", 0.0) == 2.0 * 5000 * 2);
}

TEST_CASE("inst counts every OpenMP thread's FLOPs and a Fortran program's") {
  need_plugin();
  // samples/omp_triad.c, 2 threads: 2n FLOPs per repetition over both.
  const std::string omp = build(source("samples/omp_triad.c"), "-O2 -fopenmp", true, {"-I" + source("samples")});
  const auto o = regions_of(run_rprof({"--backend=inst", omp, "40000", "3"}, {"OMP_NUM_THREADS=2"}));
  CHECK(flops_total(o.at("triad")) == 2.0 * 40000 * 3);
  CHECK(counter(o.at("triad"), "bytes.l1.write") >= 8.0 * 40000 * 3);
#if RPROF_TEST_FORTRAN
  // samples/triad_f.f90 through gfortran: 2n FLOPs and 24n bytes per call.
  const std::string out = fresh_path("triad_f_inst");
  const RunResult built = run_command(
      {RPROF_BIN, "cc", RPROF_TEST_FC, "-O2", source("samples/triad_f.f90"), "-I" RPROF_TEST_FORTRAN_MODDIR,
       "-L" + kLibDir, "-Wl,-rpath," + kLibDir, "-lrprof-fortran", "-lrprof", "-o", out});
  INFO(built.err);
  REQUIRE(built.status == 0);
  const auto f = regions_of(run_rprof({"--backend=inst", out, "30000", "2"}));
  CHECK(counter(f.at("triad"), "flops.dp.scalar") + counter(f.at("triad"), "flops.dp.128") +
            counter(f.at("triad"), "flops.dp.256") == 2.0 * 30000 * 2);
  CHECK(counter(f.at("triad"), "bytes.l1.read") == 16.0 * 30000 * 2);
  CHECK(counter(f.at("triad"), "bytes.l1.write") == 8.0 * 30000 * 2);
#else
  skip_test("rprof is built without Fortran (no gfortran): the Fortran case is not run");
#endif
}
