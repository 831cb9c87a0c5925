// 100,000 region paths (issue 16): a generated raw profile goes through
// `rprof merge` and `rprof report` with every count exact, and the reports
// for people (text, HTML, SVG) show the longest regions and say how many
// they left out, while profile.json and profile.csv keep all of them. Time
// and memory are measured by bench/scale_paths, not here.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "integration/harness.h"
#include "integration/many_paths_raw.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

constexpr long kOuter = 1000, kInner = 99;  // 1,000 + 1,000 x 99 = 100,000 paths

// outer_<o> (1 call, 1 us per inner region + 1 us) holding inner_<i>
// (1 + i % 3 calls, (1000 + i) ns); flops.dp.scalar = calls x 10.
std::string write_raw(const std::string& dir) {
  const std::string file = dir + "/rprof-raw.node0.4242.json";
  std::ofstream(file) << many_paths_raw(ManyPaths{kOuter, kInner, /*flops=*/true});
  return file;
}

std::string contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos ? what : "(not found) " + what;
}

}  // namespace

TEST_CASE("100000 region paths round-trip exactly and the human reports say what they left out") {
  const std::string raw = write_raw(fresh_dir("scale-raw"));
  const std::string out = fresh_path("scale-merged");
  const RunResult m =
      run_command({RPROF_BIN, "merge", "-o", out, "--format", "csv", raw});
  INFO(m.err);
  REQUIRE(m.status == 0);
  // profile.csv and profile.json keep every path, with exact counts.
  size_t lines = 0;
  for (char c : m.out) lines += c == '\n';
  CHECK(lines == 1 + 100000);  // header + one row per path
  // rprof report reads profile.json back (region by region) and writes it
  // again: every count exact after the round trip.
  const RunResult again = run_command({RPROF_BIN, "report", "--format", "json", out});
  INFO(again.err);
  REQUIRE(again.status == 0);
  const json p = json::parse(again.out);
  REQUIRE(p["regions"].size() == 100000);
  uint64_t calls = 0, flops = 0;
  for (const json& r : p["regions"]) {
    calls += r["calls"].get<uint64_t>();
    if (r["depth"] == 1) flops += r["counters"]["flops.dp.scalar"].get<uint64_t>();
  }
  // Per outer region: 1 + (33 x 1 + 33 x 2 + 33 x 3) = 199 calls, 1,980 FLOPs.
  CHECK(calls == uint64_t{kOuter} * 199);
  CHECK(flops == uint64_t{kOuter} * 1980);
  const json inner = find_region(p, "outer_7/inner_98");
  REQUIRE(inner.is_object());
  CHECK(inner["calls"] == 3);
  CHECK(inner["time_s"].get<double>() == Approx(1098e-9).epsilon(1e-12));
  CHECK(inner["counters"]["flops.dp.scalar"] == 30);
  CHECK(inner["exclusive_counters"]["flops.dp.scalar"] == 30);
  CHECK(inner["threads"]["tid"] == json::array({4242}));

  // Text, HTML and SVG show 200 of them (with their enclosing regions) and
  // say how many are left out.
  const std::string text = read_text(out + "/report.txt");
  CHECK(contains(text, " of 100,000 regions are left out of this report") ==
        " of 100,000 regions are left out of this report");
  size_t rows = 0;
  for (size_t at = text.find("inner_"); at != std::string::npos; at = text.find("inner_", at + 1)) {
    ++rows;
  }
  CHECK(rows <= 2 * 200);  // the region table and the verdicts, 200 regions at most
  const std::string html = read_text(out + "/report.html");
  CHECK(contains(html, " of 100,000 regions are left out of this report") ==
        " of 100,000 regions are left out of this report");
  CHECK(html.size() < 2000000);
  const std::string svg = read_text(out + "/roofline.svg");
  CHECK(contains(svg, " of 100,000 regions are left out of this report") ==
        " of 100,000 regions are left out of this report");
}
