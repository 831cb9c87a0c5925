// LIKWID and PAPI-HL programs run under rprof unchanged, and the Fortran
// module: programs built against the real Debian liblikwid / libpapi (not
// rebuilt: the launcher preloads rprof's drop-in) and the same sources built
// against rprof-likwid / rprof-papi, with exact call counts, nesting and
// FLOPs under the sim backend (FMA = 2 FLOPs), the timing backend's counts,
// what LIKWID_MARKER_GET returns, and PAPI's return codes.
//
// Simulated caches are pinned and the machine file is the test's own, so
// nothing depends on this machine or the user's HOME.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

const std::string kCaches = "l1=32K:8:64,l2=256K:8:64,llc=1M:16:64";

void require_sim() {
#if defined(RPROF_TEST_SANITIZED)
  std::printf(
      "skipped: a sanitized librprof can neither be preloaded into these programs "
      "nor run under Valgrind\n");
  std::exit(RPROF_SKIP_CODE);
#elif !defined(RPROF_TEST_HAVE_SIM)
  std::printf("skipped: this build has no sim backend (valgrind not installed)\n");
  std::exit(RPROF_SKIP_CODE);
#endif
}

[[maybe_unused]] void skip(const std::string& why) {
  std::printf("skipped: %s\n", why.c_str());
  std::exit(RPROF_SKIP_CODE);
}

std::string program(const std::string& name) {
  return std::string(RPROF_COMPAT_BIN_DIR) + "/" + name;
}

// The recorded default machine's file (the harness's default too): nothing
// calibrates this machine or reads the user's cache.
const std::string& machine_env() {
  static const std::string env = "RPROF_MACHINE_FILE=" + machine_file(default_machine());
  return env;
}

struct Run {
  RunResult result;
  json profile;
  std::string sim_stdout;  // the app's stdout in the simulated run
};

// rprof -q --backend=<backend> [sim caches] program args (an MPI job, with
// mpirun, through run_rprof_mpi).
// on_cpu: a region of a program that never waits, whose verdict the caller
// checks (run again on a busy host: run_rprof_on_cpu).
Run run(const std::string& backend, const std::vector<std::string>& cmd,
        const std::string& on_cpu = "") {
  std::vector<std::string> args = {"-q", "--backend=" + backend};
  if (backend == "sim") {
    args.push_back("--sim-cache");
    args.push_back(kCaches);
  }
  args.insert(args.end(), cmd.begin(), cmd.end());
  Run r;
  const bool mpi = std::find(cmd.begin(), cmd.end(), "mpirun") != cmd.end();
  r.result = mpi              ? run_rprof_mpi(args, {machine_env()})
             : on_cpu.empty() ? run_rprof(args, {machine_env()})
                              : run_rprof_on_cpu(args, on_cpu, {machine_env()});
  INFO(r.result.err);
  REQUIRE(r.result.status == 0);
  r.profile = load_json(r.result.dir + "/profile.json");
  if (backend == "sim") r.sim_stdout = read_text(r.result.dir + "/sim/stdout.txt");
  return r;
}

uint64_t counter(const json& region, const std::string& name) {
  const json& c = region.at("counters");
  return c.contains(name) ? c.at(name).get<uint64_t>() : 0;
}

uint64_t flops(const json& region) {
  uint64_t s = 0;
  for (const char* p : {"sp", "dp"}) {
    for (const char* w : {"scalar", "128", "256"}) {
      s += counter(region, std::string("flops.") + p + "." + w);
    }
  }
  return s;
}

json region(const json& profile, const std::string& path) {
  json r = find_region(profile, path);
  INFO("region " << path);
  REQUIRE(r.is_object());
  return r;
}

// Paths of all marked regions in the profile, sorted.
std::vector<std::string> region_paths(const json& profile) {
  std::vector<std::string> paths;
  for (const json& r : profile.at("regions")) {
    std::string p;
    for (const json& part : r.at("path")) p += (p.empty() ? "" : "/") + part.get<std::string>();
    if (p != "[program]") paths.push_back(p);  // the whole run's row
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool has_note(const json& profile, const std::string& a, const std::string& b) {
  for (const json& n : profile.at("notes")) {
    const std::string s = n.get<std::string>();
    if (s.find(a) != std::string::npos && s.find(b) != std::string::npos) return true;
  }
  return false;
}

// The value after `key=` on the line starting with `label `.
long field(const std::string& text, const std::string& label, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(label + " ", 0) != 0) continue;
    const size_t at = line.find(" " + key + "=");
    if (at == std::string::npos) continue;
    return std::strtol(line.c_str() + at + key.size() + 2, nullptr, 10);
  }
  FAIL("no '" << label << " ... " << key << "=' in:\n" << text);
  return -1;
}

