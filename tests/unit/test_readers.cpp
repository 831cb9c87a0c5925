// The readers' caps and messages (issue 16): every hostile input is refused
// with one line naming the file, where (byte offset or field path) and the
// limit, before it is used.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "profile_dom.h"
#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/limits.h"
#include "machine/machine_file.h"
#include "profile/profile.h"
#include "profile/profile_json.h"
#include "profile/raw_profile.h"

using namespace rprof;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);  // one line
    return what;
  }
  return "no error";
}

std::string parse_error(const std::string& text, const JsonLimits& lim = JsonLimits()) {
  return error_of([&] { JsonReader("t.json", "rprof profile").parse(text, lim); });
}

std::string scratch(const std::string& name) {
  const fs::path d = fs::path("test_readers_scratch");
  fs::create_directories(d);
  const fs::path p = d / name;
  fs::remove_all(p);
  return p.string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A valid raw profile: one thread, nodes a > b (n nested levels when deep).
json raw_doc() {
  return json::parse(R"({"format":"rprof-raw","schema_version":)" +
                     std::to_string(kRawSchemaVersion) + R"(,
    "host":"h","pid":7,"parent_pid":1,"rank":-1,"world_size":-1,"backend":"time",
    "start_unix_s":0,"duration_ns":1000,"reason":"exit","signal":0,"counters":[],
    "regions":[{"id":1,"name":"a"},{"id":2,"name":"b"}],
    "threads":[{"index":0,"tid":7,"exited":false,
      "nodes":[{"id":0,"parent":-1,"region":1,"calls":1,"incl_ns":10,"excl_ns":5},
               {"id":1,"parent":0,"region":2,"calls":2,"incl_ns":5,"excl_ns":5}],
      "open":[],"errors":[]}]})");
}

std::string raw_error(const json& doc) {
  return error_of([&] { (void)parse_raw_profile(doc.dump(), "r.json"); });
}

}  // namespace

TEST_CASE("JSON syntax errors say the byte, line and column and what was expected") {
  CHECK(parse_error("{\n  \"a\": 1,\n  \"b\" 2\n}") ==
        "t.json: not a valid rprof profile: not JSON, syntax error at byte 18 (line 3, column 7): "
        "unexpected number literal; expected ':'");
  CHECK(parse_error("{\"a\": [1, 2") ==
        "t.json: not a valid rprof profile: not JSON (truncated?), it ends at byte 11 "
        "(line 1, column 12): unexpected end of input; expected ']'");
  CHECK_THAT(parse_error("\x7f" "ELF"),
             Catch::StartsWith("t.json: not a valid rprof profile: not JSON, syntax error at "
                               "byte 0 (line 1, column 1): invalid literal"));
  CHECK(parse_error("") == "t.json: not a valid rprof profile: the file is empty");
  CHECK_THAT(parse_error("{} x"), Catch::Contains("at byte 3 (line 1, column 4)") &&
                                      Catch::Contains("expected end of input"));
  // An unterminated long string is quoted by its end only: one short line.
  const std::string err = parse_error("[\"" + std::string(100000, 'y'));
  CHECK_THAT(err, Catch::Contains("not JSON (truncated?), it ends at byte 100002 (line 1, "
                                  "column 100003)") &&
                      Catch::Contains("last read: '..." + std::string(37, 'y') + "'"));
  CHECK(err.size() < 300);
}

