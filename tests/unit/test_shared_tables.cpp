// The shared region tables: what the runtime maps is what the launcher reads
// back after the process is gone, and the reader refuses a damaged or hostile
// file with one line naming the file and the field.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/fake/fake_backend.h"
#include "common/error.h"
#include "profile/shared_tables_reader.h"
#include "rprof/rprof.h"
#include "runtime/clock.h"
#include "runtime/region_table.h"
#include "runtime/shared_tables.h"
#include "runtime/thread_state.h"

using namespace rprof::runtime;
namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// One process has one mapping: opened once, filled with st_a x3,
// st_a/st_b x2, st_open left open; returns the file.
const std::string& tables_file() {
  static std::string file;
  if (!file.empty()) return file;
  init_clock("monotonic");
  const std::string dir = std::string(RPROF_TEST_BIN_DIR) + "/st-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  static const char* names[] = {"fake_a", "fake_b"};
  TablesInfo info{};
  info.host = "testhost";
  info.backend = "fake";
  info.counter_names = names;
  info.num_counters = 2;
  info.rank = -1;
  info.world_size = -1;
  info.start_ticks = now_ticks();
  REQUIRE(tables_open(dir.c_str(), info));
  static rprof::FakeBackend backend{1};
  REQUIRE(backend.open_thread());
  auto* shared = static_cast<ThreadShared*>(
      tables_alloc(RecordType::kThread, 0, 0, sizeof(ThreadShared)));
  REQUIRE(shared != nullptr);
  static ThreadState t{&backend, 2, 0, 77, shared};
  const uint32_t a = intern_region("st_a"), b = intern_region("st_b"),
                 op = intern_region("st_open");
  for (int i = 0; i < 3; ++i) {
    REQUIRE(t.begin(a) == RPROF_OK);
    if (i < 2) {
      REQUIRE(t.begin(b) == RPROF_OK);
      REQUIRE(t.end(b) == RPROF_OK);
    }
    REQUIRE(t.end(a) == RPROF_OK);
  }
  REQUIRE(t.begin(op) == RPROF_OK);
  t.end(b);  // a mismatched end: recorded, ignored
  file = dir + "/rprof-tables." + std::to_string(getpid()) + ".0";
  REQUIRE(fs::exists(file));
  return file;
}

// Offset of the first record of this type (its header).
size_t find_record(const std::string& bytes, RecordType type) {
  size_t off = (sizeof(TablesHeader) + kRecordAlign - 1) / kRecordAlign * kRecordAlign;
  while (off + sizeof(RecordHeader) <= bytes.size()) {
    RecordHeader h;
    std::memcpy(&h, bytes.data() + off, sizeof(h));
    if (h.type == static_cast<uint32_t>(type)) return off;
    off += record_span(h.size);
  }
  FAIL("no record of that type");
  return 0;
}

// Writes a damaged copy and returns the reader's error.
std::string error_of(std::string bytes) {
  const std::string copy = tables_file() + ".damaged";
  std::ofstream(copy, std::ios::binary) << bytes;
  try {
    rprof::read_shared_tables(copy, monotonic_ns());
  } catch (const rprof::Error& e) {
    return e.what();
  }
  return "(no error)";
}

template <class T>
void put(std::string& bytes, size_t off, T v) {
  std::memcpy(bytes.data() + off, &v, sizeof(T));
}

}  // namespace

TEST_CASE("shared tables: the reader gets back exactly what the runtime completed") {
  const rprof::TablesImage img = rprof::read_shared_tables(tables_file(), monotonic_ns());
  const rprof::RawProfile& p = img.raw;
  CHECK(p.host == "testhost");
  CHECK(p.pid == getpid());
  CHECK(p.backend == "fake");
  CHECK(p.counters == std::vector<std::string>{"fake_a", "fake_b"});
  CHECK(img.raw_state == RawState::kNone);
  REQUIRE(p.threads.size() == 1);
  CHECK(p.threads[0].tid == 77);
  std::map<std::string, uint64_t> calls;
  for (const auto& n : p.threads[0].nodes) calls[p.region_names.at(n.region)] += n.calls;
  CHECK(calls["st_a"] == 3);
  CHECK(calls["st_b"] == 2);
  CHECK(calls["st_open"] == 0);
  REQUIRE(img.open.size() == 1);
  CHECK(img.open[0].name == "st_open");
  REQUIRE(p.threads[0].errors.size() == 1);
  CHECK(p.threads[0].errors[0].kind == "mismatched_end");
  CHECK(p.threads[0].errors[0].count == 1);
  // The fake backend's counter (step 1 per read) came through on st_b.
  for (const auto& n : p.threads[0].nodes) {
    if (p.region_names.at(n.region) == "st_b") {
      CHECK(n.incl.at(0) == 2);
      CHECK(n.incl.at(1) == 4);
    }
  }
}

