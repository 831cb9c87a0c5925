// The runtime's memory over a process's life (apps/lifetime.c): an ended
// thread's tables are folded and reused, so 10,000 short-lived threads cost
// what a few do and every region they completed is reported; the tables grow
// only as needed (RLIMIT_AS), say so when they cannot, and every limit is
// reported exactly; a forked child's tables and raw profile hold the names
// it uses, not every name of its parent.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

std::string app() { return std::string(RPROF_TEST_BIN_DIR) + "/apps/lifetime"; }

uint64_t error_count(const nlohmann::json& p, const std::string& kind) {
  uint64_t n = 0;
  for (const auto& e : p["errors"]) {
    if (e["kind"] == kind) n += e["count"].get<uint64_t>();
  }
  return n;
}

std::string notes_of(const nlohmann::json& p) {
  std::string all;
  for (const auto& n : p["notes"]) all += n.get<std::string>() + "\n";
  return all;
}

// The app's "rss_kb <peak> <now>" line: its peak RSS in kB.
[[maybe_unused]] long peak_rss_kb(const std::string& out) {
  const size_t at = out.find("rss_kb ");
  REQUIRE(at != std::string::npos);
  std::istringstream in(out.substr(at + 7));
  long peak = -1;
  in >> peak;
  return peak;
}

}  // namespace

