// Sampled traffic in every writer: one region whose DRAM bytes are a sampled
// estimate, 4e9 +- 0.4e9 bytes (95%, 412 units) for 1e9 FLOPs in 2 s, so
// intensity 0.25 [0.2273, 0.2778] FLOP/byte and 2 [1.8, 2.2] GB/s. The
// counters give exact bytes; the test marks DRAM sampled the way the sampled
// cache model's metrics will, and recomputes the intervals with the function
// the analysis calls (sampled_boundaries).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <string>

#include "analysis/analysis.h"
#include "machine_fixture.h"
#include "report/chart_model.h"
#include "report/check_baseline.h"
#include "report/check_rules.h"
#include "report/diff_report.h"
#include "report/html_report.h"
#include "report/profile_diff.h"
#include "report/reporter.h"
#include "report/svg_chart.h"
#include "report_fixture.h"

using namespace rprof;
using nlohmann::json;
using rprof::test::counted_region;

namespace {

// The region "triad": 1e9 DP FLOPs (256-bit), 2 s, L1 1e8 bytes (exact),
// DRAM `dram` bytes.
Profile triad(double dram) {
  return rprof::test::profile_of(
      {counted_region({"triad"}, 2.0, 1e9, "256", {1e8, 0, 0, dram})}, 4.0);
}

// Marks region i's boundary b sampled, as metrics_from_counters will.
void sample(Analysis& a, size_t i, Boundary b, double ci95, double units) {
  RegionAnalysis& ra = a.regions[i];
  Traffic& t = ra.metrics.traffic[static_cast<int>(b)];
  t.sampled = true;
  t.ci95_bytes = ci95;
  t.sampled_units = units;
  ra.sampled_traffic = sampled_boundaries(
      ra.metrics, ra.metrics.has_flops ? ra.metrics.flops_total() : 0, ra.region->time_s);
  a.any_sampled_traffic = true;
}

std::string render(const Analysis& a, const char* format) {
  std::ostringstream out;
  make_reporter(format)->write(a, ReportOptions{}, out);
  return out.str();
}

std::vector<std::string> split(const std::string& l) {
  std::vector<std::string> f(1);
  for (char c : l) {
    if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

// The value of attribute `attr` in the first tag containing `key`.
std::string attr_of(const std::string& svg, const std::string& key, const std::string& attr) {
  const size_t at = svg.find(key);
  if (at == std::string::npos) return "";
  const size_t start = svg.rfind('<', at);
  const std::string tag = svg.substr(start, svg.find('>', at) - start);
  std::smatch m;
  if (std::regex_search(tag, m, std::regex(" " + attr + "=\"([^\"]*)\""))) return m[1];
  return "";
}

double num_attr(const std::string& svg, const std::string& key, const std::string& attr) {
  const std::string v = attr_of(svg, key, attr);
  REQUIRE(!v.empty());
  return std::stod(v);
}

}  // namespace

TEST_CASE("sampled traffic: text, JSON and CSV give the interval, with units") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = triad(4e9);
  Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  CHECK(!a.any_sampled_traffic);  // exact counters: nothing sampled
  CHECK(render(a, "text").find("Sampled traffic") == std::string::npos);
  sample(a, 0, Boundary::kDRAM, 0.4e9, 412);

  const std::string text = rprof::test::unwrapped(render(a, "text"));
  CHECK(text.find("Sampled traffic (sampled cache model:") != std::string::npos);
  CHECK(text.find("DRAM 4 GB ± 0.4 GB (95%, sampled: 412 units); I 0.25 FLOP/byte "
                  "[0.2273, 0.2778]; 2 GB/s [1.8, 2.2]") != std::string::npos);
  // The tables mark the sampled boundary (the roofline's limiting one) and
  // say what ± means; L1 (exact) is not in the section.
  // 0.4 GB of 4 GB: "±10%" beside the intensity.
  CHECK(text.find("0.25 ±10%") != std::string::npos);
  CHECK(text.find("±N% = sampled traffic: an estimate") != std::string::npos);
  size_t lines = 0;
  for (size_t k = text.find("(95%, sampled:"); k != std::string::npos;
       k = text.find("(95%, sampled:", k + 1)) {
    ++lines;
  }
  CHECK(lines == 1);

  const json doc = json::parse(render(a, "json"));
  const json& r = doc["regions"][0];
  REQUIRE(r.contains("sampled_traffic"));
  REQUIRE(r["sampled_traffic"].size() == 1);
  const json& s = r["sampled_traffic"][0];
  CHECK(s["boundary"] == "dram");
  CHECK(s["bytes"].get<double>() == Approx(4e9));
  CHECK(s["ci95_bytes"].get<double>() == Approx(4e8));
  CHECK(s["bytes_low"].get<double>() == Approx(3.6e9));
  CHECK(s["bytes_high"].get<double>() == Approx(4.4e9));
  CHECK(s["confidence"].get<double>() == 0.95);
  CHECK(s["sampling_units"].get<double>() == 412);
  CHECK(s["intensity"].get<double>() == Approx(0.25));
  CHECK(s["intensity_low"].get<double>() == Approx(1 / 4.4));
  CHECK(s["intensity_high"].get<double>() == Approx(1 / 3.6));
  CHECK(s["gbs_low"].get<double>() == Approx(1.8));
  CHECK(s["gbs_high"].get<double>() == Approx(2.2));
  CHECK(s["conventions"].get<std::string>().find("95%") != std::string::npos);

  std::istringstream csv(render(a, "csv"));
  std::string head, row;
  std::getline(csv, head);
  std::getline(csv, row);
  const std::vector<std::string> h = split(head), c = split(row);
  REQUIRE(h.size() == c.size());
  auto cell = [&](const std::string& name) {
    for (size_t k = 0; k < h.size(); ++k) {
      if (h[k] == name) return c[k];
    }
    FAIL("no column " << name);
    return std::string();
  };
  CHECK(std::stod(cell("traffic_dram_ci95_bytes")) == Approx(4e8));
  CHECK(std::stod(cell("traffic_dram_bytes_low")) == Approx(3.6e9));
  CHECK(std::stod(cell("traffic_dram_bytes_high")) == Approx(4.4e9));
  CHECK(cell("traffic_dram_sampling_units") == "412");
  CHECK(std::stod(cell("intensity_dram_low")) == Approx(0.2272727));
  CHECK(std::stod(cell("intensity_dram_high")) == Approx(0.2777778));
  CHECK(cell("traffic_l1_ci95_bytes").empty());  // exact

  // Caliper json-split: the half-width and ends as value columns, with units.
  const json cali = json::parse(render(a, "caliper"));
  auto cali_value = [&](const std::string& column) {
    const json& cols = cali["columns"];
    for (size_t k = 0; k < cols.size(); ++k) {
      if (cols[k] == column) {
        CHECK(cali["column_metadata"][k]["attribute.unit"] == "byte");
        return cali["data"][0][k];
      }
    }
    FAIL("no Caliper column " << column);
    return json();
  };
  CHECK(cali_value("inclusive#rprof.bytes_ci95.dram").get<double>() == Approx(4e8));
  CHECK(cali_value("inclusive#rprof.bytes_low.dram").get<double>() == Approx(3.6e9));
  CHECK(cali_value("inclusive#rprof.bytes_high.dram").get<double>() == Approx(4.4e9));
  CHECK(cali_value("inclusive#rprof.bytes_ci95.l1").is_null());  // exact

  // The HTML report's data block: the same objects, keyed by boundary, and
  // the convention under "sampled".
  const json d = html_report_data(a, build_chart_model(a));
  const json& hs = d["regions"][0]["sampled_traffic"];
  REQUIRE(hs.contains("dram"));
  CHECK(!hs.contains("l1"));
  CHECK(hs["dram"]["ci95_bytes"].get<double>() == Approx(4e8));
  CHECK(hs["dram"]["intensity_low"].get<double>() == Approx(1 / 4.4));
  CHECK(d["conventions"]["sampled"].get<std::string>().find("95% confidence interval") !=
        std::string::npos);
}

TEST_CASE("sampled traffic: the chart draws the intensity interval on the axis' scale") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = triad(4e9);
  Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  sample(a, 0, Boundary::kDRAM, 0.4e9, 412);
  const ChartModel c = build_chart_model(a);
  REQUIRE(c.any_sampled);
  const std::string svg = render_svg(c, true);
  const std::string bar = "data-role=\"intensity-interval\"";
  REQUIRE(svg.find(bar) != std::string::npos);
  CHECK(attr_of(svg, bar, "data-boundary") == "dram");
  CHECK(std::stod(attr_of(svg, bar, "data-intensity-low")) == Approx(1 / 4.4).epsilon(1e-4));
  CHECK(std::stod(attr_of(svg, bar, "data-intensity-high")) == Approx(1 / 3.6).epsilon(1e-4));
  // Pixels per decade from two x-axis ticks (0.1 and 1 FLOP/byte).
  const double x01 = num_attr(svg, "data-role=\"x-tick\" data-value=\"0.1\"", "x");
  const double x1 = num_attr(svg, "data-role=\"x-tick\" data-value=\"1\"", "x");
  const double decade = x1 - x01;
  REQUIRE(decade > 0);
  const double lo = num_attr(svg, bar, "data-x-low"), hi = num_attr(svg, bar, "data-x-high");
  const double cx = num_attr(svg, "data-role=\"point\" data-boundary=\"dram\"", "cx");
  // On the log axis: x(I) = x(0.1) + decade * log10(I / 0.1); pixels are
  // written to 0.1 px, so each figure is within 0.1 px.
  CHECK(lo == Approx(x01 + decade * std::log10(10 / 4.4)).margin(0.1));
  CHECK(hi == Approx(x01 + decade * std::log10(10 / 3.6)).margin(0.1));
  CHECK(cx == Approx(x01 + decade * std::log10(2.5)).margin(0.1));
  // The bar's span: log10(4.4 / 3.6) decades, and its path from lo to hi.
  CHECK(hi - lo == Approx(decade * std::log10(4.4 / 3.6)).margin(0.15));
  CHECK(attr_of(svg, bar, "d").rfind(fmt::format("M{} ", attr_of(svg, bar, "data-x-low")), 0) ==
        0);
  // The exact L1 point has no bar; the legend and the footer explain bars.
  CHECK(svg.find("data-role=\"intensity-interval\" data-boundary=\"l1\"") == std::string::npos);
  CHECK(svg.find("data-role=\"legend-interval\"") != std::string::npos);
  CHECK(svg.find("bars: 95% interval of the") != std::string::npos);
  CHECK(svg.find("95% interval of the sampled traffic at that boundary") != std::string::npos);
}

