// The text report for people: a summary of one row per finding first, a
// region and its only child of the same counts and time as one row, each
// roof note once, and every line within kTextColumns (issue 48).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <sstream>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "machine_fixture.h"
#include "report/reporter.h"
#include "report/table.h"
#include "report_fixture.h"

using namespace rprof;
using rprof::test::counted_region;

namespace {

std::string render(const Profile& p, const char* format = "text") {
  static const Machine m = rprof::test::synthetic_machine();
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  std::ostringstream out;
  make_reporter(format)->write(a, ReportOptions{}, out);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t k = text.find(what); k != std::string::npos; k = text.find(what, k + 1)) ++n;
  return n;
}

// A marker "dot" of 1 s around its loop, the loop `loop_share` of its time
// and `loop_flops` of its FLOPs (the marker: 1e9 FLOPs, 4e9 DRAM bytes).
Profile marker_and_loop(double loop_share, double loop_flops) {
  Region marker = counted_region({"dot"}, 1.0, 1e9, "256", {8e9, 0, 0, 4e9});
  marker.exclusive_time_s = 1.0 - loop_share;
  Region loop =
      counted_region({"dot", "loop dot.c:3"}, loop_share, loop_flops, "256", {8e9, 0, 0, 4e9});
  return rprof::test::profile_of({marker, loop}, 2.0);
}

}  // namespace

TEST_CASE("a marker and its only loop of the same counts and time are one row") {
  const std::string text = render(marker_and_loop(0.98, 1e9));
  INFO(text);
  // One row everywhere, both names in it; the loop never on a row of its own.
  CHECK(count_of(text, "dot = loop dot.c:3") >= 4);  // summary, regions, roofline, memory
  CHECK(count_of(text, "  loop dot.c:3") == 0);
  CHECK(text.find("dot/loop dot.c:3") == std::string::npos);  // one verdict
  // The data keeps both regions.
  const std::string json = render(marker_and_loop(0.98, 1e9), "json");
  CHECK(json.find("\"loop dot.c:3\"") != std::string::npos);
}

TEST_CASE("a child of other counts or much less time keeps its own row") {
  // 1% fewer FLOPs: a different finding.
  std::string text = render(marker_and_loop(0.98, 0.99e9));
  CHECK(text.find("dot = loop") == std::string::npos);
  CHECK(count_of(text, "  loop dot.c:3") >= 3);
  // The marker's own time is 20% of it: not a sliver.
  text = render(marker_and_loop(0.8, 1e9));
  CHECK(text.find("dot = loop") == std::string::npos);
  // Two children: neither is the marker's only one.
  Profile p = marker_and_loop(0.98, 1e9);
  p.regions[1].time_s = 0.49;
  Region other = p.regions[1];
  other.path = {"dot", "loop dot.c:9"};
  other.name = "loop dot.c:9";
  p.regions.push_back(other);
  text = render(p);
  CHECK(text.find("dot = loop") == std::string::npos);
}

TEST_CASE("a function, its marker and its loop fold into one row, names in order") {
  Region f = counted_region({"kernel()"}, 1.0, 1e9, "256", {8e9, 0, 0, 4e9});
  f.exclusive_time_s = 0.005;
  Region m = counted_region({"kernel()", "k"}, 0.995, 1e9, "256", {8e9, 0, 0, 4e9});
  m.exclusive_time_s = 0.005;
  Region l = counted_region({"kernel()", "k", "loop k.c:7"}, 0.99, 1e9, "256", {8e9, 0, 0, 4e9});
  const std::string text = render(rprof::test::profile_of({f, m, l}, 2.0));
  INFO(text);
  CHECK(text.find("kernel() = k = loop k.c:7") != std::string::npos);
  CHECK(count_of(text, "\n  k ") == 0);
}

TEST_CASE("the summary of 20 regions fits one screen and every line 120 columns") {
  std::vector<Region> regions;
  for (int i = 0; i < 20; ++i) {
    // Alternately DRAM-heavy and not.
    const double dram = i % 2 == 0 ? 4e9 : 1e5;
    regions.push_back(counted_region({fmt::format("a_region_with_a_long_name_{:02}", i)},
                                     1 + 0.1 * i, 1e9, "256", {8e9, 0, 0, dram}));
  }
  const std::string text = render(rprof::test::profile_of(regions, 40.0));
  INFO(text);
  const std::vector<std::string> lines = lines_of(text);
  size_t summary = 0;
  while (summary < lines.size() && lines[summary].rfind("Summary", 0) != 0) ++summary;
  REQUIRE(summary < lines.size());
  size_t end = summary;
  while (end < lines.size() && !lines[end].empty()) ++end;
  // The whole head (header lines, summary) within 40 lines, each region once.
  CHECK(end <= 40);
  for (int i = 0; i < 20; ++i) {
    const std::string name = fmt::format("a_region_with_a_long_name_{:02}", i);
    size_t in_summary = 0;
    for (size_t k = summary; k < end; ++k) in_summary += lines[k].find(name) != std::string::npos;
    CHECK(in_summary == 1);
  }
  CHECK(text.find("memory-bound at DRAM") < text.find("\nTimes in seconds"));
  CHECK(text.find("below every roof") < text.find("\nTimes in seconds"));
  for (const std::string& l : lines) {
    INFO(l);
    CHECK(display_width(l) <= kTextColumns);
  }
  // Each roof note once for the 20 regions that share the roof.
  CHECK(count_of(text, "held against") <= 1);
  CHECK(count_of(text, "roof DP 256-bit") <= 2);
}

TEST_CASE("a table wider than its limit wraps its last, then its first column") {
  TextTable t({"Region", "Number", "Verdict"});
  t.wrap_last_at(60);  // the last column keeps 24, the first 20
  t.add_row({"a region = its loop at kernels.cpp:30", "1.5",
             "memory-bound at DRAM [busy-machine, underutilized]"});
  const std::string out = t.render();
  INFO(out);
  for (const std::string& l : lines_of(out)) CHECK(display_width(l) <= 60);
  // Every word is still there, once.
  for (const char* w : {"region", "kernels.cpp:30", "1.5", "memory-bound", "underutilized]"}) {
    CHECK(count_of(out, w) == 1);
  }
}