TEST_CASE("shared tables: damaged or hostile files are refused with the file and the field") {
  const std::string good = read_all(tables_file());
  const std::string name = tables_file() + ".damaged: shared region tables: ";
  CHECK(error_of(good.substr(0, 100)) == name + "shorter than its header");
  std::string bad = good;
  bad[0] = 'X';
  CHECK(error_of(bad) == name + "bad magic (not written completely, or a foreign file)");
  bad = good;
  put<uint32_t>(bad, offsetof(TablesHeader, version), 99);
  CHECK(error_of(bad) == name + "version 99 is not supported (this rprof reads " + std::to_string(kTablesVersion) + ")");
  bad = good;
  put<uint32_t>(bad, offsetof(TablesHeader, node_size), 1);
  CHECK(error_of(bad) == name + "layout sizes differ from this rprof's (a runtime from another build)");
  bad = good;
  put<int32_t>(bad, offsetof(TablesHeader, world_size), 50000000);
  CHECK(error_of(bad) == name + "pid, rank or world size out of range");
  bad = good;
  put<uint32_t>(bad, offsetof(TablesHeader, raw_state), 7);
  CHECK(error_of(bad) == name + "raw_state out of range");
  bad = good;
  put<uint64_t>(bad, offsetof(TablesHeader, used), uint64_t{1} << 40);
  CHECK(error_of(bad) == name + "used size out of range");
  bad = good;
  const size_t chunk = find_record(good, RecordType::kChunk);
  put<uint64_t>(bad, chunk + offsetof(RecordHeader, size), uint64_t{1} << 50);
  CHECK(error_of(bad).find("runs past the end") != std::string::npos);
  bad = good;
  put<int32_t>(bad, chunk + sizeof(RecordHeader) + offsetof(Node, parent), 5);
  CHECK(error_of(bad) == name + "node parent out of range");
  bad = good;
  const size_t thread = find_record(good, RecordType::kThread) + sizeof(RecordHeader);
  put<int>(bad, thread + offsetof(ThreadShared, depth), 100000);
  CHECK(error_of(bad) == name + "thread depth out of range");
  bad = good;
  put<int32_t>(bad, thread + offsetof(ThreadShared, nodes), -1);
  CHECK(error_of(bad) == name + "thread node count out of range");
  bad = good;
  const size_t rec = find_record(good, RecordType::kName);
  put<uint32_t>(bad, rec + offsetof(RecordHeader, a), 0);
  CHECK(error_of(bad) == name + "region name record out of range (id 0)");
  bad = good;
  put<uint32_t>(bad, rec + offsetof(RecordHeader, type), 9);
  CHECK(error_of(bad) == name + "unknown record type 9");
  bad = good;
  put<uint32_t>(bad, thread + offsetof(ThreadShared, role), 7);
  CHECK(error_of(bad) == name + "thread role out of range");
  CHECK(error_of(good) == "(no error)");
}

TEST_CASE("shared tables: the file grows in segments as needed and a released thread is skipped") {
  const std::string& file = tables_file();
  static rprof::FakeBackend backend{1};
  // A thread of 20,000 paths: 313 node chunks, several segments.
  auto* shared = static_cast<ThreadShared*>(
      tables_alloc(RecordType::kThread, 1, 0, sizeof(ThreadShared)));
  REQUIRE(shared != nullptr);
  static ThreadState big{&backend, 2, 1, 78, shared};
  const uint32_t top = intern_region("st_top");
  REQUIRE(big.begin(top) == RPROF_OK);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t id = intern_region(("st_p" + std::to_string(i % 5000)).c_str());
    REQUIRE(big.begin(id) == RPROF_OK);
    if (i % 5000 == 4999) {
      REQUIRE(big.end(id) == RPROF_OK);
      continue;
    }
    REQUIRE(big.end(id) == RPROF_OK);
    REQUIRE(big.begin(id) == RPROF_OK);  // a second call of the same path
    REQUIRE(big.end(id) == RPROF_OK);
  }
  REQUIRE(big.end(top) == RPROF_OK);
  // A third thread, released: what it held belongs to no thread.
  auto* gone_shared = static_cast<ThreadShared*>(
      tables_alloc(RecordType::kThread, 2, 0, sizeof(ThreadShared)));
  REQUIRE(gone_shared != nullptr);
  static ThreadState gone{&backend, 2, 2, 79, gone_shared};
  REQUIRE(gone.begin(top) == RPROF_OK);
  REQUIRE(gone.end(top) == RPROF_OK);
  gone.release();
  CHECK(tables_file_bytes() > (size_t{2} << 20));
  CHECK(tables_header()->incomplete.load() == 0);
  const rprof::TablesImage img = rprof::read_shared_tables(file, monotonic_ns());
  CHECK_FALSE(img.incomplete);
  const rprof::RawThread* t = nullptr;
  for (const auto& th : img.raw.threads) {
    CHECK(th.tid != 79);
    if (th.tid == 78) t = &th;
  }
  REQUIRE(t != nullptr);
  // st_top + 5,000 distinct paths under it, each called 4 times but the
  // last of every 5,000 (called once per round, 4 rounds).
  REQUIRE(t->nodes.size() == 5001);
  uint64_t calls = 0;
  for (const auto& n : t->nodes) calls += n.calls;
  CHECK(calls == 1 + 4 * (4999 * 2 + 1));
  // The file holds pad records where a segment ended.
  const std::string bytes = read_all(file);
  CHECK(find_record(bytes, RecordType::kPad) > 0);
}
