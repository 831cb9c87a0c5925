// The inst backend (issue 29): programs built with `rprof cc` count their own
// FLOPs and L1 bytes. Checked against the source's own counts (PolyBench-style
// kernels at -O0) and against the sim backend, which counts the executed
// instructions, on the same sources at -O0, -O2 and -O3 -mavx2 -mfma: FLOPs
// equal per region and per precision and width; L1 bytes within the stated
// difference (the stack frames of calls, which the plugin does not see).
// AVX-512: the plugin's static counts per block on every machine; the run
// where the CPU has AVX-512.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backends/inst/inst_cc.h"
#include "integration/harness.h"
#include "integration/inst_build.h"
#include "skip.h"

using nlohmann::json;
using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

const std::string kCc = RPROF_TEST_CC;
const std::string kLibDir = RPROF_TEST_LIB_DIR;

// A CPU feature of this machine, for running what a compiler flag emits.
bool cpu_has(const std::string& feature) {
  __builtin_cpu_init();
  if (feature == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (feature == "avx512f") return __builtin_cpu_supports("avx512f");
  return false;
}

// Builds `src` with the markers on, instrumented (rprof cc) or plain.
std::string build(const std::string& src, const std::string& opts, bool instrumented,
                  const std::vector<std::string>& extra = {}) {
  const std::string out = fresh_path(fs::path(src).stem().string() + (instrumented ? "_inst" : "_plain"));
  std::vector<std::string> argv;
  if (instrumented) argv = {RPROF_BIN, "cc"};
  argv.push_back(kCc);
  for (const std::string& o : split_words(opts)) argv.push_back(o);
  for (const std::string& e : extra) argv.push_back(e);
  argv.push_back(src);
  for (const std::string& a : with_rprof(kLibDir, out)) argv.push_back(a);
  return compile(argv, out);
}

std::string source(const std::string& rel) { return std::string(RPROF_SOURCE_DIR) + "/" + rel; }

// Every region of a run by path ("a/b"): the whole entry.
std::map<std::string, json> nodes_of(const RunResult& r) {
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
    out[path] = x;
    for (const json& c : x.value("children", json::array())) todo.push_back(&c);
  }
  return out;
}

// Every region's counters, by its path.
std::map<std::string, json> regions_of(const RunResult& r) {
  std::map<std::string, json> out;
  for (const auto& [path, node] : nodes_of(r)) out[path] = node.value("counters", json::object());
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
    // The counters are the last 18 words: the file name may hold spaces.
    const std::vector<std::string> w = split_words(line);
    if (w.size() < 20 || w[0].rfind("daxpy", 0) != 0 || w[1] == "region:") continue;
    const size_t c = w.size() - 18;
    const unsigned long long flops512 = std::stoull(w[c + 7]), ins512 = std::stoull(w[c + 15]);
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
  // samples/omp_sum.c: a reduction(+) whose combine GCC writes as a
  // compare-and-swap retry loop at the pragma's line: not the program's loop,
  // so no region of it; the chunk loop (line 23) is one.
  const std::string sum = build(source("samples/omp_sum.c"), "-O2 -fopenmp", true, {"-I" + source("samples")});
  const auto s = regions_of(run_rprof({"--backend=inst", sum, "40000", "4"}, {"OMP_NUM_THREADS=2"}));
  CHECK(s.count("parallel/main._omp_fn.0()/loop omp_sum.c:23/work") == 1);
  for (const auto& [path, counters] : s) {
    INFO(path);
    CHECK(path.find("omp_sum.c:21") == std::string::npos);
  }
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

namespace {

// tests/integration/apps/inst_regions.c: its tagged loops' region names
// ("loop inst_regions.c:LINE", the line of the tag).
const std::string kRegionsSrc = source("tests/integration/apps/inst_regions.c");

std::string loop_of(const std::string& tag) {
  std::ifstream in(kRegionsSrc);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("/* LOOP " + tag + " */") != std::string::npos) {
      return "loop inst_regions.c:" + std::to_string(n);
    }
  }
  FAIL("no loop tagged " << tag << " in " << kRegionsSrc);
  return "";
}

