// Raw profile parsing and validation.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "profile/raw_profile.h"

using rprof::parse_raw_profile;

namespace {
const char* kMinimal = R"({"format":"rprof-raw","schema_version":1,"host":"h","pid":7,
 "parent_pid":0,"rank":-1,"backend":"time","start_unix_s":1,"duration_ns":5,
 "reason":"exit","signal":0,"counters":[],"regions":[{"id":1,"name":"a"}],
 "threads":[{"index":0,"tid":7,"exited":false,"open":[],"nodes":[
   {"id":0,"parent":-1,"region":1,"calls":3,"incl_ns":30,"excl_ns":30}],"errors":[]}]})";
}

TEST_CASE("a minimal raw profile parses") {
  auto p = parse_raw_profile(kMinimal, "f.json");
  REQUIRE(p.threads.size() == 1);
  CHECK(p.threads[0].nodes[0].calls == 3);
  CHECK(p.region_names.at(1) == "a");
}

TEST_CASE("defects are named with the file") {
  auto msg = [](const std::string& text) {
    try {
      parse_raw_profile(text, "bad.json");
    } catch (const rprof::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(msg(""), Catch::Contains("bad.json") && Catch::Contains("empty"));
  CHECK_THAT(msg(std::string(kMinimal).substr(0, 100)), Catch::Contains("truncated"));
  CHECK_THAT(msg(R"({"hello":1})"), Catch::Contains("foreign"));
  std::string v2 = kMinimal;
  v2.replace(v2.find("\"schema_version\":1"), 18, "\"schema_version\":9");
  CHECK_THAT(msg(v2), Catch::Contains("schema_version 9"));
  std::string badparent = kMinimal;
  badparent.replace(badparent.find("\"parent\":-1"), 11, "\"parent\":5");
  CHECK_THAT(msg(badparent), Catch::Contains("parent"));
}

TEST_CASE("the raw profile's clock is read, and monotonic without one") {
  CHECK(parse_raw_profile(kMinimal, "f.json").clock_source == "monotonic");
  CHECK(parse_raw_profile(kMinimal, "f.json").clock_ticks_per_s == 1000000000ull);
  std::string tsc = kMinimal;
  tsc.replace(tsc.find("\"reason\""), 8,
              R"("clock":{"source":"tsc","ticks_per_s":2596122000},"reason")");
  const auto p = parse_raw_profile(tsc, "f.json");
  CHECK(p.clock_source == "tsc");
  CHECK(p.clock_ticks_per_s == 2596122000ull);
  CHECK(p.threads[0].nodes[0].incl_ns == 30);  // already ns: not rescaled
  std::string zero = tsc;
  zero.replace(zero.find("2596122000"), 10, "0");
  CHECK_THROWS_WITH(parse_raw_profile(zero, "f.json"), Catch::Contains("ticks_per_s"));
}

TEST_CASE("a raw profile is read in any member order, nodes checked when the lists come") {
  // The runtime writes counters and regions before threads; a file with
  // threads first reads the same, and its nodes are checked at the end.
  const std::string threads =
      R"("threads":[{"nodes":[{"id":0,"parent":-1,"region":2,"calls":3,"incl_ns":30,)"
      R"("excl_ns":30,"incl":[7],"excl":[5]}],"index":0,"tid":7,"exited":false,"open":[],)"
      R"("errors":[]}])";
  const std::string head =
      R"({"format":"rprof-raw","schema_version":1,"host":"h","pid":7,"parent_pid":0,"rank":-1,)"
      R"("backend":"time","start_unix_s":1,"duration_ns":5,"reason":"exit","signal":0,)";
  const std::string lists = R"("counters":["c"],"regions":[{"id":2,"name":"b"}])";
  const auto p = parse_raw_profile(head + threads + "," + lists + "}", "f.json");
  REQUIRE(p.threads.size() == 1);
  REQUIRE(p.threads[0].nodes.size() == 1);
  CHECK(p.threads[0].nodes[0].region == 2);
  CHECK(p.threads[0].nodes[0].incl == std::vector<uint64_t>{7});
  CHECK(p.threads[0].nodes[0].excl == std::vector<uint64_t>{5});
  CHECK(p.region_names.at(2) == "b");
  auto msg = [](const std::string& text) {
    try {
      parse_raw_profile(text, "f.json");
    } catch (const rprof::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(msg(head + threads + R"(,"counters":["c"],"regions":[{"id":1,"name":"a"}]})") ==
        "f.json: not a valid rprof raw profile: threads[0].nodes[0].region: refers to unknown "
        "region 2");
  CHECK(msg(head + threads + R"(,"counters":["c","d"],"regions":[{"id":2,"name":"b"}]})") ==
        "f.json: not a valid rprof raw profile: threads[0].nodes[0].incl: 1 counts, but the "
        "profile names 2 counters");
  // In the runtime's order the same defects are named as the node is read.
  CHECK(msg(head + R"("counters":["c"],"regions":[{"id":1,"name":"a"}],)" + threads + "}") ==
        "f.json: not a valid rprof raw profile: threads[0].nodes[0].region: refers to unknown "
        "region 2");
  CHECK(msg(head + R"("counters":["c","d"],"regions":[{"id":2,"name":"b"}],)" + threads + "}") ==
        "f.json: not a valid rprof raw profile: threads[0].nodes[0].incl: 1 counts, but the "
        "profile names 2 counters");
  // Before "format" says what the file is, a defect waits: another file
  // kind is named as such, not by its first odd node.
  std::string late = head + threads + "," + lists + "}";
  late.replace(late.find(R"("format":"rprof-raw",)"), 21, "");
  late.replace(late.find("\"calls\":3"), 9, "\"calls\":-3");
  CHECK(msg(late) == "f.json: not a valid rprof raw profile: missing \"format\": "
                     "\"rprof-raw\" (a foreign file?)");
  // Once it has, the same defect is named.
  std::string bad = head + threads + "," + lists + "}";
  bad.replace(bad.find("\"calls\":3"), 9, "\"calls\":-3");
  CHECK(msg(bad) == "f.json: not a valid rprof raw profile: threads[0].nodes[0].calls: -3 is "
                    "out of range (0 to 18446744073709551615)");
}
