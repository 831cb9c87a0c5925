// The sim backend's launcher side: cache geometry (defaults, --sim-cache,
// checks), the tool's options, reading its totals, diagnosing a failed run,
// and joining a timed with a counted profile.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "profile/join.h"
#include "backends/sim/sim_config.h"
#include "backends/sim/sim_run.h"
#include "machine/machine_file.h"
#include "machine/topology.h"
#include "unit/error_code.h"

using namespace rprof;

using rprof::test::error_code;

namespace {

Region region(const std::vector<std::string>& path, uint64_t calls, double time_s,
              CounterMap counters = {}) {
  Region r;
  r.path = path;
  r.name = path.back();
  r.calls = calls;
  r.time_s = time_s;
  r.counters = counters;
  r.exclusive_counters = counters;
  ThreadRow t;
  t.pid = 100;
  t.thread = 0;
  t.calls = calls;
  t.time_s = time_s;
  t.counters = counters;
  r.threads.push_back(t);
  return r;
}

}  // namespace

TEST_CASE("sim caches: defaults from the topology") {
  Topology topo;
  topo.caches = {{1, 48 * 1024, 12, 64, 2}, {2, 2 * 1024 * 1024, 16, 64, 2},
                 {3, 300ULL * 1024 * 1024, 0, 64, 2}};
  const SimCaches c = sim_caches_from_topology(topo);
  CHECK(c.l1.size_bytes == 48 * 1024);
  CHECK(c.l1.ways == 12);
  CHECK(c.l2.size_bytes == 2 * 1024 * 1024);
  CHECK(c.llc.size_bytes == 300ULL * 1024 * 1024);
  CHECK(c.llc.ways == 8);  // unknown associativity
  CHECK_NOTHROW(check_sim_caches(c));
  CHECK(c.source.find("sysfs") != std::string::npos);
}

TEST_CASE("sim caches: odd sizes round down to whole sets -- no L3 keeps the default LLC") {
  Topology topo;
  topo.caches = {{1, 32 * 1024 + 100, 8, 64, 1}, {2, 1024 * 1024, -1, 64, 1}};
  const SimCaches c = sim_caches_from_topology(topo);
  CHECK(c.l1.size_bytes == 32 * 1024);
  CHECK(c.l2.ways == 64);  // fully associative: the model's widest
  CHECK(c.llc.size_bytes == SimCaches{}.llc.size_bytes);
  CHECK_NOTHROW(check_sim_caches(c));
}

TEST_CASE("sim caches: an effective size replaces a reported one only beyond the factor") {
  Topology topo;
  topo.caches = {{1, 32 * 1024, 8, 64, 1}, {2, 1024 * 1024, 8, 64, 1},
                 {3, 32ULL * 1024 * 1024, 16, 64, 2}};
  SimCaches c = sim_caches_from_topology(topo);
  Machine m;
  m.caches = {{1, 32 * 1024, 0, 8, 64, 1},                 // not measured
              {2, 1024 * 1024, 512 * 1024, 8, 64, 1},      // half: within 4x, reported kept
              {3, 32ULL * 1024 * 1024, 4 * 1024 * 1024 + 100, 16, 64, 2}};  // 1/8: replaced
  // A private L2 a disturbed sweep found 11x smaller keeps its reported size.
  Machine noisy = m;
  noisy.caches[1].effective_bytes = 181 * 1024;
  SimCaches d = sim_caches_from_topology(topo);
  apply_machine_caches(d, noisy, "noisy.json");
  CHECK(d.l2.size_bytes == 1024 * 1024);
  CHECK(chosen_cache_size(noisy.caches[1]).bytes == 1024 * 1024);
  CHECK_FALSE(chosen_cache_size(noisy.caches[1]).replaced);
  apply_machine_caches(c, m, "m.json");
  CHECK(c.l1.size_bytes == 32 * 1024);
  CHECK(c.l2.size_bytes == 1024 * 1024);
  CHECK(c.llc.size_bytes == 4 * 1024 * 1024);  // whole sets: 16 ways x 64 B
  CHECK(c.llc.ways == 16);
  CHECK_NOTHROW(check_sim_caches(c));
  CHECK(c.source.find("m.json") != std::string::npos);
  CHECK(c.source.find("L3 4 MiB measured instead of the reported 32 MiB (8x smaller") !=
        std::string::npos);
  CHECK(c.source.find("L2") == std::string::npos);
}

