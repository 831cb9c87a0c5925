// Aggregation over threads and processes, tree order, profile.json round
// trip, and what the writers show.
#include <catch2/catch.hpp>
#include <sstream>

#include "profile_dom.h"
#include "profile/profile.h"
#include "profile/profile_json.h"
#include "report/data_reports.h"
#include "report/reporter.h"

using namespace rprof;

namespace {

RawNode make_node(int64_t parent, uint32_t region, uint64_t calls, uint64_t incl_ns,
                  uint64_t excl_ns, std::vector<uint64_t> incl = {}) {
  RawNode n;
  n.parent = parent;
  n.region = region;
  n.calls = calls;
  n.incl_ns = incl_ns;
  n.excl_ns = excl_ns;
  n.incl = incl;
  n.excl = incl;
  return n;
}

// Two threads: thread 0 runs a (10 ms) > b (4 ms); thread 1 runs b (6 ms) at top.
RawProfile two_threads(int64_t pid) {
  RawProfile p;
  p.pid = pid;
  p.backend = "fake";
  p.reason = "exit";
  p.counters = {"fake_a"};
  p.region_names = {{1, "a"}, {2, "b"}, {3, "c"}};
  RawThread t0;
  t0.index = 0;
  t0.nodes = {make_node(-1, 1, 2, 10'000'000, 6'000'000, {100}),
              make_node(0, 2, 4, 4'000'000, 4'000'000, {40})};
  RawThread t1;
  t1.index = 1;
  t1.nodes = {make_node(-1, 2, 3, 6'000'000, 5'000'000, {60}),
              make_node(0, 3, 1, 1'000'000, 1'000'000, {10})};
  t1.nodes[1].open_calls = 1;
  t1.nodes[1].open_ns = 500;
  p.threads = {t0, t1};
  return p;
}

}  // namespace

TEST_CASE("threads: counts summed, time is the slowest thread's, paths kept apart") {
  RunInfo run;
  run.wall_time_s = 0.02;
  Profile p = aggregate({two_threads(1)}, run);
  const Region* a = p.find({"a"});
  const Region* ab = p.find({"a", "b"});
  const Region* b = p.find({"b"});
  const Region* bc = p.find({"b", "c"});
  REQUIRE((a && ab && b && bc));
  CHECK(ab->calls == 4);
  CHECK(b->calls == 3);  // same name, different path: a different region
  CHECK(a->counters.at("fake_a") == 100);
  CHECK_FALSE(bc->complete);
  CHECK(bc->open_calls == 1);
  CHECK(p.run.threads == 2);
  // Tree order: [program] first, then top regions by time (a 10 ms > b 6 ms).
  REQUIRE(p.regions.size() == 5);
  CHECK(p.regions[0].is_program());
  CHECK(p.regions[1].path == std::vector<std::string>{"a"});
  CHECK(p.regions[2].path == std::vector<std::string>{"a", "b"});
  CHECK(p.regions[3].path == std::vector<std::string>{"b"});
  // [program] exclusive = wall - top-level regions.
  CHECK(p.regions[0].exclusive_time_s == Approx(0.02 - 0.010 - 0.006));
}

TEST_CASE("processes: same path merged, thread rows kept per process") {
  Profile p = aggregate({two_threads(1), two_threads(2)}, RunInfo{});
  const Region* ab = p.find({"a", "b"});
  REQUIRE(ab);
  CHECK(ab->calls == 8);
  CHECK(ab->threads.size() == 2);
  CHECK(ab->time_s == Approx(0.004));         // max over threads
  CHECK(ab->thread_time_s == Approx(0.008));  // sum
  CHECK(ab->counters.at("fake_a") == 80);
  CHECK(p.run.processes == 2);
  CHECK(p.find({"[program]"}) == nullptr);  // no launcher measurement
}

TEST_CASE("threads with markers: a thread that called none is not counted") {
  // The runtime creates the main thread's tables at start-up: a program whose
  // workers alone call markers writes the main thread empty.
  RawProfile raw = two_threads(1);
  RawThread idle;
  idle.index = 2;
  RawThread refused;  // only a refused marker (an error, no node)
  refused.index = 3;
  refused.errors.push_back(RawError{});
  raw.threads.insert(raw.threads.begin(), idle);
  raw.threads.push_back(refused);
  CHECK(aggregate({raw}, RunInfo{}).run.threads == 3);
  CHECK(aggregate({two_threads(1), two_threads(2)}, RunInfo{}).run.threads == 4);
}

TEST_CASE("profile.json round trip keeps every measured field") {
  RunInfo run;
  run.command = {"./app", "x y"};
  run.wall_time_s = 0.5;
  run.exit_code = 3;
  Profile p = aggregate({two_threads(7)}, run);
  p.regions[1].work_calls = 2;
  p.regions[1].work_flops = 4e9;
  p.regions[1].work_bytes = 1e9;
  p.errors.push_back({"mismatched_end", "a", "b\n", 2, 7, 0});
  p.notes.push_back("a note");
  const auto j = rprof::test::profile_dom(p);
  const Profile q = profile_from_json(j, "mem");
  CHECK(profile_json_text(q) == profile_json_text(p));
  CHECK(q.regions[1].work_flops == 4e9);
  CHECK(q.errors[0].got == "b\n");
}

