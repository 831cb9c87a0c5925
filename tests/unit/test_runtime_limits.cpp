// The runtime's limits, reported exactly: the node limit (calls refused are
// counted, their ends match), names beyond the name limit and the reserved
// "[program]" refused, large declared work kept, an ended thread folded
// into the exited threads' state and its state reused, and thousands of
// sibling regions each kept on one node whatever order they come in.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <utility>

#include "common/error.h"
#include "profile/raw_profile.h"
#include "rprof/rprof.h"
#include "runtime/clock.h"
#include "runtime/raw_writer.h"
#include "runtime/region_table.h"
#include "runtime/thread_state.h"

using namespace rprof::runtime;
namespace fs = std::filesystem;

namespace {

uint32_t id_of(const std::string& name) { return intern_region(name.c_str()); }

// Writes t's raw profile into a fresh directory; returns the file.
std::string write_raw(const ThreadState& t, const std::string& tag) {
  const std::string dir = std::string(RPROF_TEST_BIN_DIR) + "/rl-" + tag + "-" +
                          std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  RawRunInfo info{};
  info.dir = dir.c_str();
  info.host = "testhost";
  info.backend = "time";
  info.counter_names = nullptr;
  info.num_counters = 0;
  info.pid = 42;
  info.rank = -1;
  info.world_size = -1;
  info.reason = "exit";
  info.end_ticks = now_ticks();
  REQUIRE(write_raw_profile(info, &t) == 0);
  return dir + "/rprof-raw.testhost.42.json";
}

uint64_t errors_of(const ThreadState& t, ErrorKind kind) {
  uint64_t n = 0;
  for (int i = 0; i < t.error_count(); ++i) {
    if (t.error(i).kind == kind) n += get(t.error(i).count);
  }
  return n;
}

}  // namespace

TEST_CASE("the node limit: refused calls counted exactly, their ends match") {
  init_clock("monotonic");
  ThreadState t{nullptr, 0, 0, 1};
  // 2,700 x 100 correctly nested paths (each called once): 272,700 nodes
  // wanted, 262,144 held.
  const int outer = 2700, inner = 100;
  std::vector<uint32_t> in_ids;
  for (int j = 0; j < inner; ++j) in_ids.push_back(id_of("rl_i" + std::to_string(j)));
  int refused = 0;
  for (int i = 0; i < outer; ++i) {
    const uint32_t o = id_of("rl_o" + std::to_string(i));
    refused += t.begin(o) == RPROF_ERR_CAPACITY;
    for (uint32_t in : in_ids) {
      refused += t.begin(in) == RPROF_ERR_CAPACITY;
      t.end(in);
    }
    t.end(o);
  }
  const int64_t held = int64_t{kMaxChunks} * kNodesPerChunk;
  CHECK(t.node_count() == held);
  CHECK(refused == outer * (inner + 1) - held);
  CHECK(errors_of(t, ErrorKind::kTooManyPaths) == static_cast<uint64_t>(refused));
  CHECK(t.error_count() == 1);  // no mismatched or unmatched ends
  CHECK(t.depth() == 0);
  // Declared work inside a refused region is dropped with it, not misplaced.
  REQUIRE(t.begin(id_of("rl_o2699")) == RPROF_ERR_CAPACITY);
  CHECK(t.work(5, 5) == RPROF_ERR_CAPACITY);
  CHECK(t.end(id_of("rl_o2699")) == RPROF_ERR_CAPACITY);
  CHECK(t.depth() == 0);
}

TEST_CASE("names beyond the limit and the reserved name are refused, never cut") {
  InternResult why = InternResult::kOk;
  const std::string longest(kMaxNameBytes, 'k');
  CHECK(intern_region(longest.c_str(), &why) != 0);
  CHECK(why == InternResult::kOk);
  const std::string too_long(kMaxNameBytes + 1, 'k');
  CHECK(intern_region(too_long.c_str(), &why) == 0);
  CHECK(why == InternResult::kTooLong);
  CHECK(find_region(too_long.c_str()) == 0);
  // Two long names that differ late stay two regions.
  std::string a(1100, 'n'), b(1100, 'n');
  b[1050] = 'x';
  const uint32_t ia = intern_region(a.c_str()), ib = intern_region(b.c_str());
  CHECK(ia != 0);
  CHECK(ib != 0);
  CHECK(ia != ib);
  CHECK(std::string(region_name(ib)) == b);
  CHECK(intern_region("[program]", &why) == 0);
  CHECK(why == InternResult::kReserved);
  CHECK(intern_region("[program]x") != 0);
}