// "<label> event <k> <value>" lines, in order.
std::vector<uint64_t> events(const std::string& text, const std::string& label) {
  std::vector<uint64_t> v;
  const std::regex re("^" + label + " event ([0-9]+) ([0-9]+)$");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, re)) v.push_back(std::stoull(m[2]));
  }
  return v;
}

// The counter names of the simulated run, in the runtime's order (what
// LIKWID_MARKER_GET's events follow): from its raw profile.
std::vector<std::string> sim_counter_names(const std::string& out_dir) {
  for (const auto& e : std::filesystem::directory_iterator(out_dir + "/raw-sim")) {
    const json raw = load_json(e.path().string());
    if (raw.contains("counters")) return raw.at("counters").get<std::vector<std::string>>();
  }
  FAIL("no raw profile with counters in " << out_dir << "/raw-sim");
  return {};
}

// LIKWID C program (likwid_markers.c): outer x reps { daxpy; inner x 3 },
// then GET, RESET, one top-level inner, GET.
[[maybe_unused]] void check_likwid_c(const std::string& prog, const std::string& library) {
  const uint64_t n = 2000, reps = 3;
  const std::vector<std::string> cmd = {program(prog), std::to_string(n), std::to_string(reps)};
  const Run s = run("sim", cmd);
  const json& p = s.profile;
  CHECK(region_paths(p) == std::vector<std::string>{"inner", "outer", "outer/inner"});
  const json outer = region(p, "outer"), nested = region(p, "outer/inner"),
             top = region(p, "inner");
  CHECK(outer["calls"] == reps);
  CHECK(nested["calls"] == 3 * reps);
  CHECK(top["calls"] == 1);
  CHECK(flops(outer) == 2 * n * 4 * reps);  // its own daxpy and three inner ones
  CHECK(flops(nested) == 2 * n * 3 * reps);
  CHECK(flops(top) == 2 * n);
  CHECK(has_note(p, "LIKWID marker API", library));
  // The native (timed) run printed on rprof's stdout: GET had no counters.
  const std::string& out = s.result.out;
  CHECK(field(out, "register", "rc") == 0);
  CHECK(field(out, "start/stop", "rc") == 0);
  CHECK(field(out, "reset", "rc") == 0);
  CHECK(field(out, "GET", "count") == static_cast<long>(3 * reps));
  CHECK(field(out, "GET", "nevents") == 0);
  CHECK(field(out, "GET", "time_positive") == 1);
  CHECK(field(out, "GET-after-reset", "count") == 1);
  // The simulated run: GET's events are what rprof counted for the region,
  // counter by counter (before the reset: outer/inner; after: the new call).
  const std::vector<std::string> names = sim_counter_names(s.result.dir);
  REQUIRE(!names.empty());
  CHECK(field(s.sim_stdout, "GET", "count") == static_cast<long>(3 * reps));
  CHECK(field(s.sim_stdout, "GET", "nevents") == static_cast<long>(names.size()));
  CHECK(field(s.sim_stdout, "GET-after-reset", "count") == 1);
  const std::vector<uint64_t> before = events(s.sim_stdout, "GET");
  const std::vector<uint64_t> after = events(s.sim_stdout, "GET-after-reset");
  REQUIRE(before.size() == names.size());
  REQUIRE(after.size() == names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    INFO("event " << k << " = " << names[k]);
    CHECK(before[k] == counter(nested, names[k]));
    CHECK(after[k] == counter(top, names[k]));
  }
  // Timing backend: the same regions, calls and nesting.
  const Run t = run("time", cmd);
  CHECK(region_paths(t.profile) == std::vector<std::string>{"inner", "outer", "outer/inner"});
  CHECK(region(t.profile, "outer")["calls"] == reps);
  CHECK(region(t.profile, "outer/inner")["calls"] == 3 * reps);
  CHECK(has_note(t.profile, "LIKWID marker API", library));
}

