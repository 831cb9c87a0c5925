// The runtime's region bookkeeping, driven directly with scripted counters:
// every fake read advances counter a by 1 and b by 2, so a region's counts
// are exactly the number of reads it spans.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "backends/fake/fake_backend.h"
#include "profile/raw_profile.h"
#include "rprof/rprof.h"
#include "runtime/clock.h"
#include "runtime/raw_writer.h"
#include "runtime/region_table.h"
#include "runtime/thread_state.h"

using namespace rprof::runtime;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  rprof::FakeBackend backend{1};
  ThreadState t{&backend, 2, 0, 1};

  // The run info of a raw profile of host "testhost", pid 42, written to dir.
  RawRunInfo run_info(const std::string& dir) {
    static const char* names[] = {"fake_a", "fake_b"};
    RawRunInfo info{};
    info.dir = dir.c_str();
    info.host = "testhost";
    info.backend = "fake";
    info.counter_names = names;
    info.num_counters = 2;
    info.pid = 42;
    info.rank = -1;
    info.world_size = -1;
    info.reason = "explicit";
    info.end_ticks = now_ticks();
    return info;
  }

  // Writes the raw profile and parses it back (the real round trip).
  rprof::RawProfile snapshot() {
    const std::string dir = std::string(RPROF_TEST_BIN_DIR) + "/rt-" +
                            std::to_string(getpid()) + "-" + std::to_string(n_++);
    fs::create_directories(dir);
    REQUIRE(write_raw_profile(run_info(dir), &t) == 0);
    auto raw = rprof::read_raw_profile(dir + "/rprof-raw.testhost.42.json");
    fs::remove_all(dir);
    return raw;
  }
  const rprof::RawNode& node(const rprof::RawProfile& p, const std::string& name) {
    for (const auto& n : p.threads.at(0).nodes) {
      if (p.region_names.at(n.region) == name) return n;
    }
    FAIL("no node " << name);
    throw;
  }
  int n_ = 0;
};

}  // namespace

TEST_CASE_METHOD(Fixture, "nesting: inclusive and exclusive counters are exact") {
  const uint32_t a = intern_region("rt_outer"), b = intern_region("rt_inner");
  REQUIRE(a != b);
  CHECK(intern_region("rt_outer") == a);  // interning is by content
  REQUIRE(t.begin(a) == RPROF_OK);  // read 1
  REQUIRE(t.begin(b) == RPROF_OK);  // read 2
  REQUIRE(t.end(b) == RPROF_OK);    // read 3
  REQUIRE(t.begin(b) == RPROF_OK);  // read 4
  REQUIRE(t.end(b) == RPROF_OK);    // read 5
  REQUIRE(t.end(a) == RPROF_OK);    // read 6
  auto p = snapshot();
  const auto& outer = node(p, "rt_outer");
  const auto& inner = node(p, "rt_inner");
  CHECK(outer.calls == 1);
  CHECK(inner.calls == 2);
  CHECK(inner.parent == 0);
  CHECK(outer.incl == std::vector<uint64_t>{5, 10});  // reads 1..6
  CHECK(inner.incl == std::vector<uint64_t>{2, 4});   // two spans of one read
  CHECK(outer.excl == std::vector<uint64_t>{3, 6});   // 5 - 2
  CHECK(inner.excl == inner.incl);
  CHECK(outer.incl_ns >= inner.incl_ns);
  CHECK(outer.excl_ns == outer.incl_ns - inner.incl_ns);
}

TEST_CASE_METHOD(Fixture, "recursion counts on one node and never twice") {
  const uint32_t r = intern_region("rt_rec"), c = intern_region("rt_child");
  t.begin(r);  // 1
  t.begin(r);  // 2
  t.begin(c);  // 3
  t.end(c);    // 4
  t.begin(r);  // 5
  t.end(r);    // 6
  t.end(r);    // 7
  t.end(r);    // 8
  auto p = snapshot();
  REQUIRE(p.threads[0].nodes.size() == 2);  // rt_rec and rt_rec/rt_child
  const auto& rec = node(p, "rt_rec");
  CHECK(rec.calls == 3);
  CHECK(rec.incl == std::vector<uint64_t>{7, 14});  // outermost span only
  CHECK(rec.excl == std::vector<uint64_t>{6, 12});  // all but the child's 1
  CHECK(node(p, "rt_child").incl == std::vector<uint64_t>{1, 2});
}