TEST_CASE("profile.json defects are named") {
  auto j = rprof::test::profile_dom(aggregate({two_threads(7)}, RunInfo{}));
  auto msg = [](const nlohmann::json& doc) {
    try {
      profile_from_json(doc, "p.json");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto bad = j;
  bad["regions"][0]["calls"] = "many";
  CHECK_THAT(msg(bad), Catch::Contains("p.json") && Catch::Contains("calls"));
  bad = j;
  bad["regions"][0]["path"] = nlohmann::json::array({"other"});
  CHECK_THAT(msg(bad), Catch::Contains("path"));
  bad = j;
  bad.erase("run");
  CHECK_THAT(msg(bad), Catch::Contains("missing 'run'"));
  bad = j;
  bad["format"] = 5;
  CHECK_THAT(msg(bad), Catch::Contains("foreign"));
  // Numbers that do not fit are refused, never wrapped or truncated.
  bad = j;
  bad["regions"][0]["calls"] = -5;
  CHECK_THAT(msg(bad), Catch::Contains("p.json: not a valid rprof profile: regions[0].calls: -5 is out of range (0 to 18446744073709551615)"));
  bad = j;
  bad["regions"][0]["calls"] = 1e30;
  CHECK_THAT(msg(bad), Catch::Contains("regions[0].calls: expected an integer, got 1e+30"));
  bad = j;
  bad["schema_version"] = 4294967297;
  CHECK_THAT(msg(bad), Catch::Contains("schema_version: 4294967297 is out of range"));
}

TEST_CASE("text report shows only columns with data") {
  RunInfo run;
  run.wall_time_s = 0.02;
  Profile one = aggregate({two_threads(1)}, run);
  std::ostringstream text;
  make_reporter("text")->write(measured_only(one), {}, text);
  CHECK_THAT(text.str(), Catch::Contains("Calls") && Catch::Contains("Time [s]") &&
                             Catch::Contains("% run") && Catch::Contains("Open"));
  CHECK_THAT(text.str(), !Catch::Contains("Declared"));
  RawProfile single = two_threads(1);
  single.threads.resize(1);
  Profile p = aggregate({single}, RunInfo{});
  std::ostringstream t2;
  make_reporter("text")->write(measured_only(p), {}, t2);
  CHECK_THAT(t2.str(), !Catch::Contains("% run") && !Catch::Contains("Threads") &&
                           !Catch::Contains("Open"));
}

TEST_CASE("CSV fields are quoted when needed") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("CSV fields: control characters shown, formula cells neutralised") {
  CHECK(csv_field("\x1b[31mred\x07") == "\\x1b[31mred\\x07");
  CHECK(csv_field("cr\rhere") == "cr\\x0dhere");
  CHECK(csv_field(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(csv_field("del\x7f") == "del\\x7f");
  CHECK(csv_field("csi\xc2\x9b" "2J") == "csi\\u009b2J");
  CHECK(csv_field("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 text stays
  CHECK(csv_field("=1+2") == "'=1+2");
  CHECK(csv_field("+1") == "'+1");
  CHECK(csv_field("-1") == "'-1");
  CHECK(csv_field("@sum") == "'@sum");
  CHECK(csv_field("\tx") == "'\\x09x");
  CHECK(csv_field("=HYPERLINK(\"a,b\")") == "\"'=HYPERLINK(\"\"a,b\"\")\"");
  CHECK(csv_field("a=b") == "a=b");
  CHECK(csv_field("") == "");
}

TEST_CASE("spread over threads and processes: min, mean, max, imbalance") {
  Region r;
  auto row = [](const char* host, int64_t pid, double t) {
    ThreadRow x;
    x.host = host;
    x.pid = pid;
    x.time_s = t;
    return x;
  };
  // Process 1 on host a: threads of 1 s and 3 s; process 1 on host b: 2 s.
  r.threads = {row("a", 1, 1.0), row("a", 1, 3.0), row("b", 1, 2.0)};
  const Spread t = r.thread_spread();
  CHECK(t.count == 3);
  CHECK(t.min_s == 1.0);
  CHECK(t.mean_s == Approx(2.0));
  CHECK(t.max_s == 3.0);
  CHECK(t.imbalance() == Approx(0.5));
  const Spread p = r.process_spread();  // same pid on two hosts: two processes
  CHECK(p.count == 2);
  CHECK(p.min_s == 2.0);
  CHECK(p.max_s == 3.0);
  CHECK(p.imbalance() == Approx(3.0 / 2.5 - 1));
  CHECK(Region{}.thread_spread().imbalance() == 0);
}