// Two calibrations of one machine with truthful sysfs (effective sizes within
// the factor, different each time) simulate the same caches: the recorded
// machine's geometry through its sysroot, never this host's.
TEST_CASE("sim caches: recalibrating a truthful machine never changes the simulated caches") {
  const std::string root = std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/";
  for (const char* name : {"zen4-desktop", "skylake-sp", "sapphire-rapids"}) {
    INFO(name);
    const Topology topo = detect_topology(root + name);
    REQUIRE(topo.level(1) != nullptr);
    Machine first = load_machine_file(root + name + "/machine.json");
    Machine second = first;
    for (CacheInfo& k : second.caches) {
      if (k.effective_bytes == 0) k.effective_bytes = k.reported_bytes;
      k.effective_bytes = k.effective_bytes / 2 + 4096;  // a noisier sweep
    }
    SimCaches a = sim_caches_from_topology(topo);
    SimCaches b = sim_caches_from_topology(topo);
    const SimCaches reported = sim_caches_from_topology(topo);
    apply_machine_caches(a, first, "first.json");
    apply_machine_caches(b, second, "second.json");
    CHECK(sim_tool_options(a) == sim_tool_options(b));
    CHECK(sim_tool_options(a) == sim_tool_options(reported));
  }
  // The VM whose sysfs shows its host's 480 MiB L3: the machine file's 24 MiB.
  const std::string vm = root + "cloud-vm-480m";
  SimCaches c = sim_caches_from_topology(detect_topology(vm));
  CHECK(c.llc.size_bytes == 480ULL << 20);
  apply_machine_caches(c, load_machine_file(vm + "/machine.json"), "vm.json");
  CHECK(c.llc.size_bytes == 24ULL << 20);
  CHECK(c.l2.size_bytes == 2ULL << 20);
  CHECK(c.source.find("L3 24 MiB measured instead of the reported 480 MiB (20x smaller") !=
        std::string::npos);
}

TEST_CASE("sim caches: --sim-cache overrides") {
  SimCaches c;
  apply_sim_cache_spec(c, "llc=1M:16,l1=16K,l2=256KB:4:64");
  CHECK(c.llc.size_bytes == 1024 * 1024);
  CHECK(c.llc.ways == 16);
  CHECK(c.l1.size_bytes == 16 * 1024);
  CHECK(c.l1.ways == 8);  // unchanged
  CHECK(c.l2.size_bytes == 256 * 1024);
  CHECK(c.l2.ways == 4);
  CHECK(c.source.find("--sim-cache") != std::string::npos);
  CHECK_NOTHROW(check_sim_caches(c));
  const std::vector<std::string> opts = sim_tool_options(c);
  REQUIRE(opts.size() == 3);
  CHECK(opts[0] == "--rp-l1=16384,8,64");
  CHECK(opts[1] == "--rp-l2=262144,4,64");
  CHECK(opts[2] == "--rp-llc=1048576,16,64");
  CHECK(describe_sim_caches(c).find("LLC 1 MiB 16-way (shared)") != std::string::npos);
}

TEST_CASE("sim caches: bad specs and geometries are usage errors naming the problem") {
  for (const char* spec : {"l4=1M", "llc", "llc=", "llc=1X", "llc=1M:a", "llc=1M:8:64:1",
                           "llc=99999999999999G", "llc=1Mi"}) {
    INFO(spec);
    SimCaches c;
    std::string what;
    CHECK(error_code([&] { apply_sim_cache_spec(c, spec); }, &what) == 2);
    CHECK(what.find("--sim-cache") != std::string::npos);
  }
  for (const char* spec : {"l1=33000:8", "l1=32K:0", "l1=32K:65", "llc=1M:16:128",
                           "l2=1M:8:48"}) {
    INFO(spec);
    SimCaches c;
    apply_sim_cache_spec(c, spec);
    CHECK(error_code([&] { check_sim_caches(c); }) == 2);
  }
}