TEST_CASE_METHOD(Fixture, "a mismatched end is recorded with both names and ignored") {
  const uint32_t a = intern_region("rt_a"), b = intern_region("rt_b");
  t.begin(a);
  CHECK(t.end(b) == RPROF_ERR_NESTING);
  CHECK(t.end(b) == RPROF_ERR_NESTING);
  CHECK(t.end(a) == RPROF_OK);
  CHECK(t.end(a) == RPROF_ERR_NESTING);  // nothing open any more
  auto p = snapshot();
  CHECK(node(p, "rt_a").calls == 1);
  REQUIRE(p.threads[0].errors.size() == 2);
  CHECK(p.threads[0].errors[0].kind == "mismatched_end");
  CHECK(p.region_names.at(p.threads[0].errors[0].expected) == "rt_a");
  CHECK(p.region_names.at(p.threads[0].errors[0].got) == "rt_b");
  CHECK(p.threads[0].errors[0].count == 2);  // deduplicated, counted
  CHECK(p.threads[0].errors[1].kind == "end_without_begin");
}

TEST_CASE_METHOD(Fixture, "open regions at a flush are incomplete, with partial time") {
  const uint32_t a = intern_region("rt_open");
  t.begin(a);
  usleep(2000);
  auto p = snapshot();
  const auto& n = node(p, "rt_open");
  CHECK(n.calls == 0);
  CHECK(n.open_calls == 1);
  CHECK(n.open_ns >= 2000000);
  t.end(a);
}

TEST_CASE_METHOD(Fixture, "depth limit: deeper begins are refused, not corrupting") {
  const uint32_t a = intern_region("rt_deep");
  const uint32_t b = intern_region("rt_deep2");
  for (int i = 0; i < kMaxDepth; ++i) REQUIRE(t.begin(i % 2 ? a : b) == RPROF_OK);
  CHECK(t.begin(a) == RPROF_ERR_DEPTH);
  CHECK(t.begin(b) == RPROF_ERR_DEPTH);
  // The ends of the refused begins come first and are absorbed: the stack
  // below stays whole, and no end_without_begin follows at the bottom.
  CHECK(t.end(b) == RPROF_ERR_DEPTH);
  CHECK(t.end(a) == RPROF_ERR_DEPTH);
  for (int i = kMaxDepth - 1; i >= 0; --i) REQUIRE(t.end(i % 2 ? a : b) == RPROF_OK);
  CHECK(t.depth() == 0);
  REQUIRE(t.error_count() == 2);  // too_deep a, too_deep b; nothing else
  CHECK(t.error(0).kind == ErrorKind::kTooDeep);
  CHECK(t.error(1).kind == ErrorKind::kTooDeep);
}

TEST_CASE_METHOD(Fixture, "rprof_work: NaN, negative and absurd values refused, never 0") {
  const uint32_t w = intern_region("rt_work_bad");
  REQUIRE(t.begin(w) == RPROF_OK);
  CHECK(t.work(std::nan(""), 1) == RPROF_ERR_VALUE);
  CHECK(t.work(1, -1) == RPROF_ERR_VALUE);
  CHECK(t.work(1e30, 1) == RPROF_ERR_VALUE);
  CHECK(t.work(kMaxWorkPerCall, 0) == RPROF_OK);
  REQUIRE(t.end(w) == RPROF_OK);
  REQUIRE(t.error_count() == 1);
  CHECK(t.error(0).kind == ErrorKind::kBadWork);
  CHECK(t.error(0).got == w);
  CHECK(get(t.error(0).count) == 3);
  const ThreadState& ct = t;
  CHECK(get(ct.node(0).work_calls) == 1);
}

TEST_CASE_METHOD(Fixture, "a marker call inside another on its thread is refused, the frame intact") {
  const uint32_t r = intern_region("rt_reentrant");
  REQUIRE(t.enter_call());
  REQUIRE(t.begin(r) == RPROF_OK);
  // As a signal handler would find it: inside a marker call.
  CHECK_FALSE(t.enter_call());
  t.leave_call();
  REQUIRE(t.enter_call());
  REQUIRE(t.end(r) == RPROF_OK);
  t.leave_call();
  CHECK(t.depth() == 0);
  REQUIRE(t.error_count() == 1);
  CHECK(t.error(0).kind == ErrorKind::kInSignalHandler);
}

TEST_CASE_METHOD(Fixture, "declared work accumulates on the innermost region") {
  const uint32_t a = intern_region("rt_work");
  CHECK(t.work(1, 1) == RPROF_ERR_NESTING);
  t.begin(a);
  t.work(2e6, 24e6);
  t.end(a);
  t.begin(a);
  t.work(2e6, 24e6);
  t.end(a);
  auto p = snapshot();
  const auto& n = node(p, "rt_work");
  CHECK(n.work_calls == 2);
  CHECK(n.work_flops == 4e6);
  CHECK(n.work_bytes == 48e6);
}

