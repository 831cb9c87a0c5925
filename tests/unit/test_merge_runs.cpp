// The one merge of several runs (profile/merge_runs.h): hardware event-group
// passes, processes keyed by host, rank and pid, unmatched regions, notes.
// The sim join's wording is tested in test_sim_launch.cpp.
#include <catch2/catch.hpp>

#include "profile/merge_runs.h"

using namespace rprof;

namespace {

Region region(const std::vector<std::string>& path, uint64_t calls, const CounterMap& c,
              int64_t pid) {
  Region r;
  r.name = path.back();
  r.path = path;
  r.calls = calls;
  r.time_s = 1.0 * static_cast<double>(pid);
  r.counters = c;
  r.exclusive_counters = c;
  ThreadRow t;
  t.pid = pid;
  t.thread = 0;
  t.counters = c;
  r.threads.push_back(t);
  return r;
}

}  // namespace

TEST_CASE("passes merge counters per region and thread -- times from the first run") {
  Profile a, b;
  a.counters = {"hw.g0.x"};
  b.counters = {"hw.g1.y"};
  a.regions.push_back(region({"solve"}, 3, {{"hw.g0.x", 10}}, 100));
  b.regions.push_back(region({"solve"}, 3, {{"hw.g1.y", 7}}, 200));
  const Profile m = merge_passes({a, b});
  REQUIRE(m.regions.size() == 1);
  const Region& r = m.regions[0];
  CHECK(r.time_s == 100);  // first run's
  CHECK(r.counters.at("hw.g0.x") == 10);
  CHECK(r.counters.at("hw.g1.y") == 7);
  CHECK(r.exclusive_counters.at("hw.g1.y") == 7);
  CHECK(r.threads[0].counters.at("hw.g1.y") == 7);  // pids differ, ordinals match
  CHECK(m.counters == std::vector<std::string>{"hw.g0.x", "hw.g1.y"});
  CHECK(m.notes.empty());
}

TEST_CASE("calls that differ between runs, or regions one run missed, are listed") {
  Profile a, b;
  a.regions.push_back(region({"solve"}, 3, {}, 1));
  a.regions.push_back(region({"only_first"}, 1, {}, 1));
  b.regions.push_back(region({"solve"}, 4, {}, 2));
  b.regions.push_back(region({"only_second"}, 1, {}, 2));
  const Profile m = merge_passes({a, b});
  REQUIRE(m.notes.size() == 1);
  const std::string& n = m.notes[0];
  CHECK(n.find("not deterministic") != std::string::npos);
  CHECK(n.find("'solve' 3 calls in run 1, 4 in run 2") != std::string::npos);
  CHECK(n.find("'only_first' not reached in run 2") != std::string::npos);
  CHECK(n.find("'only_second' reached only in run 2") != std::string::npos);
}

namespace {

ThreadRow row(const std::string& host, int64_t rank, int64_t pid, const CounterMap& c) {
  ThreadRow t;
  t.host = host;
  t.rank = rank;
  t.pid = pid;
  t.counters = c;
  return t;
}

}  // namespace

TEST_CASE("merge_runs: threads matched by host, rank and pid order, not by pid") {
  // Two MPI ranks on each of two hosts; pids differ between the runs and on
  // node b rank 3 got the lower pid in the second run.
  Profile a, b;
  Region ra = region({"halo"}, 4, {{"x", 10}}, 0);
  ra.threads = {row("a", 0, 500, {{"x", 1}}), row("a", 1, 501, {{"x", 2}}),
                row("b", 2, 700, {{"x", 3}}), row("b", 3, 701, {{"x", 4}})};
  Region rb = region({"halo"}, 4, {{"y", 100}}, 0);
  rb.threads = {row("a", 0, 900, {{"y", 10}}), row("a", 1, 901, {{"y", 20}}),
                row("b", 2, 951, {{"y", 30}}), row("b", 3, 950, {{"y", 40}})};
  a.regions = {ra};
  b.regions = {rb};
  std::vector<RunMismatch> found;
  const Profile m = merge_runs({a, b}, {}, &found);
  CHECK(found.empty());
  const Region& r = m.regions[0];
  REQUIRE(r.threads.size() == 4);
  CHECK(r.counters.at("x") == 10);
  CHECK(r.counters.at("y") == 100);
  for (size_t i = 0; i < 4; ++i) {
    INFO(i);
    CHECK(r.threads[i].counters.at("x") == i + 1);
    CHECK(r.threads[i].counters.at("y") == 10 * (i + 1));
  }
}

TEST_CASE("merge_runs: mismatches in order, unmatched regions kept without time or left out") {
  Profile a, b;
  a.regions = {region({"solve"}, 3, {}, 1), region({"gone"}, 1, {}, 1)};
  b.regions = {region({"solve"}, 4, {{"x", 5}}, 2), region({"new"}, 2, {{"x", 7}}, 2)};
  b.counters = {"x"};  // the run's counter names, as a loaded profile lists them
  std::vector<RunMismatch> found;
  const Profile kept = merge_runs({a, b}, {.keep_unmatched = true}, &found);
  REQUIRE(found.size() == 3);
  CHECK(found[0].kind == RunMismatch::Kind::kCalls);
  CHECK(found[0].path == "solve");
  CHECK(found[0].first_calls == 3);
  CHECK(found[0].run_calls == 4);
  CHECK(found[0].run == 1);
  CHECK(found[1].kind == RunMismatch::Kind::kMissing);
  CHECK(found[1].path == "gone");
  CHECK(found[2].kind == RunMismatch::Kind::kExtra);
  CHECK(found[2].path == "new");
  const Region* added = kept.find({"new"});
  REQUIRE(added != nullptr);
  CHECK(added->time_s == 0);
  CHECK(added->threads[0].time_s == 0);
  CHECK(added->counters.at("x") == 7);
  CHECK(kept.find({"solve"})->counters.at("x") == 5);
  CHECK(kept.counters == std::vector<std::string>{"x"});
  found.clear();
  const Profile left = merge_runs({a, b}, {}, &found);
  CHECK(found.size() == 3);
  CHECK(left.find({"new"}) == nullptr);
}

TEST_CASE("merge_passes: three runs add up, mismatch of the third run named") {
  Profile a, b, c;
  a.regions = {region({"k"}, 2, {{"g0", 1}}, 1)};
  b.regions = {region({"k"}, 2, {{"g1", 2}}, 2)};
  c.regions = {region({"k"}, 5, {{"g2", 3}}, 3)};
  const Profile m = merge_passes({a, b, c});
  const Region& r = m.regions[0];
  CHECK(r.counters == CounterMap{{"g0", 1}, {"g1", 2}, {"g2", 3}});
  CHECK(r.threads[0].counters == CounterMap{{"g0", 1}, {"g1", 2}, {"g2", 3}});
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].find("'k' 2 calls in run 1, 5 in run 3") != std::string::npos);
}