TEST_CASE("sim run: totals, AVX-512 and Valgrind failures") {
  // One totals file per simulated process, summed.
  const std::filesystem::path dir = "test_sim_totals";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "totals.101.txt") << "flops.dp.256 800\nbytes.l1.read 24\n";
  std::ofstream(dir / "totals.102.txt") << "flops.dp.256 8\n";
  std::ofstream(dir / "valgrind.101.log") << "one\n";
  std::ofstream(dir / "valgrind.102.log") << "two\n";
  const CounterMap m = read_sim_totals(dir.string());
  const std::string logs = read_sim_logs(dir.string());
  const std::string names = sim_log_names(dir.string());
  std::filesystem::remove_all(dir);
  CHECK(names == "test_sim_totals/valgrind.101.log, test_sim_totals/valgrind.102.log");
  CHECK(sim_log_names(dir.string()) == "no Valgrind log in test_sim_totals/");
  CHECK(m.at("flops.dp.256") == 808);
  CHECK(m.at("bytes.l1.read") == 24);
  CHECK(logs == "one\ntwo\n");
  CHECK(read_sim_totals("no/such/dir").empty());

  LaunchResult sigill;
  sigill.signal = 4;
  const std::string log =
      "==1== valgrind: Unrecognised instruction at address 0x109139.\n"
      "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48 0x58\n";
  CHECK(log_shows_avx512(log));
  const std::string why = diagnose_sim_run(sigill, log, "", "./app", "sim/valgrind.7.log");
  CHECK(why.find("AVX-512") != std::string::npos);
  CHECK(why.find("-mno-avx512f") != std::string::npos);
  CHECK(diagnose_sim_run(LaunchResult{}, "==1== all fine\n", "", "./app", "sim/valgrind.7.log").empty());
  CHECK(diagnose_sim_run(LaunchResult{}, "valgrind: Bad option: --rp-l1=x\n", "", "./app",
                         "sim/valgrind.7.log")
            .find("option") != std::string::npos);
  // The message names the real log, never a placeholder.
  CHECK(diagnose_sim_run(sigill, "", "", "./app", "sim/valgrind.7.log") ==
        "./app was killed by signal 4 under the simulator (see sim/valgrind.7.log)");
}

TEST_CASE("diagnose_sim_run: the real cause, with its reason") {
  LaunchResult failed;
  failed.exit_code = 1;
  // Valgrind's thread limit: the reason is on the line after the colon.
  const std::string threads =
      "Use --max-threads=INT to specify a larger number of threads\n"
      "and rerun valgrind\n\n"
      "valgrind: the 'impossible' happened:\n"
      "   Max number of threads is too low\n\n"
      "host stacktrace:\n==16863==    at 0x5802561A: ???\n";
  const std::string why = diagnose_sim_run(failed, threads, "", "./app", "sim/valgrind.7.log");
  CHECK(
      why.rfind("Valgrind failed: the 'impossible' happened: Max number of threads is too "
                "low (the program ran more threads at once than Valgrind's limit, 4096 under rprof",
                0) == 0);
  // Before the log is open, Valgrind's messages are on the run's stderr.
  LaunchResult denied;
  denied.exit_code = 126;
  const std::string suid =
      "==16646== \n==16646== Warning: Can't execute setuid/setgid/setcap executable: ./suid\n"
      "==16646== Possible workaround: remove --trace-children=yes, if in effect\n"
      "valgrind: ./suid: Permission denied\n";
  CHECK(diagnose_sim_run(denied, "", suid, "./suid", "no Valgrind log in sim/")
            .rfind("./suid is set-user-ID, set-group-ID or has file capabilities", 0) == 0);
  CHECK(diagnose_sim_run(failed, "",
                         "==1== Bad option: --log-file=/o/a%zb/valgrind.%p.log\n"
                         "==1== Expected 'p' or 'q' or '%' after '%'\n",
                         "./app", "x") ==
        "Valgrind rejected an option: Bad option: --log-file=/o/a%zb/valgrind.%p.log "
        "(Expected 'p' or 'q' or '%' after '%')");
  LaunchResult unresolved;
  unresolved.exit_code = 127;
  CHECK(diagnose_sim_run(unresolved, "",
                         "./app: symbol lookup error: ./app: undefined symbol: never_called\n",
                         "./app", "x")
            .find("LD_BIND_NOW=1") != std::string::npos);
  // The program's own exit 127 with no loader message is no failure of the run.
  CHECK(diagnose_sim_run(unresolved, "", "app: input missing\n", "./app", "x").empty());
}