TEST_CASE("declared work above 2^64 in total is written and read back") {
  init_clock("monotonic");
  ThreadState t{nullptr, 0, 0, 1};
  const uint32_t w = id_of("rl_work");
  REQUIRE(t.begin(w) == RPROF_OK);
  for (int i = 0; i < 20; ++i) REQUIRE(t.work(1e18, 1e18) == RPROF_OK);
  CHECK(t.work(2e18, 0) == RPROF_ERR_VALUE);  // one call above 1e18: refused
  REQUIRE(t.end(w) == RPROF_OK);
  const rprof::RawProfile p = rprof::read_raw_profile(write_raw(t, "work"));
  REQUIRE(p.threads.size() == 1);
  REQUIRE(p.threads[0].nodes.size() == 1);
  CHECK(p.threads[0].nodes[0].work_flops == 2e19);
  CHECK(p.threads[0].nodes[0].work_bytes == 2e19);
  CHECK(p.threads[0].nodes[0].work_calls == 20);
}

TEST_CASE("a raw profile with exclusive time above inclusive is refused") {
  init_clock("monotonic");
  ThreadState t{nullptr, 0, 0, 1};
  const uint32_t r = id_of("rl_excl");
  REQUIRE(t.begin(r) == RPROF_OK);
  REQUIRE(t.end(r) == RPROF_OK);
  const std::string file = write_raw(t, "excl");
  std::string text;
  {
    std::ifstream in(file);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text = std::regex_replace(text, std::regex("\"excl_ns\":[0-9]+"), "\"excl_ns\":99999999999999");
  { std::ofstream(file) << text; }
  try {
    rprof::read_raw_profile(file);
    FAIL("accepted");
  } catch (const rprof::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("exclusive time 99999999999999 ns above the inclusive"));
  }
}

TEST_CASE("an ended thread is folded path by path and its state reused") {
  init_clock("monotonic");
  ThreadState a{nullptr, 0, 3, 101}, b{nullptr, 0, 4, 102};
  ThreadState folded{nullptr, 0, 5, 0};
  folded.revive(0, ThreadRole::kFolded);
  const uint32_t x = id_of("rl_fx"), y = id_of("rl_fy"), z = id_of("rl_fz");
  for (int i = 0; i < 3; ++i) {
    a.begin(x);
    a.begin(y);
    a.work(10, 20);
    a.end(y);
    a.end(x);
  }
  b.begin(x);
  b.begin(y);
  usleep(2000);  // b's x/y is the longer
  b.end(y);
  b.end(x);
  b.begin(z);
  b.end(y);  // a mismatched end: its error is folded too
  b.end(z);
  a.fold_into(folded);
  b.fold_into(folded);
  REQUIRE(folded.node_count() == 3);  // x, x/y, z
  const ThreadState& cf = folded;
  const Node& fx = cf.node(0);
  const Node& fy = cf.node(1);
  CHECK(fx.region == x);
  CHECK(fy.region == y);
  CHECK(fy.parent == 0);
  CHECK(get(fx.calls) == 4);
  CHECK(get(fy.calls) == 4);
  CHECK(fy.work_flops.load() == 30);
  CHECK(fy.work_bytes.load() == 60);
  const uint64_t longest = std::max(get(std::as_const(a).node(1).incl_ticks),
                                  get(std::as_const(b).node(1).incl_ticks));
  CHECK(get(fy.incl_ticks) == longest);
  CHECK(get(fy.excl_ticks) <= get(fy.incl_ticks));
  CHECK(get(cf.node(2).calls) == 1);
  CHECK(errors_of(folded, ErrorKind::kMismatchedEnd) == 1);
  CHECK(folded.role() == ThreadRole::kFolded);
  CHECK(folded.exited());

  a.release();
  CHECK(a.vacant());
  CHECK(a.node_count() == 0);
  CHECK(a.claim());
  CHECK_FALSE(a.claim());
  a.revive(103, ThreadRole::kLive);
  CHECK(a.tid() == 103);
  CHECK(a.index() == 3);
  CHECK_FALSE(a.vacant());
  REQUIRE(a.begin(z) == RPROF_OK);
  REQUIRE(a.end(z) == RPROF_OK);
  REQUIRE(a.node_count() == 1);
  const ThreadState& ca = a;
  CHECK(get(ca.node(0).calls) == 1);
  CHECK(ca.node(0).parent == -1);
  CHECK(ca.node(0).first_child.load() == -1);
}