// inst_regions.c built with rprof cc: with its markers (and librprof), or
// without them (a program with no markers, linked with nothing of rprof's).
std::string build_regions(const std::string& opts, bool markers) {
  const std::string out = fresh_path(markers ? "inst_regions_marked" : "inst_regions_unmarked");
  std::vector<std::string> argv = {RPROF_BIN, "cc", kCc};
  for (const std::string& o : split_words(opts)) argv.push_back(o);
  argv.push_back(kRegionsSrc);
  argv.push_back("-I" + std::string(RPROF_SOURCE_DIR) + "/include");
  if (markers) {
    for (const std::string& a : {std::string("-DRPROF_ENABLE"), "-L" + kLibDir,
                                 "-Wl,-rpath," + kLibDir, std::string("-lrprof")}) {
      argv.push_back(a);
    }
  }
  for (const std::string& a : {std::string("-lm"), std::string("-o"), out}) argv.push_back(a);
  const RunResult r = run_command(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

double flops_at(const std::map<std::string, json>& nodes, const std::string& path) {
  INFO("region " << path);
  REQUIRE(nodes.count(path) == 1);
  return flops_total(nodes.at(path).value("counters", json::object()));
}

double calls_at(const std::map<std::string, json>& nodes, const std::string& path) {
  INFO("region " << path);
  REQUIRE(nodes.count(path) == 1);
  return nodes.at(path).value("calls", 0.0);
}

std::string notes_of(const RunResult& r) {
  std::string all;
  for (const json& n : load_json(r.dir + "/profile.json").value("notes", json::array())) {
    all += n.get<std::string>() + "\n";
  }
  return all;
}

std::vector<std::string> region_opts() {
  std::vector<std::string> o = {"-O0", "-O2"};
  if (cpu_has("avx2")) o.push_back("-O3 -mavx2 -mfma");  // vectorized, with remainder loops
  return o;
}

}  // namespace

TEST_CASE("inst without markers: functions with loops and their loop nests are regions, FLOPs exact") {
  need_plugin();
  const std::string reps = loop_of("reps"), scale = loop_of("scale"), nest = loop_of("nest"),
                    wave = loop_of("wave"), init = loop_of("init");
  for (const std::string& opts : region_opts()) {
    INFO(opts);
    const std::string exe = build_regions(opts, false);
    const RunResult r = run_rprof({"--backend=inst", exe, "1000", "3", "plain"});
    const auto n = nodes_of(r);
    // FLOPs by construction (inst_regions.c's header): scale() n per call,
    // leaf() 1 (no loop: part of its caller's loop), t + leaf() 1, nest()
    // 2 x 64 x 64, wave() 1 per cos (not counted), init 2 per element.
    CHECK(calls_at(n, "main()") == 1);
    CHECK(flops_at(n, "main()/" + init) == 2.0 * 4096);
    CHECK(flops_at(n, "main()/" + reps) == 3.0 * 1000 + 3 * 2);
    // Entered three times however GCC split the loop (vector body, remainder).
    CHECK(calls_at(n, "main()/" + reps + "/scale()") == 3);
    CHECK(calls_at(n, "main()/" + reps + "/scale()/" + scale) == 3);
    CHECK(flops_at(n, "main()/" + reps + "/scale()") == 3.0 * 1000);
    CHECK(flops_at(n, "main()/" + reps + "/scale()/" + scale) == 3.0 * 1000);
    CHECK(flops_at(n, "main()/nest()/" + nest) == 2.0 * 64 * 64);
    CHECK(flops_at(n, "main()/wave()/" + wave) == 1000);
    CHECK(flops_at(n, "main()") == 2.0 * 4096 + 3006 + 2.0 * 64 * 64 + 1000 + 1);
    for (const auto& [path, node] : n) {
      INFO(path);
      CHECK(path.find("leaf()") == std::string::npos);  // no loop: not a region
      CHECK(path.find("inst_regions.c:" + std::to_string(std::stoi(nest.substr(nest.rfind(':') + 1)) + 1)) ==
            std::string::npos);  // nest()'s inner loop is part of its nest
    }
    const std::string notes = notes_of(r);
    CHECK(notes.find("its functions that have loops, and their loop nests") != std::string::npos);
    // Optimized, every loop nest has a plain copy: times from a run of those,
    // counts (checked above) from a second run of the counted versions. At
    // -O0 there are no versions: one run, whose times are the counted code's.
    const bool versions = opts != "-O0";
    CHECK(rprof::inst_loops_versioned(exe) == versions);
    CHECK(std::filesystem::is_directory(r.dir + "/raw-counted") == versions);
    CHECK((notes.find("times: from a run of the program's plain loop versions") !=
           std::string::npos) == versions);
    CHECK((notes.find("times: from this same instrumented run") != std::string::npos) ==
          !versions);
    // The timed run's times are kept: every region above has one.
    CHECK(n.at("main()/" + reps).value("time_s", 0.0) > 0);
    // cos is called from instrumented code and defined in none: named.
    const size_t at = notes.find("not counted: the instrumented code has calls to");
    REQUIRE(at != std::string::npos);
    CHECK(notes.find(": cos", at) != std::string::npos);
  }
}

TEST_CASE("inst: a library built with rprof cc is counted, shared or static, under a plain or instrumented main") {
  need_plugin();
  const std::string dir = std::string(RPROF_SOURCE_DIR) + "/tests/integration/inst_lib";
  const std::string work = fresh_dir("inst_lib");
  const std::string so = work + "/libdx.so", obj = work + "/dx.o", ar = work + "/libdx.a";
  compile({RPROF_BIN, "cc", kCc, "-O2", "-shared", "-fPIC", dir + "/dx.c", "-o", so}, so);
  compile({RPROF_BIN, "cc", kCc, "-O2", "-c", dir + "/dx.c", "-o", obj}, obj);
  compile({"ar", "rcs", ar, obj}, ar);
  const std::string link_so = "-Wl,-rpath," + work;
  struct Case {
    std::string name;
    std::vector<std::string> build;  // the main's link
    std::string dx_path;             // dx()'s region path
  };
  const std::string main_src = dir + "/dx_main.c";
  const std::string inst_main = work + "/main_inst", plain_main = work + "/main_plain",
                    static_main = work + "/main_static";
  const std::vector<Case> cases = {
      {"instrumented main, shared library",
       {RPROF_BIN, "cc", kCc, "-O2", main_src, "-L" + work, "-ldx", link_so, "-o", inst_main},
       "main()/loop dx_main.c:17/dx()"},
      {"plain main, shared library",
       {kCc, "-O2", main_src, "-L" + work, "-ldx", link_so, "-o", plain_main},
       "dx()"},
      {"instrumented main, static library",
       {RPROF_BIN, "cc", kCc, "-O2", main_src, ar, "-o", static_main},
       "main()/loop dx_main.c:17/dx()"}};
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string exe = compile(c.build, c.build.back());
    const RunResult r = run_rprof({"--backend=inst", exe, "1000", "7"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto n = nodes_of(r);
    // 7 calls of 1000 elements, 2 FLOPs each (FMA = 2), 24 bytes at L1.
    CHECK(calls_at(n, c.dx_path) == 7);
    CHECK(flops_at(n, c.dx_path) == 2.0 * 1000 * 7);
    CHECK(counter(n.at(c.dx_path).value("counters", json::object()), "bytes.l1.read") ==
          16.0 * 1000 * 7);
    CHECK(calls_at(n, c.dx_path + "/loop dx.c:5") == 7);
    // dx is defined in an instrumented object: never named as uncounted.
    const std::string notes = notes_of(r);
    const size_t at = notes.find("not counted: the instrumented code has calls to");
    if (at != std::string::npos) {
      CHECK(notes.find(": dx", at) == std::string::npos);
      CHECK(notes.find(", dx,", at) == std::string::npos);
    }
  }
  // The plain main is instrumented only through its library.
  CHECK_FALSE(rprof::inst_refusal(plain_main).empty());
  CHECK(rprof::inst_libraries(plain_main) == std::vector<std::string>{so});

  // A plain main that loads the library with dlopen: no ldd shows it, yet
  // --backend=inst counts it (the main imports dlopen), and says how.
  const std::string dl_main = work + "/main_dlopen";
  compile({kCc, "-O2", dir + "/dx_dlopen.c", "-ldl", "-o", dl_main}, dl_main);
  CHECK(rprof::calls_dlopen(dl_main));
  CHECK_FALSE(rprof::calls_dlopen(plain_main));
  const RunResult r = run_rprof({"--backend=inst", dl_main, so, "1000", "7"});
  const auto n = nodes_of(r);
  CHECK(calls_at(n, "dx()") == 7);
  CHECK(flops_at(n, "dx()") == 2.0 * 1000 * 7);
  CHECK(counter(n.at("dx()").value("counters", json::object()), "bytes.l1.read") ==
        16.0 * 1000 * 7);
  CHECK(notes_of(r).find("it calls dlopen, so the libraries built with rprof cc that it loads "
                         "are counted") != std::string::npos);
  // A plain program that neither links nor loads one is still refused.
  const std::string all_plain = work + "/main_all_plain";
  compile({kCc, "-O2", main_src, dir + "/dx.c", "-o", all_plain}, all_plain);
  CHECK_FALSE(rprof::calls_dlopen(all_plain));
  const RunResult refused = run_rprof({"--backend=inst", all_plain, "1000", "7"});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("was not built with rprof cc"));
}

TEST_CASE("inst with markers: functions and loops are regions inside marked regions only") {
  need_plugin();
  const std::string phase = loop_of("phase"), scale = loop_of("scale");
  const std::string exe = build_regions("-O2", true);
  const auto n = nodes_of(run_rprof({"--backend=inst", exe, "1000", "3", "marked"}));
  CHECK(calls_at(n, "phase/" + phase + "/scale()") == 3);
  CHECK(flops_at(n, "phase/" + phase + "/scale()/" + scale) == 3.0 * 1000);
  CHECK(flops_at(n, "phase") == 3.0 * 1000);
  // The call before the marked region, and main() itself, are no regions.
  CHECK(n.count("main()") == 0);
  CHECK(n.count("scale()") == 0);
  // --functions asks for every function and loop: main() encloses all.
  const auto all = nodes_of(run_rprof({"--backend=inst", "--functions", exe, "1000", "3", "marked"}));
  CHECK(calls_at(all, "main()/scale()") == 1);
  CHECK(calls_at(all, "main()/phase/" + phase + "/scale()") == 3);
}

TEST_CASE("inst: a loop left by longjmp does not hold the regions that follow it") {
  need_plugin();
  for (const std::string& opts : region_opts()) {
    INFO(opts);
    const auto n = nodes_of(run_rprof({"--backend=inst", build_regions(opts, false), "1000", "3", "jump"}));
    CHECK(calls_at(n, "main()/jumper()") == 3);
    CHECK(calls_at(n, "main()/scale()") == 3);
    CHECK(flops_at(n, "main()/scale()") == 3.0 * 1000);
    for (const auto& [path, node] : n) {
      INFO(path);
      CHECK(path.find("jumper()/scale()") == std::string::npos);
    }
  }
}

TEST_CASE("inst: a function too brief to time is timed for its first calls, its work kept above") {
  need_plugin();
  const std::string hot = loop_of("hot");
  const RunResult r = run_rprof({"--backend=inst", build_regions("-O2", false), "1000", "20000", "hot"});
  const auto n = nodes_of(r);
  // 20,000 calls of scale(2): throttled at 10,000 (each well under 1 us);
  // every call's FLOPs are in the enclosing loop's.
  CHECK(calls_at(n, "main()/" + hot + "/scale()") == 10000);
  CHECK(flops_at(n, "main()/" + hot + "/scale()") == 2.0 * 10000);
  CHECK(flops_at(n, "main()/" + hot) == 2.0 * 20000);
  CHECK(notes_of(r).find("timed for their first 10000 calls on a thread only") != std::string::npos);
}

TEST_CASE("inst and sim agree per function and per loop on the same instrumented binary") {
  need_plugin();
  need_sim();
  for (const std::string& opts : {std::string("-O0"), std::string("-O2")}) {
    INFO(opts);
    // Linked with librprof (the sim backend does not preload it), every
    // function and loop a region (--functions; the sim run is told so).
    const std::string exe = build_regions(opts, true);
    const auto inst = nodes_of(run_rprof({"--backend=inst", "--functions", exe, "500", "2", "plain"}));
    const auto sim = nodes_of(run_rprof({"--backend=sim", exe, "500", "2", "plain"},
                                        {"RPROF_INST_REGIONS=all"}));
    // The one difference, by its cause: cos (libm, not built with the
    // plugin) runs in wave()'s loop; sim counts its FLOPs, inst names it.
    const std::string wave = "main()/wave()/" + loop_of("wave");
    const double libm = flops_total(sim.at(wave).value("counters", json::object())) -
                        flops_total(inst.at(wave).value("counters", json::object()));
    CHECK(libm > 0);
    size_t compared = 0;
    for (const auto& [path, node] : inst) {
      if (path == "[program]") continue;
      INFO(path);
      REQUIRE(sim.count(path) == 1);
      const json& ic = node.value("counters", json::object());
      const json& sc = sim.at(path).value("counters", json::object());
      if (wave.rfind(path, 0) == 0) {  // wave's loop and what encloses it
        CHECK(flops_total(sc) - flops_total(ic) == libm);
      } else {
        for (const char* k : kFlopCounters) CHECK(counter(ic, k) == counter(sc, k));
      }
      CHECK(calls_at(inst, path) == calls_at(sim, path));
      ++compared;
    }
    CHECK(compared >= 8);
  }
}

TEST_CASE("inst through rprof cc gfortran -fopenmp: exact FLOPs over the threads, per region and loop") {
  need_plugin();
#if RPROF_TEST_FORTRAN
  const std::string out = fresh_path("omp_triad_f_inst");
  const RunResult built = run_command(
      {RPROF_BIN, "cc", RPROF_TEST_FC, "-O2", "-fopenmp",
       source("tests/integration/apps/omp_triad_f.f90"), "-I" RPROF_TEST_FORTRAN_MODDIR,
       "-L" + kLibDir, "-Wl,-rpath," + kLibDir, "-lrprof-fortran", "-lrprof", "-o", out});
  INFO(built.err);
  REQUIRE(built.status == 0);
  const auto n = nodes_of(run_rprof({"--backend=inst", out, "30000", "3"}, {"OMP_NUM_THREADS=2"}));
  // 2n FLOPs, 16n bytes loaded and 8n stored per call, over both threads.
  CHECK(calls_at(n, "triad") == 3);
  CHECK(flops_at(n, "triad") == 2.0 * 30000 * 3);
  CHECK(n.at("triad")["threads"]["thread"].size() == 2);
  // The OpenMP region's body (the outlined function) and its loop, on both
  // threads, under the marked region its team inherited.
  std::string loop;
  for (const auto& [path, node] : n) {
    if (path.rfind("triad/", 0) == 0 && path.find("/loop omp_triad_f.f90:") != std::string::npos) {
      loop = path;
    }
  }
  REQUIRE(!loop.empty());
  CHECK(flops_at(n, loop) == 2.0 * 30000 * 3);
  CHECK(counter(n.at(loop)["counters"], "bytes.l1.read") == 16.0 * 30000 * 3);
  CHECK(counter(n.at(loop)["counters"], "bytes.l1.write") == 8.0 * 30000 * 3);
  CHECK(calls_at(n, loop) == 6);  // one entry per thread and call
#else
  skip_test("rprof is built without Fortran (no gfortran): the Fortran OpenMP case is not run");
#endif
}

TEST_CASE("inst through rprof cc mpicc: exact FLOPs summed over 2 ranks") {
  need_plugin();
  if (std::system("command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1") != 0) {
    skip_test("no mpicc/mpirun (scripts/install-deps.sh installs openmpi-bin, libopenmpi-dev)");
  }
  const std::string out = fresh_path("mpi_ranks_inst");
  const RunResult built = run_command(
      {RPROF_BIN, "cc", "mpicc", "-O2", source("samples/mpi_ranks.c"), "-DRPROF_ENABLE",
       "-I" + source("include"), "-L" + kLibDir, "-Wl,-rpath," + kLibDir, "-lrprof", "-o", out});
  INFO(built.err);
  REQUIRE(built.status == 0);
  std::vector<std::string> args = {"--backend=inst", "--"};
  for (const std::string& a : mpirun_np2({out})) args.push_back(a);
  const auto n = nodes_of(run_rprof_mpi(args));
  // Rank r makes r + 1 compute calls of work(1): 2,000,000 iterations of one
  // division and one addition: 3 calls, 12,000,000 FLOPs over the ranks.
  CHECK(calls_at(n, "compute") == 3);
  CHECK(flops_at(n, "compute") == 3 * 2.0 * 2000000);
  CHECK(flops_at(n, "compute/exchange") == 0);
}

TEST_CASE("inst: under -flto functions are named as without it") {
  need_plugin();
  const std::string src = source("tests/integration/apps/inst_lto.cpp");
  std::map<std::string, std::set<std::string>> names;
  for (const std::string lto : {"", "-flto"}) {
    INFO(lto);
    const std::string out = fresh_path("inst_lto");
    std::vector<std::string> argv = {RPROF_BIN, "cc", kCc, "-O2", "-g"};
    if (!lto.empty()) argv.push_back(lto);
    for (const std::string& a : {src, std::string("-lstdc++"), std::string("-o"), out}) argv.push_back(a);
    compile(argv, out);
    const auto n = nodes_of(run_rprof({"--backend=inst", out, "1000"}));
    for (const auto& [path, node] : n) names[lto].insert(path);
    // 1000 x (mul, add) in the constructor, 1000 x (mul, add) in sum().
    CHECK(flops_total(n.at("app::Grid::Grid()")["counters"]) == 2000);
    CHECK(flops_total(n.at("app::Grid::sum()")["counters"]) == 2000);
  }
  CHECK(names[""] == names["-flto"]);
  for (const std::string& path : names["-flto"]) CHECK(path.find("__ct") == std::string::npos);
}