TEST_CASE("sim_run_files: a '%' of the output directory reaches Valgrind as %%") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rprof 100%p_%q";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const SimRunFiles f = sim_run_files(dir.string(), true);
  CHECK(f.dir == dir.string() + "/sim");
  CHECK(f.log == (std::filesystem::temp_directory_path() / "rprof 100%%p_%%q").string() +
                     "/sim/valgrind.%p.log");
  CHECK(f.totals.find("100%%p_%%q/sim/totals.%p.txt") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("sim_launch_spec: Valgrind runs up to kSimMaxThreads threads at once, not its 500") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rprof-max-threads";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const SimRunFiles f = sim_run_files(dir.string(), false);
  const LaunchSpec spec =
      sim_launch_spec(SimTool{"/usr/bin/valgrind", "/lib"}, SimCaches{}, {"./app"}, f);
  std::filesystem::remove_all(dir);
  int found = 0;
  for (const std::string& w : spec.wrapper) found += w == "--max-threads=4096";
  CHECK(found == 1);
  CHECK(kSimMaxThreads == 4096);
}

TEST_CASE("join: times from the timed run, counters from the counted run") {
  Profile timed, counted;
  timed.regions = {region({"a"}, 3, 1.5), region({"a", "b"}, 6, 0.5)};
  counted.regions = {region({"a"}, 3, 99.0, {{"flops.dp.256", 80}}),
                     region({"a", "b"}, 6, 9.0, {{"flops.dp.256", 40}})};
  counted.regions[0].threads[0].pid = 555;  // another process id in the other run
  counted.regions[1].threads[0].pid = 555;
  counted.counters = {"flops.dp.256"};
  const Profile p = join_timed_and_counted(timed, counted);
  const Region* a = p.find({"a"});
  REQUIRE(a != nullptr);
  CHECK(a->time_s == 1.5);
  CHECK(a->counters.at("flops.dp.256") == 80);
  CHECK(a->threads[0].counters.at("flops.dp.256") == 80);
  CHECK(p.find({"a", "b"})->counters.at("flops.dp.256") == 40);
  CHECK(p.counters == counted.counters);
  CHECK(p.notes.empty());
}

TEST_CASE("join: differing calls and regions make a not-deterministic note") {
  Profile timed, counted;
  timed.regions = {region({"a"}, 3, 1.5), region({"gone"}, 1, 0.1)};
  counted.regions = {region({"a"}, 4, 9.0, {{"bytes.l1.read", 8}}),
                     region({"new"}, 1, 9.0, {{"bytes.l1.read", 8}})};
  const Profile p = join_timed_and_counted(timed, counted);
  REQUIRE(p.notes.size() == 1);
  const std::string& note = p.notes[0];
  CHECK(note.find("not deterministic") != std::string::npos);
  CHECK(note.find("'a' 3 calls timed, 4 counted") != std::string::npos);
  CHECK(note.find("gone") != std::string::npos);
  CHECK(note.find("new") != std::string::npos);
  const Region* added = p.find({"new"});
  REQUIRE(added != nullptr);
  CHECK(added->time_s == 0);
  CHECK(added->counters.at("bytes.l1.read") == 8);
}

TEST_CASE("join: the program row gets whole-run totals, exclusive of top regions") {
  Profile p;
  p.regions = {region({"[program]"}, 1, 2.0), region({"a"}, 1, 1.0, {{"bytes.l1.read", 30}}),
               region({"a", "b"}, 1, 0.5, {{"bytes.l1.read", 10}})};
  set_program_counters(p, {{"bytes.l1.read", 100}, {"flops.dp.scalar", 5}});
  const Region* prog = p.find({"[program]"});
  CHECK(prog->counters.at("bytes.l1.read") == 100);
  CHECK(prog->exclusive_counters.at("bytes.l1.read") == 70);
  CHECK(prog->exclusive_counters.at("flops.dp.scalar") == 5);
}