TEST_CASE_METHOD(Fixture, "names are escaped into valid JSON and come back") {
  const std::vector<std::string> names = {"q\"uote", "back\\slash", "new\nline",
                                          "ctl\x01\x1f", "caf\xc3\xa9", "emoji \xf0\x9f\x9a\x80"};
  for (const auto& n : names) {
    const uint32_t id = intern_region(n.c_str());
    t.begin(id);
    t.end(id);
  }
  const uint32_t bad = intern_region("bad\xff\xc3(end");  // invalid UTF-8
  t.begin(bad);
  t.end(bad);
  auto p = snapshot();
  for (const auto& n : names) CHECK(node(p, n).calls == 1);
  CHECK(node(p, "bad\xEF\xBF\xBD\xEF\xBF\xBD(end").calls == 1);
}

TEST_CASE_METHOD(Fixture, "a link planted at the temporary name is never written through") {
  const std::string dir = std::string(RPROF_TEST_BIN_DIR) + "/rt-link-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string victim = dir + "/victim.txt";
  { std::ofstream(victim) << "precious"; }
  fs::create_symlink(victim, dir + "/rprof-raw.testhost.42.json.tmp");
  const uint32_t id = intern_region("rt_link");
  REQUIRE(t.begin(id) == RPROF_OK);
  REQUIRE(t.end(id) == RPROF_OK);
  REQUIRE(write_raw_profile(run_info(dir), &t) == 0);
  std::string text;
  { std::ifstream in(victim); std::getline(in, text); }
  CHECK(text == "precious");  // the link's target is untouched
  CHECK_FALSE(fs::exists(dir + "/rprof-raw.testhost.42.json.tmp"));
  CHECK(rprof::read_raw_profile(dir + "/rprof-raw.testhost.42.json").threads.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE_METHOD(Fixture, "a borrowed path counts on this thread's nodes, adds no call, closes innermost") {
  const uint32_t a = intern_region("rt_team"), b = intern_region("rt_team_inner"),
                 c = intern_region("rt_own");
  const uint32_t path[] = {a, b};
  REQUIRE(t.borrow(path, 2) == 2);  // read 1
  uint32_t open[4] = {};
  REQUIRE(t.open_path(open, 4) == 2);
  CHECK(open[0] == a);
  CHECK(open[1] == b);
  REQUIRE(t.begin(c) == RPROF_OK);  // read 2: a marker inside nests under the path
  CHECK(t.unborrow(2) == 0);        // not innermost: nothing closed, nothing read
  REQUIRE(t.end(c) == RPROF_OK);    // read 3
  CHECK(t.end(b) == RPROF_ERR_NESTING);  // read 4: not the program's to end
  CHECK(t.unborrow(2) == 2);             // read 5
  CHECK(t.depth() == 0);
  auto p = snapshot();
  const auto& na = node(p, "rt_team");
  const auto& nb = node(p, "rt_team_inner");
  const auto& nc = node(p, "rt_own");
  CHECK(na.calls == 0);
  CHECK(nb.calls == 0);
  CHECK(nc.calls == 1);
  CHECK(na.incl[0] == 4);  // reads 1..5
  CHECK(nb.incl[0] == 4);
  CHECK(nb.excl[0] == 3);
  CHECK(nc.incl[0] == 1);
  CHECK(nc.incl[1] == 2);
  CHECK(p.threads.at(0).nodes.at(nc.parent).region == nb.region);
}

TEST_CASE_METHOD(Fixture, "a borrowed path through a region open on the thread counts it once") {
  const uint32_t a = intern_region("rt_shared"), b = intern_region("rt_shared_inner");
  REQUIRE(t.begin(a) == RPROF_OK);  // read 1
  const uint32_t path[] = {a, b};
  REQUIRE(t.borrow(path, 2) == 2);  // read 2: a's node again, as recursion
  CHECK(t.unborrow(2) == 2);        // read 3
  REQUIRE(t.end(a) == RPROF_OK);    // read 4
  auto p = snapshot();
  CHECK(node(p, "rt_shared").incl[0] == 3);  // not 3 + 1
  CHECK(node(p, "rt_shared").calls == 1);
  CHECK(node(p, "rt_shared_inner").incl[0] == 1);
}