// LIKWID Fortran program (likwid_markers_f.F90): outer x reps { daxpy; inner x 2 }.
[[maybe_unused]] void check_likwid_fortran(const std::string& prog, const std::string& library) {
  const uint64_t n = 2000, reps = 3;
  const Run s = run("sim", {program(prog), std::to_string(n), std::to_string(reps)});
  CHECK(region_paths(s.profile) == std::vector<std::string>{"outer", "outer/inner"});
  const json outer = region(s.profile, "outer"), inner = region(s.profile, "outer/inner");
  CHECK(outer["calls"] == reps);
  CHECK(inner["calls"] == 2 * reps);
  CHECK(flops(outer) == 2 * n * 3 * reps);
  CHECK(flops(inner) == 2 * n * 2 * reps);
  CHECK(has_note(s.profile, "LIKWID marker API", library));
  CHECK(field(s.result.out, "GET", "count") == static_cast<long>(2 * reps));
  CHECK(field(s.sim_stdout, "GET", "count") == static_cast<long>(2 * reps));
}

// PAPI-HL program (papi_hl.c): compute x reps { daxpy; kernel x 2 }, stop,
// after_stop once.
[[maybe_unused]] void check_papi(const std::string& prog, const std::string& library) {
  const uint64_t n = 2000, reps = 3;
  const std::vector<std::string> cmd = {program(prog), std::to_string(n), std::to_string(reps)};
  const Run s = run("sim", cmd);
  CHECK(region_paths(s.profile) ==
        std::vector<std::string>{"after_stop", "compute", "compute/kernel"});
  const json compute = region(s.profile, "compute"), kernel = region(s.profile, "compute/kernel");
  const json after = region(s.profile, "after_stop");
  CHECK(compute["calls"] == reps);
  CHECK(kernel["calls"] == 2 * reps);
  CHECK(after["calls"] == 1);
  CHECK(flops(compute) == 2 * n * 3 * reps);
  CHECK(flops(kernel) == 2 * n * 2 * reps);
  CHECK(flops(after) == 2 * n);
  CHECK(has_note(s.profile, "PAPI high-level API", library));
  for (const std::string* out : {&s.result.out, &s.sim_stdout}) {
    CHECK(field(*out, "read", "rc") == -14);  // PAPI_EMISC: no open region
    CHECK(field(*out, "regions", "rc") == 0);
    CHECK(field(*out, "stop", "rc") == 0);
    CHECK(field(*out, "stop again", "rc") == -7);  // PAPI_ENOEVNT
    CHECK(field(*out, "after stop", "rc") == 0);
  }
  const Run t = run("time", cmd);
  CHECK(region(t.profile, "compute/kernel")["calls"] == 2 * reps);
  CHECK(has_note(t.profile, "PAPI high-level API", library));
}

// PAPI-HL Fortran program (papi_hl_f.f90): compute x reps { daxpy; kernel x 2 }.
[[maybe_unused]] void check_papi_fortran(const std::string& prog, const std::string& library) {
  const uint64_t n = 2000, reps = 3;
  const Run s = run("sim", {program(prog), std::to_string(n), std::to_string(reps)});
  CHECK(region_paths(s.profile) == std::vector<std::string>{"compute", "compute/kernel"});
  const json compute = region(s.profile, "compute"), kernel = region(s.profile, "compute/kernel");
  CHECK(compute["calls"] == reps);
  CHECK(kernel["calls"] == 2 * reps);
  CHECK(flops(compute) == 2 * n * 3 * reps);
  CHECK(flops(kernel) == 2 * n * 2 * reps);
  CHECK(has_note(s.profile, "PAPI high-level API", library));
  for (const std::string* out : {&s.result.out, &s.sim_stdout}) {
    CHECK(field(*out, "regions", "rc") == 0);
    CHECK(field(*out, "regions", "stop") == 0);
  }
}

// likwid_omp.c: 2 threads x reps calls of "par", each a daxpy of n.
[[maybe_unused]] void check_likwid_omp(const std::string& prog) {
  const uint64_t n = 2000, reps = 3;
  const std::vector<std::string> cmd = {program(prog), std::to_string(n), std::to_string(reps)};
  const Run s = run("sim", cmd);
  CHECK(region_paths(s.profile) == std::vector<std::string>{"par"});
  const json par = region(s.profile, "par");
  CHECK(par["calls"] == 2 * reps);
  CHECK(par["threads"]["rows"] == 2);
  CHECK(flops(par) == 2 * n * 2 * reps);
  for (const std::string* out : {&s.result.out, &s.sim_stdout}) {
    // Each thread's GET: its own calls, one line per thread.
    const std::string line = "thread GET count=" + std::to_string(reps) + "\n";
    size_t lines = 0;
    for (size_t at = out->find(line); at != std::string::npos; at = out->find(line, at + 1)) {
      ++lines;
    }
    CHECK(lines == 2);
  }
}

}  // namespace

