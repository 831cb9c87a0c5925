// One profile, one analysis, four writers: text, JSON, CSV and the HTML
// report's data block show the same numbers, because each renders the
// analysis and none computes its own.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <string>

#include "analysis/analysis.h"
#include "machine_fixture.h"
#include "profile/profile_json.h"
#include "report/chart_model.h"
#include "report/html_report.h"
#include "report/memory_report.h"
#include "report/reporter.h"
#include "report/roofline_report.h"
#include "report/verdict_report.h"
#include "report_fixture.h"

using namespace rprof;
using nlohmann::json;
using rprof::test::counted_region;

namespace {

std::string render(const Analysis& a, const char* format) {
  std::ostringstream out;
  make_reporter(format)->write(a, ReportOptions{}, out);
  return out.str();
}

Profile two_regions() {
  // A DRAM-bound stream and a compute-bound kernel (synthetic_machine: DP
  // 256-bit peak 40 GFLOP/s, DRAM 20 GB/s).
  return rprof::test::profile_of(
      {counted_region({"stream"}, 2.0, 2e9, "256", {24e9, 0, 0, 32e9}),
       counted_region({"gemm"}, 1.0, 30e9, "256", {60e9, 0, 0, 1e9})},
      4.0);
}

const json& region_of(const json& regions, const std::string& name) {
  for (const json& r : regions) {
    if (r["name"] == name) return r;
  }
  FAIL("no region " << name);
  throw;
}

// The CSV row of a region, split at commas (the names here need no quoting).
std::vector<std::string> csv_row(const std::string& csv, const std::string& name,
                                 std::vector<std::string>* header) {
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> row;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : l) {
      if (c == ',') {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    return f;
  };
  std::getline(in, line);
  *header = split(line);
  while (std::getline(in, line)) {
    if (line.rfind(name + ",", 0) == 0) row = split(line);
  }
  return row;
}

}  // namespace

TEST_CASE("text, JSON, CSV and HTML show the same numbers for one profile") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = two_regions();
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  const json doc = json::parse(render(a, "json"));
  const std::string text = render(a, "text");
  const std::string csv = render(a, "csv");
  const json html = html_report_data(a, build_chart_model(a));

  for (const char* name : {"stream", "gemm"}) {
    INFO(name);
    const json& j = region_of(doc["regions"], name);
    const json& h = region_of(html["regions"], name);
    // Times and FLOP rates.
    CHECK(h["time_s"].get<double>() == j["time_s"].get<double>());
    CHECK(h["gflops"].get<double>() == j["roofline"]["gflops"].get<double>());
    // Roofline: bound, fraction and limiting boundary.
    const json& jr = j["roofline"];
    const json& hr = h["roofline"];
    CHECK(hr["bound_gflops"].get<double>() == jr["bound_gflops"].get<double>());
    CHECK(hr["fraction_of_bound"].get<double>() == jr["fraction_of_bound"].get<double>());
    CHECK(hr["limited_by"] == jr["limited_by"]);
    CHECK(hr["limiting"] == jr["limiting_boundary"]);
    for (const json& b : jr["boundaries"]) {
      const std::string key = b["boundary"];
      CHECK(hr["boundaries"][key]["intensity"].get<double>() == b["intensity"].get<double>());
      CHECK(hr["boundaries"][key]["bound_gflops"].get<double>() ==
            b["bound_gflops"].get<double>());
      CHECK(h["intensity"][key].get<double>() == b["intensity"].get<double>());
    }
    // The text table prints the same values at 4 significant digits, and
    // the same verdict sentence.
    CHECK_THAT(text, Catch::Contains(fmt::format("{:.4g}", jr["gflops"].get<double>())));
    CHECK_THAT(text, Catch::Contains(fmt::format("{:.4g}", jr["bound_gflops"].get<double>())));
    CHECK_THAT(text, Catch::Contains(
                         fmt::format("{:.1f}", 100 * jr["fraction_of_bound"].get<double>())));
    const std::string summary = j["verdict"]["summary"];
    CHECK(h["verdict"]["summary"] == summary);
    CHECK_THAT(text, Catch::Contains(std::string(name) + ": " + summary));
    // CSV: the same calls, times and counters as JSON.
    std::vector<std::string> header;
    const std::vector<std::string> row = csv_row(csv, name, &header);
    REQUIRE(row.size() == header.size());
    for (size_t i = 0; i < header.size(); ++i) {
      INFO(header[i]);
      if (header[i] == "calls") CHECK(std::stod(row[i]) == j["calls"].get<double>());
      if (header[i] == "time_s") CHECK(std::stod(row[i]) == Approx(j["time_s"].get<double>()));
      if (j["counters"].contains(header[i])) {
        CHECK(std::stod(row[i]) == j["counters"][header[i]].get<double>());
      }
    }
  }
  // The two regions got different verdicts, so agreement is not trivial.
  CHECK(region_of(doc["regions"], "stream")["verdict"]["bound"] == "memory");
  CHECK(region_of(doc["regions"], "gemm")["verdict"]["bound"] == "compute");
}

TEST_CASE("profile.json written as text equals the DOM of profile_to_json and the add_ functions") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = two_regions();
  // Names that need escaping, invalid UTF-8, a NaN time, threads of two
  // processes, declared work: the text writer must say what the DOM says.
  Region odd = p.regions.back();
  odd.name = "q\"uote\\ \x01 \xff\xfe caf\xc3\xa9";
  odd.path = {odd.name};
  odd.exclusive_time_s = std::nan("");
  odd.work_calls = 2;
  odd.work_flops = 1.5e9;
  odd.work_bytes = 3;
  ThreadRow t = odd.threads.empty() ? ThreadRow{} : odd.threads.front();
  t.host = "n\"1";
  t.pid = 7;
  t.counters["z.extra"] = 5;
  odd.threads.push_back(t);
  p.regions.push_back(odd);
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  json dom = profile_to_json(p);
  add_roofline_json(dom, a);
  add_memory_json(dom, a);
  add_verdict_json(dom, a);
  const json text = json::parse(render(a, "json"));
  // Through text on both sides: U+FFFD for the invalid bytes, null for NaN.
  CHECK(text == json::parse(dom.dump(-1, ' ', false, json::error_handler_t::replace)));
}
