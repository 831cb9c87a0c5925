// CounterMap (profile/counter_map.h): std::map's behaviour where the code
// uses it, on a flat vector with interned names, and add() as a merge.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "profile/counter_map.h"

using namespace rprof;

namespace {

std::vector<std::pair<std::string, uint64_t>> items(const CounterMap& m) {
  std::vector<std::pair<std::string, uint64_t>> v;
  for (const auto& [k, c] : m) v.emplace_back(k, c);
  return v;
}

}  // namespace

TEST_CASE("counter map: iteration in name order whatever the insertion order") {
  CounterMap m;
  m["flops.dp.scalar"] = 3;
  m["bytes.l1.read"] = 8;
  m["bytes.dram.write"] = 64;
  m["hw.g0.a_name_longer_than_sixteen_bytes"] += 5;
  const std::map<std::string, uint64_t> ref{{"flops.dp.scalar", 3},
                                           {"bytes.l1.read", 8},
                                           {"bytes.dram.write", 64},
                                           {"hw.g0.a_name_longer_than_sixteen_bytes", 5}};
  CHECK(items(m) == std::vector<std::pair<std::string, uint64_t>>(ref.begin(), ref.end()));
  CHECK(m == CounterMap(ref));
  CHECK(m.size() == 4);
}

TEST_CASE("counter map: lookups do not insert, operator[] inserts a zero") {
  CounterMap m{{"b", 2}, {"a", 1}};
  CHECK(m.find("c") == m.end());
  CHECK(m.count("c") == 0);
  CHECK_THROWS_AS(m.at("c"), std::out_of_range);
  CHECK(m.size() == 2);
  CHECK(m.at("a") == 1);
  CHECK(m.find("b")->second == 2);
  CHECK(m["c"] == 0);
  CHECK(m.size() == 3);
  m.find("b")->second += 40;
  CHECK(m.at("b") == 42);
  CHECK_FALSE(m.emplace("a", 99).second);  // as std::map: the old count stays
  CHECK(m.at("a") == 1);
  m.insert_or_assign("a", 7);
  CHECK(m.at("a") == 7);
  CHECK(m.erase("a") == 1);
  CHECK(m.erase("a") == 0);
  CHECK(items(m) == std::vector<std::pair<std::string, uint64_t>>{{"b", 42}, {"c", 0}});
  m.erase(m.find("b"));
  CHECK(items(m) == std::vector<std::pair<std::string, uint64_t>>{{"c", 0}});
}

TEST_CASE("counter map: add sums the union of names, in order") {
  CounterMap a{{"x", 1}, {"z", 3}};
  const CounterMap b{{"w", 10}, {"x", 20}, {"y", 30}};
  a.add(b);
  CHECK(items(a) ==
        std::vector<std::pair<std::string, uint64_t>>{{"w", 10}, {"x", 21}, {"y", 30}, {"z", 3}});
  CounterMap empty;
  empty.add(b);
  CHECK(empty == b);
  a.add(CounterMap{});
  CHECK(a.size() == 4);
  // A map differs from one with another count or another name.
  CHECK(CounterMap{{"x", 1}} != CounterMap{{"x", 2}});
  CHECK(CounterMap{{"x", 1}} != CounterMap{{"y", 1}});
  CHECK(CounterMap{{"x", 1}} != CounterMap{{"x", 1}, {"y", 0}});
}

TEST_CASE("counter map: a name is stored once for every map") {
  const CounterMap a{{"bytes.llc.write", 1}};
  const CounterMap b{{"bytes.llc.write", 2}};
  CHECK(&a.begin()->first == &b.begin()->first);
  CHECK(&intern_counter_name("bytes.llc.write") == &a.begin()->first);
}

TEST_CASE("counter map: copies share their counters until one of them changes") {
  CounterMap a{{"x", 1}, {"y", 2}};
  CounterMap b = a;
  CHECK(b.shares_with(a));
  b["x"] += 10;  // b gets its own copy; a keeps its counts
  CHECK_FALSE(b.shares_with(a));
  CHECK(a.at("x") == 1);
  CHECK(b.at("x") == 11);

  CounterMap c = a;
  for (auto&& [k, v] : c) v *= 100;  // writing through iteration: c's own copy
  CHECK(a == CounterMap{{"x", 1}, {"y", 2}});
  CHECK(c == CounterMap{{"x", 100}, {"y", 200}});

  CounterMap d = a;
  const CounterMap& view = d;
  d.erase(view.find("x"));  // an iterator of the shared copy, erased from d's own
  CHECK(d == CounterMap{{"y", 2}});
  CHECK(a == CounterMap{{"x", 1}, {"y", 2}});

  CounterMap e;
  e.add(a);  // into an empty map: shared
  CHECK(e.shares_with(a));
  e.add(a);  // then summed into a map of its own
  CHECK_FALSE(e.shares_with(a));
  CHECK(e == CounterMap{{"x", 2}, {"y", 4}});
  CHECK(a == CounterMap{{"x", 1}, {"y", 2}});

  CounterMap f = a;
  f.erase("nothing");  // no change: still shared
  CHECK(f.shares_with(a));
  f.clear();
  CHECK(f.empty());
  CHECK(a.size() == 2);
}