TEST_CASE("LIKWID C markers built against the real liblikwid and not rebuilt") {
  require_sim();
#if defined(RPROF_TEST_REAL_LIKWID)
  check_likwid_c("likwid_markers_real", "liblikwid.so");
#else
  skip("liblikwid and likwid-marker.h were not found at configure time (apt-get install likwid)");
#endif
}

TEST_CASE("LIKWID C markers: the same source built against rprof-likwid") {
  require_sim();
  check_likwid_c("likwid_markers_shim", "librprof-likwid.so");
}

TEST_CASE("LIKWID markers in OpenMP threads: real liblikwid and rprof-likwid") {
  require_sim();
#if !defined(RPROF_TEST_OPENMP)
  skip("OpenMP for C was not found at configure time");
#elif !defined(RPROF_TEST_REAL_LIKWID)
  skip("liblikwid and likwid-marker.h were not found at configure time (apt-get install likwid)");
#else
  check_likwid_omp("likwid_omp_real");
  check_likwid_omp("likwid_omp_shim");
#endif
}

TEST_CASE("PAPI high-level regions built against the real libpapi and not rebuilt") {
  require_sim();
#if defined(RPROF_TEST_REAL_PAPI)
  check_papi("papi_hl_real", "libpapi.so");
#else
  skip("libpapi and papi.h were not found at configure time (apt-get install libpapi-dev)");
#endif
}

TEST_CASE("PAPI high-level regions: the same source built against rprof-papi") {
  require_sim();
  check_papi("papi_hl_shim", "librprof-papi.so");
}

TEST_CASE("LIKWID Fortran markers (module likwid) built against the real liblikwid") {
  require_sim();
#if defined(RPROF_TEST_REAL_LIKWID_FORTRAN)
  check_likwid_fortran("likwid_markers_f_real", "liblikwid.so");
#elif !defined(RPROF_TEST_FORTRAN)
  skip(RPROF_TEST_NO_FORTRAN);
#else
  skip(
      "liblikwid or its Fortran module likwid.mod was not found at configure time "
      "(apt-get install likwid)");
#endif
}

TEST_CASE("LIKWID Fortran markers: the same source built against rprof-likwid") {
  require_sim();
#if defined(RPROF_TEST_FORTRAN)
  check_likwid_fortran("likwid_markers_f_shim", "librprof-likwid.so");
#else
  skip(RPROF_TEST_NO_FORTRAN);
#endif
}

TEST_CASE("PAPI Fortran regions (papif_hl_*) built against the real libpapi") {
  require_sim();
#if defined(RPROF_TEST_REAL_PAPI_FORTRAN)
  check_papi_fortran("papi_hl_f_real", "libpapi.so");
#elif !defined(RPROF_TEST_FORTRAN)
  skip(RPROF_TEST_NO_FORTRAN);
#else
  skip("libpapi and papi.h were not found at configure time (apt-get install libpapi-dev)");
#endif
}

TEST_CASE("PAPI Fortran regions: the same source built against rprof-papi") {
  require_sim();
#if defined(RPROF_TEST_FORTRAN)
  check_papi_fortran("papi_hl_f_shim", "librprof-papi.so");
#else
  skip(RPROF_TEST_NO_FORTRAN);
#endif
}

TEST_CASE("Fortran module rprof: the triad sample is DRAM-bound with exact FLOPs") {
  require_sim();
#if !defined(RPROF_TEST_FORTRAN)
  skip(RPROF_TEST_NO_FORTRAN);
#else
  // 3 arrays of 200000 doubles (4.8 MB) against a 1 MiB simulated LLC.
  const uint64_t n = 200000, reps = 2;
  const Run s =
      run("sim", {sample("triad_f"), std::to_string(n), std::to_string(reps)}, "triad");
  CHECK(region_paths(s.profile) == std::vector<std::string>{"triad"});
  const json triad = region(s.profile, "triad");
  CHECK(triad["calls"] == reps);
  CHECK(flops(triad) == 2 * n * reps);
  INFO(triad.dump(2));
  REQUIRE(triad.contains("verdict"));
  CHECK(triad["verdict"]["bound"] == "memory");
  CHECK(triad["verdict"]["boundary"] == "dram");
#endif
}