TEST_CASE("sampled traffic: an interval down to 0 bytes runs to the chart's edge") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = triad(4e9);
  Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  sample(a, 0, Boundary::kDRAM, 5e9, 2);  // [0, 9e9] bytes
  const std::string svg = render_svg(build_chart_model(a), true);
  const std::string bar = "data-role=\"intensity-interval\"";
  CHECK(attr_of(svg, bar, "data-intensity-high") == "unbounded");
  CHECK(std::stod(attr_of(svg, bar, "data-intensity-low")) == Approx(1 / 9.0).epsilon(1e-4));
  CHECK(num_attr(svg, bar, "data-x-high") == Approx(86 + 600));  // the plot's right edge
  const std::string text = render(a, "text");
  CHECK(text.find("DRAM 4 GB ± 5 GB (95%, sampled: 2 units); I 0.25 FLOP/byte "
                  "[0.1111, unbounded]") != std::string::npos);
  CHECK(text.find("unbounded = the interval's low end of bytes is 0") != std::string::npos);
  const json doc = json::parse(render(a, "json"));
  CHECK(doc["regions"][0]["sampled_traffic"][0]["intensity_high"].is_null());
  CHECK(doc["regions"][0]["sampled_traffic"][0]["bytes_low"].get<double>() == 0);
}