TEST_CASE("JSON caps: nesting, string length, number of values") {
  // Deep nesting is refused at the limit, however deep the input goes.
  CHECK(parse_error(std::string(1000000, '[')) ==
        "t.json: not a valid rprof profile: arrays and objects nested deeper than 64 levels "
        "(the limit)");
  CHECK_NOTHROW(JsonReader("t.json", "x").parse(std::string(64, '[') + std::string(64, ']')));
  const std::string big = "[\"" + std::string(limits::kJsonStringBytes + 1, 'x') + "\"]";
  CHECK(parse_error(big) ==
        "t.json: not a valid rprof profile: a string of 1048577 bytes at byte 1 (line 1, "
        "column 2) is beyond the limit of 1048576 bytes");
  // Escaped quotes do not end a string; the length counts its bytes as written.
  JsonLimits short_strings;
  short_strings.string_bytes = 8;
  CHECK_NOTHROW(JsonReader("t.json", "x").parse(R"(["ab\\", "c\"d", "12345678"])", short_strings));
  CHECK(parse_error("{\"k\": \"12\\\"3456789\"}", short_strings) ==
        "t.json: not a valid rprof profile: a string of 11 bytes at byte 6 (line 1, column 7) "
        "is beyond the limit of 8 bytes");
  JsonLimits few;
  few.values = 10;
  CHECK(parse_error("[0,0,0,0,0,0,0,0,0,0,0,0]", few) ==
        "t.json: not a valid rprof profile: more than 10 JSON values (the limit)");
  CHECK_NOTHROW(JsonReader("t.json", "x").parse("[0,0,0,0,0,0,0,0,0]", few));
  // Far too many: refused by a count before the parser builds any.
  CHECK(parse_error("[" + std::string(1000, '0') + std::string(100, ',') + "]", few) ==
        "t.json: not a valid rprof profile: more than 10 JSON values (the limit)");
  // Commas inside strings inflate the count, within its slack of 2x.
  CHECK_NOTHROW(JsonReader("t.json", "x").parse("[\"" + std::string(15, ',') + "\"]", few));
}

TEST_CASE("type errors name the field path") {
  json doc = raw_doc();
  doc["regions"][1]["name"] = 5;
  CHECK(raw_error(doc) ==
        "r.json: not a valid rprof raw profile: regions[1].name: expected a string, got 5");
  doc = raw_doc();
  doc["threads"][0]["nodes"][1]["calls"] = "many";
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: threads[0].nodes[1].calls: "
                          "expected an integer, got a string");
  doc = raw_doc();
  doc["threads"][0]["nodes"][1]["calls"] = -5;
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: threads[0].nodes[1].calls: "
                          "-5 is out of range (0 to 18446744073709551615)");
  doc = raw_doc();
  doc["threads"][0]["nodes"][1].erase("parent");
  CHECK(raw_error(doc) ==
        "r.json: not a valid rprof raw profile: threads[0].nodes[1]: missing 'parent'");
  doc = raw_doc();
  doc["threads"][0]["nodes"][1]["parent"] = 1;
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: threads[0].nodes[1].parent: "
                          "1 is out of range (-1 to 0)");

  const Profile p = aggregate({parse_raw_profile(raw_doc().dump(), "r.json")}, RunInfo{});
  json pj = rprof::test::profile_dom(p);
  pj["regions"][1]["threads"]["time_s"][0] = "slow";
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: regions[1].threads.time_s[0]: expected a number, "
        "got a string");
  pj = rprof::test::profile_dom(p);
  pj["regions"][0]["time_s"] = -1.5;
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: regions[0].time_s: -1.5 is negative");
  pj = rprof::test::profile_dom(p);
  pj["regions"][0]["counters"] = {{"flops", -2}};
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: regions[0].counters.flops: -2 is out of range "
        "(0 to 18446744073709551615)");
}

TEST_CASE("numbers that are not finite are refused before any arithmetic") {
  const Profile p = aggregate({parse_raw_profile(raw_doc().dump(), "r.json")}, RunInfo{});
  std::string text = rprof::test::profile_dom(p).dump();
  const std::string key = "\"wall_time_s\":";
  const size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.replace(at + key.size(), text.find(',', at) - at - key.size(), "1e999");
  CHECK(error_of([&] {
          profile_from_json(JsonReader("p.json", "rprof profile").parse(text), "p.json");
        }) == "p.json: not a valid rprof profile: a number beyond any finite value at byte " +
                  std::to_string(at + key.size()) + " (line 1, column " +
                  std::to_string(at + key.size() + 1) + "): number overflow parsing '1e999'");
  // Built in memory (no JSON text can say inf), still refused.
  json pj = rprof::test::profile_dom(p);
  pj["run"]["wall_time_s"] = std::numeric_limits<double>::infinity();
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: run.wall_time_s: the number is not finite");
  pj = rprof::test::profile_dom(p);
  pj["regions"][0]["declared_work"] = {{"calls", 1}, {"flops", -1.0}, {"bytes", 8.0}};
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: regions[0].declared_work.flops: -1 is negative");
}

