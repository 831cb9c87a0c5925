// Sampled function times carry their sample count and relative error
// (1/sqrt(n)), computed once in the analysis; a function of fewer samples
// than function_min_samples is uncertain in every writer and gets no bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "analysis/analysis.h"
#include "machine_fixture.h"
#include "report/chart_model.h"
#include "report/html_report.h"
#include "report/reporter.h"
#include "report/svg_chart.h"
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

// A function region with a sampled self time of `samples` x 250 us, running
// at 30 GFLOP/s of scalar-free 256-bit DP work (75% of the synthetic
// machine's 40 GFLOP/s peak, compute-bound at its intensity).
Region sampled_function(const std::string& name, uint64_t samples) {
  const double time_s = static_cast<double>(samples) * 250e-6;
  Region f = counted_region({"[program]", name}, time_s, 30e9 * time_s, "256",
                            {60e9 * time_s, 0, 0, 1e9 * time_s});
  f.calls = 0;
  f.threads.clear();
  f.fn_object = "/bin/app";
  f.fn_symbol = name;
  f.fn_inclusive = f.counters;
  f.fn_sampled = true;
  f.fn_samples = samples;
  f.fn_period_s = 250e-6;
  f.fn_threads = 1;
  return f;
}

const json& region_of(const json& regions, const std::string& name) {
  for (const json& r : regions) {
    if (r["name"] == name) return r;
  }
  FAIL("no region " << name);
  throw;
}

}  // namespace

TEST_CASE("a function of few samples is uncertain in every writer and gets no bound claim") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = rprof::test::profile_of(
      {sampled_function("tiny", 4), sampled_function("big", 4000)}, 2.0);
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  const RegionAnalysis& tiny = a.regions[a.regions.size() - 2];
  const RegionAnalysis& big = a.regions.back();
  REQUIRE(tiny.region->name == "tiny");
  REQUIRE(big.region->name == "big");

  // The analysis: n samples, error 1/sqrt(n), uncertain below 100.
  REQUIRE(tiny.sampling);
  CHECK(tiny.sampling->samples == 4);
  CHECK(tiny.sampling->relative_error == Approx(0.5));
  CHECK(tiny.sampling->uncertain);
  REQUIRE(big.sampling);
  CHECK(big.sampling->relative_error == Approx(1 / std::sqrt(4000.0)));
  CHECK_FALSE(big.sampling->uncertain);
  // The same rate: the big one is judged (compute-bound, 75%), the tiny one not.
  REQUIRE(big.verdict);
  CHECK(big.verdict->bound == Bound::kCompute);
  CHECK(big.verdict->fraction == Approx(0.75).epsilon(0.01));
  REQUIRE(tiny.verdict);
  CHECK(tiny.verdict->bound == Bound::kUnknown);
  CHECK(tiny.verdict->fraction == 0);
  CHECK_FALSE(tiny.verdict->at_roof);
  CHECK(tiny.verdict->has(Flag::kTooShort));
  CHECK_FALSE(tiny.verdict->has(Flag::kUnderutilized));
  CHECK(tiny.verdict->kind == VerdictKind::kUncertainSamples);
  CHECK(tiny.verdict->as<UncertainEvidence>().samples == 4);
  CHECK(tiny.verdict->as<UncertainEvidence>().relative_error == Approx(0.5));
  CHECK(tiny.verdict->flag(Flag::kTooShort)->kind == FlagKind::kTooShortSamples);
  REQUIRE(tiny.valid_roofline());
  CHECK(tiny.roofline->uncertain);
  CHECK_FALSE(big.roofline->uncertain);

  // profile.json: the samples, the error, the mark and the threshold.
  const json doc = json::parse(render(a, "json"));
  CHECK(doc["verdict_thresholds"]["function_min_samples"] == 100);
  const json& j = region_of(doc["regions"], "tiny");
  CHECK(j["time_samples"]["samples"] == 4);
  CHECK(j["time_samples"]["relative_error"].get<double>() == Approx(0.5));
  CHECK(j["time_samples"]["uncertain"] == true);
  CHECK(j["roofline"]["uncertain"] == true);
  CHECK(j["verdict"]["bound"] == "unknown");
  CHECK(region_of(doc["regions"], "big")["time_samples"]["uncertain"] == false);
  CHECK(region_of(doc["regions"], "big")["time_samples"]["samples"] == 4000);

  // CSV: three columns of their own.
  const std::string csv = render(a, "csv");
  CHECK_THAT(csv, Catch::Contains(
                      "function_time_samples,function_time_relative_error,function_time_uncertain"));
  CHECK_THAT(csv, Catch::Contains(",4,0.5,1\n"));
  CHECK_THAT(csv, Catch::Contains(",4000,0.01581,0\n"));

  // Text: the function table's samples, the roofline row not judged.
  const std::string text = render(a, "text");
  CHECK_THAT(text, Catch::Contains("4 (±50%) uncertain"));
  CHECK_THAT(text, Catch::Contains("4000 (±1.6%)"));
  CHECK_THAT(text, Catch::Contains("uncertain (few samples)"));
  CHECK_THAT(text, Catch::Contains("tiny: uncertain: 4 cpu-clock samples"));
  // No % of bound beside "no bound claimed": the row's % column is "-".
  {
    std::istringstream lines(text);
    bool found = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("tiny ") == std::string::npos ||
          line.find("uncertain (few samples)") == std::string::npos) {
        continue;
      }
      found = true;
      INFO(line);
      CHECK_THAT(line, Catch::Matches(".* uncertain \\(few samples\\) +- *"));
    }
    CHECK(found);
  }
  CHECK(text.find("tiny: compute") == std::string::npos);

  // HTML data and the SVG chart.
  const ChartModel chart = build_chart_model(a);
  const json html = html_report_data(a, chart);
  CHECK(region_of(html["regions"], "tiny")["time_samples"] == j["time_samples"]);
  CHECK(region_of(html["regions"], "tiny")["roofline"]["uncertain"] == true);
  const std::string svg = render(a, "svg");
  CHECK_THAT(svg, Catch::Contains("data-region=\"tiny\""));
  CHECK_THAT(svg, Catch::Contains("data-uncertain=\"true\""));
  CHECK_THAT(svg, Catch::Contains("uncertain: its time is 4 cpu-clock samples"));
}

TEST_CASE("the sample threshold is a named threshold: lowered, the same function is judged") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = rprof::test::profile_of({sampled_function("tiny", 4)}, 1.0);
  VerdictThresholds t;
  t.function_min_samples = 4;
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}}, t);
  const RegionAnalysis& ra = a.regions.back();
  REQUIRE(ra.sampling);
  CHECK_FALSE(ra.sampling->uncertain);
  REQUIRE(ra.verdict);
  CHECK(ra.verdict->bound == Bound::kCompute);
  // No sample at all: the time bound, not "uncertain" (bounds are claims it can make).
  const Profile q = rprof::test::profile_of({sampled_function("none", 0)}, 1.0);
  const Analysis qa = analyze(q, {&m, "/tmp/m.json", {}});
  CHECK(qa.regions.back().time_bound);
  CHECK(qa.regions.back().sampling->relative_error == 1);
  // Its roofline, if it has one, is a lower bound, never "uncertain".
  const auto& rl = qa.regions.back().roofline;
  if (rl) CHECK_FALSE(rl->uncertain);
}
