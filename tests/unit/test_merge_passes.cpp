// Multi-pass hardware counting: runs merged per region, determinism check.
#include <catch2/catch.hpp>

#include "profile/merge_passes.h"

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