TEST_CASE("raw profile caps: world size, name length, nesting") {
  json doc = raw_doc();
  doc["world_size"] = 2147483646;
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: world_size: 2147483646 is out "
                          "of range (-1 to 1048576)");
  doc = raw_doc();
  doc["rank"] = 5000000;
  CHECK(raw_error(doc) ==
        "r.json: not a valid rprof raw profile: rank: 5000000 is out of range (-1 to 1048575)");
  doc = raw_doc();
  doc["regions"][0]["name"] = std::string(5000, 'x');
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: regions[0].name: 5000 bytes are "
                          "beyond the limit of 4096 bytes");
  // A chain of regions one inside the other, one deeper than the limit.
  doc = raw_doc();
  json& nodes = doc["threads"][0]["nodes"];
  nodes = json::array();
  for (size_t i = 0; i <= limits::kPathDepth; ++i) {
    nodes.push_back({{"id", i}, {"parent", static_cast<int64_t>(i) - 1}, {"region", 1},
                     {"calls", 1}, {"incl_ns", 1}, {"excl_ns", 1}});
  }
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: threads[0].nodes[4096]: regions "
                          "nested deeper than 4096 levels (the limit)");
  nodes.erase(nodes.size() - 1);
  CHECK_NOTHROW(parse_raw_profile(doc.dump(), "r.json"));
}

TEST_CASE("input files: devices, FIFOs, directories and size are refused before reading") {
  CHECK(error_of([] { read_input_file("/dev/zero", 1 << 20, "rprof profile"); }) ==
        "/dev/zero: is a device, not an rprof profile (rprof reads regular files only)");
  CHECK(error_of([] { load_profile("/dev/zero"); }) ==
        "/dev/zero: is a device, not an rprof profile (rprof reads regular files only)");
  const std::string fifo = scratch("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Never opened for reading (that would wait for a writer forever).
  CHECK(error_of([&] { load_profile(fifo); }) ==
        fifo + ": is a FIFO (named pipe), not an rprof profile (rprof reads regular files only)");
  const std::string dir = scratch("machine-dir");
  fs::create_directories(dir);
  CHECK(error_of([&] { load_machine_file(dir); }) ==
        dir + ": is a directory, not an rprof machine file (rprof reads regular files only)");
  const std::string big = scratch("big.json");
  write(big, std::string(2000, ' '));
  CHECK(error_of([&] { read_input_file(big, 1000, "rprof raw profile"); }) ==
        big + ": 2000 bytes is beyond the limit of 1000 bytes for an rprof raw profile");
  CHECK(read_input_file(big, 2000, "rprof raw profile").size() == 2000);
  CHECK(error_of([&] { read_input_file(scratch("none.json"), 10, "rprof profile"); }) ==
        scratch("none.json") + ": no such file or directory");
}

TEST_CASE("profile.json caps: world size and missing ranks") {
  const Profile p = aggregate({parse_raw_profile(raw_doc().dump(), "r.json")}, RunInfo{});
  json pj = rprof::test::profile_dom(p);
  pj["run"]["world_size"] = 50000000;
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: run.world_size: 50000000 is out of range "
        "(-1 to 1048576)");
  pj = rprof::test::profile_dom(p);
  pj["run"]["world_size"] = 4;
  pj["run"]["missing_ranks"] = {1, 9};
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: run.missing_ranks[1]: expected a rank (0 to 3)");
  pj["run"]["missing_ranks"] = {1, 2, 3, 0, 1};
  CHECK(error_of([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: not a valid rprof profile: run.missing_ranks: 5 entries are beyond the limit "
        "of 4");
}

TEST_CASE("an error quoting the file's text stays one line (control characters escaped)") {
  // Found by fuzz_raw: a clock source with a newline split the message.
  json doc = raw_doc();
  doc["clock"] = {{"source", "m\nnot a clock\x01"}, {"ticks_per_s", 1000000000}};
  CHECK(raw_error(doc) == "r.json: not a valid rprof raw profile: clock.source: "
                          "'m\\nnot a clock\\x01' is neither tsc nor monotonic");
}