TEST_CASE("rprof_region_read and rprof_counter_name: what the runtime counted") {
  require_sim();
  const uint64_t n = 1000;
  // Not under rprof: inactive and zeros.
  const RunResult plain = run_command({program("region_read"), std::to_string(n)});
  REQUIRE(plain.status == 0);
  CHECK(field(plain.out, "read", "rc") == 1);  // RPROF_INACTIVE
  CHECK(field(plain.out, "read", "calls") == 0);
  CHECK(field(plain.out, "read", "counters") == 0);
  // Under sim: every counter named as in the raw profile, valued as the report.
  const Run s = run("sim", {program("region_read"), std::to_string(n)});
  const std::vector<std::string> names = sim_counter_names(s.result.dir);
  const json r = region(s.profile, "r");
  CHECK(r["calls"] == 2);
  CHECK(flops(r) == 2 * n * 2);
  const std::string& out = s.sim_stdout;
  CHECK(out.find("active=1\n") == 0);
  CHECK(field(out, "read", "rc") == 0);
  CHECK(field(out, "read", "calls") == 2);
  REQUIRE(field(out, "read", "counters") == static_cast<long>(names.size()));
  CHECK(field(out, "past-end", "null") == 1);
  CHECK(field(out, "unknown", "rc") == 0);
  CHECK(field(out, "unknown", "calls") == 0);
  std::istringstream in(out);
  size_t seen = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag, name;
    size_t k = 0;
    uint64_t value = 0;
    if (!(words >> tag >> k >> name >> value) || tag != "counter") continue;
    REQUIRE(k < names.size());
    CHECK(name == names[k]);
    CHECK(value == counter(r, name));
    ++seen;
  }
  CHECK(seen == names.size());
  // Timing only: calls, no counters.
  const Run t = run("time", {program("region_read"), std::to_string(n)});
  CHECK(field(t.result.out, "read", "calls") == 2);
  CHECK(field(t.result.out, "read", "counters") == 0);
  CHECK(field(t.result.out, "read", "seconds_ok") == 1);
}

TEST_CASE("programs without LIKWID or PAPI get no drop-in and no note") {
  const Run t = run("time", {sample("daxpy"), "1000", "2"});
  CHECK(region(t.profile, "daxpy")["calls"] == 2);
  CHECK_FALSE(has_note(t.profile, "regions from", ""));
}

namespace {

// 2 ranks (harness.h), timing backend.
std::vector<std::string> mpirun(const std::vector<std::string>& app) {
  std::vector<std::string> cmd = {"--"};
  for (std::string& s : mpirun_np2(app)) cmd.push_back(std::move(s));
  return cmd;
}

[[maybe_unused]] void require_mpirun() {
  if (std::system("command -v mpirun >/dev/null") != 0) {
    skip("mpirun not found (scripts/install-deps.sh installs openmpi-bin)");
  }
}

}  // namespace

TEST_CASE("LIKWID program under mpirun: the drop-in records in the ranks only") {
  require_sim();
#if defined(RPROF_TEST_REAL_LIKWID)
  require_mpirun();
  const uint64_t reps = 2;
  const Run t = run("time", mpirun({program("likwid_markers_real"), "1000", std::to_string(reps)}));
  CHECK(t.profile["run"]["processes"] == 2);  // not mpirun itself
  CHECK(region(t.profile, "outer")["calls"] == 2 * reps);
  CHECK(region(t.profile, "outer/inner")["calls"] == 2 * 3 * reps);
  CHECK(region(t.profile, "inner")["calls"] == 2);
  CHECK(has_note(t.profile, "LIKWID marker API", "liblikwid.so"));
#else
  skip("liblikwid and likwid-marker.h were not found at configure time (apt-get install likwid)");
#endif
}

TEST_CASE("MPI Fortran with the rprof module: 2 ranks merged with exact calls") {
  require_sim();
#if defined(RPROF_TEST_MPI_FORTRAN)
  require_mpirun();
  const Run t = run("time", mpirun({program("mpi_ranks_f")}));
  CHECK(t.profile["run"]["processes"] == 2);
  CHECK(t.profile["run"]["world_size"] == 2);
  CHECK(region_paths(t.profile) == std::vector<std::string>{"compute", "compute/exchange"});
  CHECK(region(t.profile, "compute")["calls"] == 3);  // rank 0: 1 call, rank 1: 2 calls
  CHECK(region(t.profile, "compute/exchange")["calls"] == 3);
#elif !defined(RPROF_TEST_FORTRAN)
  skip(RPROF_TEST_NO_FORTRAN);
#else
  skip("MPI for Fortran (mpif90) was not found at configure time (apt-get install libopenmpi-dev)");
#endif
}