TEST_CASE("sampled traffic: rprof check holds a byte rule against the interval") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = triad(4e9);
  Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  sample(a, 0, Boundary::kDRAM, 0.4e9, 412);
  // 4.3e9 is inside [3.6e9, 4.4e9]: passes; 4.5e9 is not: fails, naming it.
  const std::vector<CheckItem> in =
      evaluate_rules(parse_rules("[[rule]]\nregion='triad'\nbytes_dram=4.3e9\n", "r", false), a);
  REQUIRE(in.size() == 1);
  CHECK(!in[0].failed);
  CHECK(in[0].measured ==
        "4000000000 B ± 400000000 B (95% interval [3600000000, 4400000000], sampled: 412 "
        "units)");
  const std::vector<CheckItem> out =
      evaluate_rules(parse_rules("[[rule]]\nregion='triad'\nbytes_dram=4.5e9\n", "r", false), a);
  REQUIRE(out.size() == 1);
  CHECK(out[0].failed);
  CHECK(out[0].message.find("the interval does not reach it") != std::string::npos);
  // With a 5% tolerance, 4.5e9's band [4.275e9, 4.725e9] meets the interval.
  CHECK(!evaluate_rules(parse_rules("[[rule]]\nregion='triad'\nbytes_dram=4.5e9\n"
                                    "count_tolerance=0.05\n", "r", false), a)[0]
             .failed);
}