namespace {

// Every node's (parent, region) once: a lookup that missed a node would add
// a second node for its path.
void check_one_node_per_path(const ThreadState& t) {
  std::set<std::pair<int32_t, uint32_t>> seen;
  for (int32_t i = 0; i < t.node_count(); ++i) {
    CHECK(seen.emplace(t.node(i).parent, t.node(i).region).second);
  }
}

}  // namespace

TEST_CASE("thousands of siblings: each path one node, found again in any order") {
  init_clock("monotonic");
  ThreadState t{nullptr, 0, 6, 103};
  const int n = 4000;
  std::vector<uint32_t> ids;
  for (int i = 0; i < n; ++i) ids.push_back(id_of("rl_s" + std::to_string(i)));
  const uint32_t parent = id_of("rl_sp");
  // Under one parent, at the root, and each under the root node of another
  // (the same regions under n different parents), twice, the second time in
  // another order.
  auto run = [&](int stride) {
    REQUIRE(t.begin(parent) == RPROF_OK);
    for (int i = 0; i < n; ++i) {
      const uint32_t id = ids[(static_cast<int64_t>(i) * stride) % n];
      REQUIRE(t.begin(id) == RPROF_OK);
      REQUIRE(t.end(id) == RPROF_OK);
    }
    REQUIRE(t.end(parent) == RPROF_OK);
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>((static_cast<int64_t>(i) * stride) % n);
      REQUIRE(t.begin(ids[k]) == RPROF_OK);
      REQUIRE(t.begin(ids[(k + 1) % n]) == RPROF_OK);
      REQUIRE(t.end(ids[(k + 1) % n]) == RPROF_OK);
      REQUIRE(t.end(ids[k]) == RPROF_OK);
    }
  };
  run(1);
  REQUIRE(t.node_count() == 1 + 3 * n);
  run(2999);  // coprime with 4000: every sibling, in another order
  REQUIRE(t.node_count() == 1 + 3 * n);
  CHECK(t.error_count() == 0);
  check_one_node_per_path(t);
  const ThreadState& ct = t;
  for (int32_t i = 0; i < ct.node_count(); ++i) {
    const Node& node = ct.node(i);
    CHECK(get(node.calls) == 2);
    if (node.region == parent) continue;
    // Under the parent, at the root, or under the root node of the previous id.
    const int32_t p = node.parent;
    CHECK((p == -1 || ct.node(p).region == parent ||
           (ct.node(p).parent == -1 && ct.node(p).region != node.region)));
  }

  // Folded twice: one node per path in the exited threads' state too.
  ThreadState folded{nullptr, 0, 7, 0};
  folded.revive(0, ThreadRole::kFolded);
  t.fold_into(folded);
  t.fold_into(folded);
  REQUIRE(folded.node_count() == t.node_count());
  check_one_node_per_path(folded);
  for (int32_t i = 0; i < folded.node_count(); ++i) {
    CHECK(get(std::as_const(folded).node(i).calls) == 4);
  }

  // Released and reused: the index forgets the old nodes with them.
  t.release();
  REQUIRE(t.claim());
  t.revive(104, ThreadRole::kLive);
  REQUIRE(t.node_count() == 0);
  REQUIRE(t.begin(ids[5]) == RPROF_OK);
  REQUIRE(t.begin(parent) == RPROF_OK);
  REQUIRE(t.end(parent) == RPROF_OK);
  REQUIRE(t.end(ids[5]) == RPROF_OK);
  run(1);
  CHECK(t.node_count() == 2 + 3 * n);
  check_one_node_per_path(t);
  CHECK(ct.node(0).region == ids[5]);
  CHECK(ct.node(1).parent == 0);
  CHECK(get(ct.node(1).calls) == 1);
}