TEST_CASE("10,000 short-lived threads: memory of a few, every call reported") {
  for (const char* end : {"exit", "_exit"}) {
    auto r = run_rprof({"--backend=time", app(), "threads", "10000", end});
    INFO(end << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    // Natively about 2 MB; each thread's tables take about 80 kB, so without
    // reuse 10,000 threads take 800 MB. The 64 kept whole and the folded
    // state stay far below 30 MB.
#if !defined(RPROF_TEST_SANITIZED)  // ASan's shadow and quarantine add tens of MB
    CHECK(peak_rss_kb(r.out) < 30 * 1024);
#endif
    const auto p = load_json(r.dir + "/profile.json");
    CHECK(find_region(p, "worker")["calls"] == 10000);
    CHECK(find_region(p, "worker/inner")["calls"] == 10000);
    CHECK(error_count(p, "too_many_paths") == 0);
    // Rows: the main thread's none (it called no marker), 64 threads kept
    // whole, one for the exited threads folded together (tid 0).
    const auto rows = find_region(p, "worker")["threads"];
    if (rows.is_object() && rows.contains("tid")) {
      CHECK(rows["tid"].size() == 65);
    }
  }
}

TEST_CASE("6,000 threads then _exit: the tables file is read whole") {
  auto r = run_rprof({"--backend=time", app(), "threads", "6000", "_exit"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "worker")["calls"] == 6000);
  CHECK(notes_of(p).find("kept from the shared tables") != std::string::npos);
  CHECK(notes_of(p).find("skipped") == std::string::npos);
}

TEST_CASE("forks after 2,000 threads: every child's region is kept") {
  auto r = run_rprof({"--backend=time", app(), "threads", "2000", "forks", "20"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "worker")["calls"] == 2000);
  CHECK(find_region(p, "child")["calls"] == 20);
}

TEST_CASE("forks of a parent with 3,000 names: children's names resolve, none copied whole") {
  const int names = 3000, forks = 30;
  auto r = run_rprof(
      {"--backend=time", app(), "forknames", std::to_string(names), std::to_string(forks)});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  // Each child's inherited name, under the "top" it inherited open, and its
  // own new name under it: named, never "region <id>".
  for (int c = 0; c < forks; ++c) {
    const std::string path = "top/name" + std::to_string(c * 97 % names);
    INFO(path);
    CHECK(find_region(p, path)["calls"] == 2);  // the parent's call and the child's
    CHECK(find_region(p, path + "/child_only")["calls"] == 1);
  }
  CHECK(find_region(p, "top/name1")["calls"] == 1);
  CHECK(find_region(p, "top/after29")["calls"] == 1);
  // "top": the parent's, and the children that ended it before _exit.
  CHECK(find_region(p, "top")["calls"] == 1 + forks / 3);
  for (const auto& reg : p["regions"]) {
    CHECK(reg["name"].get<std::string>().rfind("region ", 0) == std::string::npos);
  }
  // Every child's profile (raw at exit, or read from its tables after
  // _exit or SIGKILL) holds the few names it uses; only the parent's holds
  // all of them.
  int small = 0, whole = 0;
  for (const auto& e : fs::directory_iterator(r.dir + "/raw")) {
    const auto raw = load_json(e.path().string());
    const size_t n = raw["regions"].size();
    INFO(e.path() << ": " << n << " names");
    CHECK((n <= 4 || n >= static_cast<size_t>(names)));
    small += n <= 4;
    whole += n >= static_cast<size_t>(names);
  }
  CHECK(small == forks);
  CHECK(whole == 1);
}

TEST_CASE("the node limit is reported exactly, without nesting errors") {
  // 300 x 1000 + 300 = 300,300 paths, each called once; 262,144 held.
  auto r = run_rprof({"--backend=time", app(), "paths", "300", "1000"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(error_count(p, "too_many_paths") == 300300 - 262144);
  CHECK(error_count(p, "mismatched_end") == 0);
  CHECK(error_count(p, "end_without_begin") == 0);
  CHECK(p["regions"].size() == 262144 + 1);  // and the whole program
  auto report = run_command({RPROF_BIN, "report", r.dir});
  CHECK(report.out.find("38156 times") != std::string::npos);
}

TEST_CASE("long names and [program] are refused with an error, never cut or merged") {
  auto r = run_rprof({"--backend=time", app(), "names"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(error_count(p, "name_too_long") == 2);  // its begin and its end
  CHECK(error_count(p, "reserved_name") == 2);
  CHECK(find_region(p, std::string(1100, 'n'))["calls"] == 1);
  std::string b(1100, 'n');
  b[1050] = 'x';
  CHECK(find_region(p, b)["calls"] == 1);
  int program_rows = 0;
  for (const auto& reg : p["regions"]) program_rows += reg["name"] == "[program]";
  CHECK(program_rows == 1);
}

TEST_CASE("20 x rprof_work(1e18, 1e18) records 2e19, not 0") {
  auto r = run_rprof({"--backend=time", app(), "work", "20"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  const auto w = find_region(p, "work");
  REQUIRE(w.is_object());
  CHECK(w["declared_work"]["flops"].get<double>() == 2e19);
  CHECK(w["declared_work"]["bytes"].get<double>() == 2e19);
}

TEST_CASE("under an address-space limit the tables grow as needed") {
  // A limit of what the app maps at start plus 256 MiB: the app mallocs
  // 128 MiB of it and completes 20,202 paths; its tables (about 12 MB) fit.
  auto r = run_rprof({"--backend=time", app(), "limit", "262144"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "kept")["calls"] == 1);
  CHECK(find_region(p, "p")["calls"] == 1);
  CHECK(find_region(p, "p/a199/b99")["calls"] == 1);
  CHECK(p["regions"].size() == 20202 + 1);
  CHECK(notes_of(p).find("stopped growing") == std::string::npos);
}

TEST_CASE("under an address-space limit too tight for the tables, the note says why") {
#if defined(RPROF_TEST_SANITIZED)
  // AddressSanitizer's own allocator needs address space the limit leaves
  // none of: its mmap fails a CHECK, whose report deadlocks in its symbolizer.
  skip_test("a sanitized app cannot run within 1 MiB of address space: ASan's own mmap fails");
#endif
  // 1 MiB of margin: the app's malloc takes half, the tables cannot grow
  // past their first segment and the note says why; "kept" is in it.
  auto r = run_rprof({"--backend=time", app(), "limit", "1024"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "kept")["calls"] == 1);
  CHECK(notes_of(p).find("the tables stopped growing (Cannot allocate memory, the "
                         "address-space limit (ulimit -v)?)") != std::string::npos);
  CHECK(notes_of(p).find("not linked") == std::string::npos);
}

TEST_CASE("an unusable TMPDIR: one note, the tables made elsewhere, nothing lost") {
  // A regular file as TMPDIR: nothing can be made under it, root or not.
  const std::string file = fresh_dir("bad-tmp") + "/a-file";
  { std::ofstream(file) << "x"; }
  auto r = run_rprof({"--backend=time", app(), "threads", "10", "_exit"}, {"TMPDIR=" + file});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto p = load_json(r.dir + "/profile.json");
  CHECK(find_region(p, "worker")["calls"] == 10);
  CHECK(notes_of(p).find("the shared region tables could not be made in " + file +
                         " (Not a directory); they were made in /tmp") != std::string::npos);
}