TEST_CASE("sampled traffic: the diff says whether two runs' bytes differ beyond the intervals") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p0 = triad(4e9), p1 = triad(3.6e9), p2 = triad(2e9);
  Analysis a0 = analyze(p0, {&m, "/tmp/m.json", {}});
  Analysis a1 = analyze(p1, {&m, "/tmp/m.json", {}});
  Analysis a2 = analyze(p2, {&m, "/tmp/m.json", {}});
  sample(a0, 0, Boundary::kDRAM, 0.3e9, 400);
  sample(a1, 0, Boundary::kDRAM, 0.4e9, 380);
  sample(a2, 0, Boundary::kDRAM, 0.4e9, 390);
  // 4e9 -> 3.6e9: -0.4e9 within sqrt(0.3^2 + 0.4^2) = 0.5e9.
  const ProfileDiff near = diff_profiles(a0, a1);
  const BoundaryDiff* dram = nullptr;
  for (const BoundaryDiff& b : near.regions[0].boundaries) {
    if (b.boundary == Boundary::kDRAM) dram = &b;
  }
  REQUIRE(dram);
  CHECK(*dram->ci95_before == Approx(0.3e9));
  CHECK(*dram->ci95_after == Approx(0.4e9));
  CHECK(*dram->ci95_change == Approx(0.5e9));
  CHECK(*dram->change_within_interval);
  std::ostringstream text;
  write_diff_text(near, {"a", &p0}, {"b", &p1}, text);
  CHECK(text.str().find("DRAM bytes are sampled estimates: before 4 GB ± 0.3 GB (95%, sampled: "
                        "400 units), after 3.6 GB ± 0.4 GB (95%, sampled: 380 units); change "
                        "-0.4 GB ± 0.5 GB (95%, the intervals in quadrature): within the "
                        "intervals") != std::string::npos);
  const json j = diff_to_json(near, {"a", &p0}, {"b", &p1});
  const json& jb = j["regions"][0]["bytes"]["dram"];
  CHECK(jb["ci95_change"].get<double>() == Approx(0.5e9));
  CHECK(jb["change_within_interval"] == true);
  CHECK(j["regions"][0]["bytes"]["l1"].count("ci95_change") == 0);  // exact
  // 4e9 -> 2e9: -2e9, beyond 0.5e9.
  const ProfileDiff far = diff_profiles(a0, a2);
  std::ostringstream text2;
  write_diff_text(far, {"a", &p0}, {"b", &p2}, text2);
  CHECK(text2.str().find("change -2 GB ± 0.5 GB (95%, the intervals in quadrature): beyond the "
                         "intervals, a real change") != std::string::npos);
  // The baseline check: exact counts compared, the sampled ones within the interval.
  BaselineOptions o;
  o.exact_counts = true;
  o.counts_only = true;
  auto dram_item = [](const std::vector<CheckItem>& items) {
    for (const CheckItem& it : items) {
      if (it.check == "bytes at DRAM (sampled, 95%)") return it;
    }
    FAIL("no sampled DRAM item");
    return CheckItem{};
  };
  CHECK(!dram_item(compare_to_baseline(near, o)).failed);
  const CheckItem f = dram_item(compare_to_baseline(far, o));
  CHECK(f.failed);
  CHECK(f.message.find("beyond the 95% interval of the difference (± 500000000 B") !=
        std::string::npos);
}
