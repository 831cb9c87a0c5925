// The roofline chart: log scales and their labels, label placement, the
// chart model built from a profile and the synthetic machine, and the SVG
// and HTML writers' content (escaping, data attributes, verdicts).
#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <sstream>

#include "machine_fixture.h"
#include "report/chart_layout.h"
#include "report/chart_model.h"
#include "report/chart_scale.h"
#include "report/html_report.h"
#include "report/markup.h"
#include "report/svg_chart.h"
#include "report/verdict_words.h"
#include "report_fixture.h"

using namespace rprof;
using rprof::test::Bytes;
using rprof::test::counted_region;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

// The value of attribute `attr` on the element whose attributes contain `key`.
std::string attr_of(const std::string& svg, const std::string& key, const std::string& attr) {
  const size_t at = svg.find(key);
  if (at == std::string::npos) return "";
  const size_t start = svg.rfind('<', at);
  const size_t end = svg.find('>', at);
  const std::string tag = svg.substr(start, end - start);
  std::smatch m;
  if (std::regex_search(tag, m, std::regex(" " + attr + "=\"([^\"]*)\""))) return m[1];
  return "";
}

// stream: DRAM bandwidth-bound (256-bit DP); gemm: compute-bound (512-bit);
// init: no counters.
Profile sample_profile() {
  std::vector<Region> regions;
  regions.push_back(counted_region({"stream"}, 2.0, 2e9, "256", {24e9, 0, 0, 32e9}));
  regions.push_back(counted_region({"gemm"}, 1.0, 60e9, "512", {120e9, 0, 0, 1e9}));
  Region init;
  init.path = {"init"};
  init.name = "init";
  init.time_s = 0.5;
  regions.push_back(init);
  return rprof::test::profile_of(regions, 4.0);
}

}  // namespace

TEST_CASE("log axis: pixels, inverse, decades and minor ticks") {
  LogAxis a = fit_log_axis(1, 100, 2, 2);
  CHECK(a.lo == Approx(0.5));
  CHECK(a.hi == Approx(200));
  a.px_lo = 100;
  a.px_hi = 500;
  CHECK(a.to_px(a.lo) == Approx(100));
  CHECK(a.to_px(a.hi) == Approx(500));
  // The geometric mean sits halfway.
  CHECK(a.to_px(std::sqrt(a.lo * a.hi)) == Approx(300));
  CHECK(a.from_px(a.to_px(7.5)) == Approx(7.5));
  CHECK(a.decades() == std::vector<double>{1, 10, 100});
  const std::vector<double> minor = a.minor_ticks();
  CHECK(minor.front() == Approx(0.5));
  CHECK(minor.back() == Approx(200));
  CHECK(minor.size() == 5 + 8 + 8 + 1);  // 0.5..0.9, 2..9, 20..90, 200

  // Too narrow: widened symmetrically to the minimum number of decades.
  const LogAxis b = fit_log_axis(10, 10, 1, 3);
  CHECK(std::log10(b.hi / b.lo) == Approx(3));
  CHECK(std::sqrt(b.lo * b.hi) == Approx(10));
  // Garbage in: a sane default, never NaN.
  const LogAxis c = fit_log_axis(0, NAN, 3, 3);
  CHECK(c.lo == 1);
  CHECK(c.hi == Approx(1000));
  // Absurd data (a ceiling of 1e308 GFLOP/s): a finite axis and a bounded
  // list of decades, never an endless loop.
  const LogAxis huge = fit_log_axis(1, 1e308, 2, 3);
  CHECK(std::isfinite(huge.hi));
  CHECK(huge.decades().size() <= 302);
  CHECK(huge.minor_ticks().size() <= 8 * 302);
  LogAxis inf_axis;
  inf_axis.lo = 1;
  inf_axis.hi = INFINITY;
  CHECK(inf_axis.decades().empty());
  // y axis growing upwards: px_hi above px_lo.
  LogAxis y = fit_log_axis(1, 1000, 1, 3);
  y.px_lo = 400;
  y.px_hi = 0;
  CHECK(y.to_px(10) == Approx(400 - 400.0 / 3));
}

TEST_CASE("tick and number labels") {
  CHECK(decade_label(0.001) == "0.001");
  CHECK(decade_label(0.1) == "0.1");
  CHECK(decade_label(1) == "1");
  CHECK(decade_label(1000) == "1000");
  CHECK(decade_label(1e5) == "100000");
  CHECK(decade_label(1e6) == "1e6");
  CHECK(decade_label(1e-4) == "1e-4");
  CHECK(human_number(320) == "320");
  CHECK(human_number(12.5) == "12.5");
  CHECK(human_number(1000) == "1000");
  CHECK(human_number(1280) == "1280");
  CHECK(human_number(2.0 / 24) == "0.08333");
  CHECK(human_number(1.0 / 3) == "0.3333");
  CHECK(human_number(-0.25) == "-0.25");
  CHECK(human_number(0) == "0");
  CHECK(human_number(123456.7) == "123457");
  CHECK(human_number(2.5e9) == "2.500e+09");
  CHECK(human_number(NAN) == "n/a");
}

TEST_CASE("label placer: labels never overlap while there is room") {
  LabelPlacer placer({0, 0, 600, 400});
  placer.block({290, 190, 20, 20});  // the dot itself
  std::vector<Box> placed;
  for (int i = 0; i < 10; ++i) {
    const Placement p = placer.place(300, 200, 10, 70, 14);
    INFO("label " << i);
    CHECK(p.clean);
    CHECK(p.box.inside({0, 0, 600, 400}));
    CHECK_FALSE(p.box.overlaps({290, 190, 20, 20}));
    for (const Box& q : placed) CHECK_FALSE(p.box.overlaps(q));
    placed.push_back(p.box);
  }
  // The first label touches the dot, on its right.
  CHECK(placed[0].x == Approx(300 + 10 + 3));
  // A dot in the corner: the label goes where it fits.
  LabelPlacer corner({0, 0, 200, 100});
  const Placement c = corner.place(195, 5, 4, 60, 12);
  CHECK(c.clean);
  CHECK(c.box.inside({0, 0, 200, 100}));
  // No room at all: the least bad place, flagged.
  LabelPlacer tiny({0, 0, 20, 20});
  CHECK_FALSE(tiny.place(10, 10, 4, 80, 14).clean);
}

TEST_CASE("text width grows with length and font size") {
  CHECK(text_width("abcdef", 12) > text_width("abc", 12));
  CHECK(text_width("abc", 24) == Approx(2 * text_width("abc", 12)));
  CHECK(text_width("\xc3\xa9t\xc3\xa9", 10) == Approx(text_width("ete", 10)));  // UTF-8
}

TEST_CASE("markup: escaping keeps SVG and HTML well formed") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(xml_escape("x\x01y\tz") == "xy\tz");                 // control bytes dropped
  CHECK(xml_escape("bad\xff") == "bad\xef\xbf\xbd");         // invalid UTF-8 -> U+FFFD
  CHECK(xml_escape("\xc3\xa9") == "\xc3\xa9");               // valid UTF-8 kept
  CHECK(xml_escape("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  CHECK(script_safe_json("{\"n\":\"</script><!--&\"}") ==
        "{\"n\":\"\\u003c/script\\u003e\\u003c!--\\u0026\"}");
  CHECK(ellipsize("short", 10) == "short");
  CHECK(ellipsize("a_very_long_region_name", 10) == "a_very_...");
}

TEST_CASE("chart model: roofs, bandwidths, ridges and one point per boundary") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = sample_profile();
  const ChartModel c = build_chart_model(analyze(p, {&m, "", {}}));
  const CeilingSet& set = *m.nearest(1);

  REQUIRE(c.regions.size() == 2);  // init has no counters
  const ChartRegion& stream = c.regions[0];
  CHECK(stream.name == "stream");
  CHECK(stream.gflops == Approx(1));  // 2e9 FLOPs in 2 s
  CHECK(stream.share == Approx(0.5));  // 2 s of a 4 s run
  REQUIRE(stream.points.size() == 2);
  // Ascending intensity: DRAM (32 GB) is left of L1 (24 GB).
  CHECK(stream.points[0].boundary == Boundary::kDRAM);
  CHECK(stream.points[0].intensity == Approx(2e9 / 32e9));
  CHECK(stream.points[1].intensity == Approx(2e9 / 24e9));
  CHECK(stream.points[0].limiting);
  CHECK_FALSE(stream.points[1].limiting);
  CHECK(stream.limited_by == "memory (DRAM)");
  CHECK(stream.bound == Approx(set.roof_bandwidth(Boundary::kDRAM)->boundary_gbs() * 2e9 / 32e9));
  const ChartRegion& gemm = c.regions[1];
  CHECK(gemm.limited_by == "compute");
  for (const ChartPoint& pt : gemm.points) CHECK_FALSE(pt.limiting);

  // Roofs: each region's own (256-bit for stream, 512-bit for gemm), highest first.
  REQUIRE(c.roofs.size() == 2);
  CHECK(c.roofs[0].roof.gflops == Approx(set.peak(Precision::kDP, Width::k512)->gflops));
  CHECK(c.roofs[1].roof.gflops == Approx(set.peak(Precision::kDP, Width::k256)->gflops));
  CHECK(c.roofs[0].applied);
  CHECK(c.roofs[1].applied);
  CHECK_FALSE(c.roofs[0].how.empty());
  // Bandwidths at the boundaries with traffic only, with the roofline's figure.
  REQUIRE(c.bandwidths.size() == 2);
  CHECK(c.bandwidths[0].boundary == Boundary::kL1);
  CHECK(c.bandwidths[1].gbs == Approx(set.roof_bandwidth(Boundary::kDRAM)->boundary_gbs()));
  // A ridge for every applied roof and bandwidth: I* = P / B.
  CHECK(c.ridges.size() == 4);
  for (const ChartRidge& r : c.ridges) {
    const double bw = set.roof_bandwidth(r.boundary)->boundary_gbs();
    CHECK(r.intensity == Approx(r.gflops / bw));
  }
  // Domains hold every point, ridge and roof.
  for (const ChartRegion& r : c.regions) {
    CHECK(c.y.contains(r.gflops));
    for (const ChartPoint& pt : r.points) CHECK(c.x.contains(pt.intensity));
  }
  for (const ChartRidge& r : c.ridges) CHECK(c.x.contains(r.intensity));
  for (const ChartRoof& r : c.roofs) CHECK(c.y.contains(r.roof.gflops));
  CHECK(std::log10(c.x.hi / c.x.lo) >= 3 - 1e-9);
  CHECK(c.missing.empty());
  CHECK(c.ceiling_threads == 1);
  CHECK(c.conventions.front().find("FMA = 2 FLOPs") != std::string::npos);
  // Bigger share, bigger dot.
  CHECK(dot_radius(0.5) > dot_radius(0.1));
  CHECK(dot_radius(2) == dot_radius(1));
}

TEST_CASE("analysis: the chart's ceilings, chosen once for the regions the chart draws") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = sample_profile();
  // gemm on 2 threads: the 2-thread set (everything doubled) is chosen.
  p.regions[1].threads.push_back(p.regions[1].threads[0]);
  // A region with FLOPs but no bytes is not drawn: its 3 threads choose nothing.
  Region nobytes = rprof::test::counted_region({"nobytes"}, 1.0, 1e9, "scalar", {});
  nobytes.threads.resize(3, nobytes.threads[0]);
  p.regions.push_back(nobytes);
  const Analysis a = analyze(p, {&m, "", {}});
  CHECK(a.regions[0].charted);
  CHECK(a.regions[1].charted);
  CHECK_FALSE(a.regions[2].charted);  // init: no counters
  CHECK_FALSE(a.regions[3].charted);  // no bytes
  const ChartCeilings& c = a.machine.chart;
  CHECK(c.region_threads == 2);
  CHECK(c.threads == 2);
  CHECK(c.mode == "quick");
  CHECK(c.cpu_model == "Test CPU");
  // The roofs the regions are held against, one per label (stream's 256-bit
  // roof and full 512-bit roof, gemm's 512-bit roof, nobytes' scalar roof: it
  // has a valid roofline), each at the chart's set (2 threads): its figure and
  // how it was measured. stream ran on 1 thread (its own roofs 40 and 80), but
  // the chart states 2 threads, and gemm on 2 threads is held against 160, so
  // the 512-bit roof is drawn at 160, not at the first region's 80.
  REQUIRE(c.roofs.size() == 3);
  CHECK(c.roofs[0].roof.gflops == Approx(160));
  CHECK(c.roofs[0].roof.label() == "DP 512-bit fma");
  CHECK(c.roofs[1].roof.gflops == Approx(80));
  CHECK(c.roofs[2].roof.gflops == Approx(20));
  CHECK(a.regions[1].valid_roofline()->roof.gflops == Approx(c.roofs[0].roof.gflops));
  for (const ChartCeilingRoof& r : c.roofs) {
    CHECK(r.applied);
    REQUIRE(r.how);
    CHECK(r.how->threads == 2);
  }
  // L1 and DRAM carry traffic: load at L1 (800 GB/s explicit), triad's traffic
  // figure at DRAM (0.9 x 40 x 1.25 = 45 GB/s; STREAM's convention: load's 40).
  REQUIRE(c.bandwidths.size() == 2);
  CHECK(c.bandwidths[0].boundary == Boundary::kL1);
  CHECK(c.bandwidths[0].gbs == Approx(800));
  CHECK(c.bandwidths[1].boundary == Boundary::kDRAM);
  CHECK(c.bandwidths[1].gbs == Approx(45));
  CHECK(c.bandwidths[1].kernel == StreamMix::kTriad);
  CHECK(c.bandwidths[1].stream_gbs == Approx(40));
  CHECK(c.bandwidths[1].stream_kernel == StreamMix::kLoad);
  // 3 applied roofs x 2 bandwidths; DRAM's ridge of the 512-bit roof: 160 / 45.
  REQUIRE(c.ridges.size() == 6);
  CHECK(c.ridges[1].boundary == Boundary::kDRAM);
  CHECK(c.ridges[1].intensity == Approx(160.0 / 45));
  // The chart draws what the analysis chose.
  const ChartModel model = build_chart_model(a);
  CHECK(model.ceiling_threads == 2);
  CHECK(model.roofs.size() == 3);
  CHECK(model.ridges.size() == 6);
  CHECK(model.regions.size() == 2);
  CHECK(model.missing.size() == 1);  // nobytes: no point

  // Without a machine: no ceilings, the regions' threads still counted.
  const Analysis none = analyze(p, {});
  CHECK(none.machine.chart.threads == 0);
  CHECK(none.machine.chart.region_threads == 2);
  CHECK(none.machine.chart.roofs.empty());
}

TEST_CASE("chart model: what is missing is said, not drawn") {
  const Profile p = sample_profile();
  const ChartModel c = build_chart_model(analyze(p, {}));  // no machine
  CHECK(c.regions.size() == 2);  // points still placed from the counters
  CHECK(c.roofs.empty());
  REQUIRE(c.missing.size() == 1);
  CHECK(c.missing[0].find("no machine ceilings") != std::string::npos);

  Profile timing = rprof::test::profile_of({}, 1.0);
  timing.run.backend = "time";
  Region r;
  r.path = {"work"};
  r.name = "work";
  r.time_s = 1;
  timing.regions.push_back(r);
  const ChartModel t = build_chart_model(analyze(timing, {}));
  CHECK(t.regions.empty());
  REQUIRE_FALSE(t.missing.empty());
  CHECK(t.missing[0].find("no region has FLOP counts (backend time)") != std::string::npos);
  const std::string svg = render_svg(t, true);
  CHECK(svg.find("data-role=\"missing\"") != std::string::npos);
  CHECK(count(svg, "data-role=\"point\"") == 0);
}

// The label boxes an SVG drew (data-box="x y w h").
static std::vector<Box> label_boxes(const std::string& svg) {
  std::vector<Box> boxes;
  const std::regex box("data-box=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), box); it != std::sregex_iterator(); ++it) {
    Box b;
    std::istringstream((*it)[1].str()) >> b.x >> b.y >> b.w >> b.h;
    boxes.push_back(b);
  }
  return boxes;
}

TEST_CASE("svg: ceilings, dots and labels carry their numbers -- names are escaped") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = sample_profile();
  p.regions[1].name = "gemm<8>&co";
  p.regions[1].path = {"gemm<8>&co"};
  const ChartModel c = build_chart_model(analyze(p, {&m, "", {}}));
  const std::string svg = render_svg(c, true);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(render_svg(c, false).rfind("<svg", 0) == 0);
  CHECK(count(svg, "data-role=\"compute-ceiling\"") == c.roofs.size());
  CHECK(count(svg, "data-role=\"bandwidth-ceiling\"") == c.bandwidths.size());
  CHECK(count(svg, "data-role=\"ridge\"") == c.ridges.size());
  CHECK(count(svg, "data-role=\"region\"") == 2);
  CHECK(count(svg, "data-role=\"point\"") == 4);
  CHECK(count(svg, "data-role=\"label\"") == 2);
  CHECK(svg.find("gemm<8>") == std::string::npos);
  CHECK(svg.find(">gemm&lt;8&gt;&amp;co</text>") != std::string::npos);
  CHECK(std::stod(attr_of(svg, "data-role=\"bandwidth-ceiling\" data-boundary=\"dram\"",
                          "data-gbs")) ==
        Approx(m.nearest(1)->roof_bandwidth(Boundary::kDRAM)->boundary_gbs()));
  CHECK(std::stod(attr_of(svg, "data-region=\"stream\"", "data-gflops")) == Approx(1));
  CHECK(std::stod(attr_of(svg, "data-role=\"point\" data-boundary=\"dram\"", "data-intensity")) ==
        Approx(2e9 / 32e9).epsilon(1e-5));
  for (const char* unit : {"[FLOP/byte]", "[GFLOP/s]", "GB/s", "FMA = 2 FLOPs", "GB = 1e9 bytes"}) {
    CHECK(svg.find(unit) != std::string::npos);
  }
  // Labels of the two regions and of the two roofs: none over another.
  const std::vector<Box> boxes = label_boxes(svg);
  REQUIRE(boxes.size() == 4);
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) CHECK_FALSE(boxes[i].overlaps(boxes[j]));
  }
}

TEST_CASE("svg: many regions, labels for the 30 longest at most, none over another") {
  const Machine m = rprof::test::synthetic_machine();
  std::vector<Region> regions;
  // Spread over the plot: intensity 0.05 x 1.2^i, 20 to 100 GFLOP/s; r44
  // the longest, r0 the shortest.
  for (int i = 0; i < 45; ++i) {
    const double flops = 1e9 * (i + 1), time = 0.01 * (i + 1) * (1 + i % 5);
    regions.push_back(counted_region({"r" + std::to_string(i)}, time, flops, "256",
                                     {flops / (0.05 * std::pow(1.2, i)), 0, 0, 0}));
  }
  const Profile p = rprof::test::profile_of(regions, 20);
  const ChartModel c = build_chart_model(analyze(p, {&m, "", {}}));
  const std::string svg = render_svg(c, true);
  CHECK(count(svg, "data-role=\"region\"") == 45);
  const size_t labels = count(svg, "data-role=\"label\"");
  CHECK(labels <= 30);
  CHECK(labels >= 5);
  CHECK(svg.find(">r44</text>") != std::string::npos);  // the longest is labelled
  CHECK(svg.find(">r0</text>") == std::string::npos);   // the shortest only in a tooltip
  CHECK(svg.find("<title>r0</title>") != std::string::npos);
  // Every region is named by a label or counted as without one.
  const ChartLayout l = layout_chart(c);
  size_t named = 0;
  for (const RegionLabel& r : l.regions) named += r.regions.size();
  CHECK(named + l.unlabelled == 45);
  CHECK(std::stoul(attr_of(svg, "data-role=\"unlabelled\"", "data-count")) == l.unlabelled);
  // No two labels (regions, ceilings) overlap; all inside the plot.
  const std::vector<Box> boxes = label_boxes(svg);
  const Box plot{ChartLayout::kPlotX, l.plot_y, ChartLayout::kPlotW, ChartLayout::kPlotH};
  for (size_t i = 0; i < boxes.size(); ++i) {
    CHECK(boxes[i].inside(plot));
    for (size_t j = i + 1; j < boxes.size(); ++j) CHECK_FALSE(boxes[i].overlaps(boxes[j]));
  }
}

TEST_CASE("layout: roofs a few pixels apart share a label, close ones are offset") {
  ChartModel c;
  c.x = fit_log_axis(0.01, 100, 1, 3);
  c.y = fit_log_axis(1, 1000, 1, 3);
  auto roof = [](Width w, FlopMix mix, double g) { return ChartRoof{{Precision::kDP, w, mix, g}, true, ""}; };
  // Highest first: 78.28 and 71.22 lie 6 px apart, 58.59 and 58.19 under 1 px.
  c.roofs = {roof(Width::k512, FlopMix::kFmaAdd, 78.28), roof(Width::k256, FlopMix::kFmaAdd, 71.22),
             roof(Width::k256, FlopMix::kFma, 58.59), roof(Width::k256, FlopMix::kAddMul, 58.19)};
  const ChartLayout l = layout_chart(c);
  REQUIRE(l.roofs.size() == 3);
  CHECK(l.roofs[2].roofs == std::vector<size_t>{2, 3});
  CHECK(l.roofs[2].label.text == "DP 256-bit FMA 58.59 \u00b7 add/mul 58.19 GFLOP/s");
  CHECK(l.roofs[0].label.text == "DP 512-bit FMA+add 78.28 GFLOP/s");
  // Two roofs of one figure: the figure once.
  ChartModel same = c;
  same.roofs = {roof(Width::k512, FlopMix::kFma, 86.4), roof(Width::k256, FlopMix::kFma, 86.4)};
  const ChartLayout ls = layout_chart(same);
  REQUIRE(ls.roofs.size() == 1);
  CHECK(ls.roofs[0].label.text == "DP 512-bit FMA \u00b7 256-bit FMA 86.4 GFLOP/s");
  const Box plot{ChartLayout::kPlotX, l.plot_y, ChartLayout::kPlotW, ChartLayout::kPlotH};
  for (size_t i = 0; i < l.roofs.size(); ++i) {
    CHECK(l.roofs[i].label.at.box.inside(plot));
    for (size_t j = i + 1; j < l.roofs.size(); ++j) {
      CHECK_FALSE(l.roofs[i].label.at.box.overlaps(l.roofs[j].label.at.box));
    }
  }
  // The first above its line, the second (6 px lower) below its own.
  CHECK(l.roofs[0].label.at.box.y + l.roofs[0].label.at.box.h <= l.y.to_px(78.28));
  CHECK(l.roofs[1].label.at.box.y >= l.y.to_px(71.22));
}

TEST_CASE("chart model: an intensity far outside the others sits at the edge, off scale") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = sample_profile();
  // 2e9 FLOPs over 64 bytes at DRAM: 3.1e7 FLOP/byte; the others are below 100.
  p.regions.push_back(counted_region({"cached"}, 1.0, 2e9, "256", {30e9, 0, 0, 64}));
  const ChartModel c = build_chart_model(analyze(p, {&m, "", {}}));
  const ChartRegion& cached = c.regions.back();
  REQUIRE(cached.name == "cached");
  const ChartPoint& dram = cached.points.back();
  CHECK(dram.boundary == Boundary::kDRAM);
  CHECK(dram.off_scale == 1);
  CHECK(cached.points.front().off_scale == 0);
  CHECK(c.off_scale == 1);
  CHECK(c.x.hi < 1e4);  // the axis is set by the others
  CHECK_FALSE(c.x.contains(dram.intensity));
  for (const ChartRegion& r : c.regions) {
    for (const ChartPoint& pt : r.points) CHECK((pt.off_scale != 0 || c.x.contains(pt.intensity)));
  }
  const ChartLayout l = layout_chart(c);
  CHECK(l.point_x(dram) == Approx(ChartLayout::kPlotX + ChartLayout::kPlotW));
  REQUIRE(l.off_scale.size() == 1);
  CHECK(l.off_scale[0].label.text == "I DRAM 3.125e+07");
  const std::string svg = render_svg(c, true);
  CHECK(count(svg, "data-role=\"off-scale\"") == 1);
  CHECK(svg.find("far outside the others") != std::string::npos);  // the convention

  // A rate far above the roofs (a time of 1 ns): at the top edge, with its value.
  Profile fast = sample_profile();
  fast.regions.push_back(counted_region({"blip"}, 1e-9, 2e9, "256", {24e9, 0, 0, 32e9}));
  const ChartModel f2 = build_chart_model(analyze(fast, {&m, "", {}}));
  REQUIRE(f2.regions.back().name == "blip");
  CHECK(f2.regions.back().gflops_off_scale == 1);
  CHECK(f2.y.hi < 1e5);
  const ChartLayout l2 = layout_chart(f2);
  CHECK(l2.region_y(f2.regions.back()) == Approx(l2.plot_y));
  REQUIRE(l2.off_scale.size() == 1);
  CHECK(l2.off_scale[0].point == -1);
  CHECK(l2.off_scale[0].label.text == "2.000e+09 GFLOP/s");

  // Without ceilings the largest cluster sets the axis.
  const ValueSpan s = shown_span({0.1, 0.2, 0.5, 8e6}, {}, 3);
  CHECK(s.lo == Approx(0.1));
  CHECK(s.hi == Approx(0.5));
  CHECK(s.side(8e6) == 1);
  CHECK(s.side(0.3) == 0);
  // Fixed values (ridges) keep their cluster on the axis, however few.
  const ValueSpan f = shown_span({1e-6, 2e-6, 3e-6, 1.0}, {2.0}, 3);
  CHECK(f.lo == Approx(1.0));
  CHECK(f.side(1e-6) == -1);
}

TEST_CASE("chart model: regions of one name are told apart, regions at one point share a label") {
  const Machine m = rprof::test::synthetic_machine();
  std::vector<Region> regions;
  // A function, its marker and its loop: the same counts, one point.
  regions.push_back(counted_region({"matmul"}, 1.0, 8e9, "256", {40e9, 0, 0, 2e9}));
  regions.push_back(counted_region({"matmul", "matmul_naive()"}, 1.0, 8e9, "256", {40e9, 0, 0, 2e9}));
  regions.push_back(counted_region({"matmul", "matmul_naive()", "loop k.c:42"}, 1.0, 8e9, "256",
                                   {40e9, 0, 0, 2e9}));
  // The same loop name under two other functions, elsewhere on the chart.
  regions.push_back(counted_region({"a", "loop k.c:7"}, 0.5, 1e9, "256", {8e9, 0, 0, 4e9}));
  regions.push_back(counted_region({"b", "loop k.c:7"}, 0.2, 3e9, "256", {8e9, 0, 0, 1e9}));
  // A loop in a function called under two markers: parents of one name.
  regions.push_back(counted_region({"x", "f()", "loop k.c:9"}, 0.1, 2e9, "256", {8e9, 0, 0, 3e9}));
  regions.push_back(counted_region({"y", "f()", "loop k.c:9"}, 0.1, 4e9, "256", {8e9, 0, 0, 5e9}));
  const ChartModel c = build_chart_model(analyze(rprof::test::profile_of(regions, 3), {&m, "", {}}));
  REQUIRE(c.regions.size() == 7);
  CHECK(c.regions[5].label == "loop k.c:9 in x/f()");
  CHECK(c.regions[6].label == "loop k.c:9 in y/f()");
  CHECK(c.regions[0].label == "matmul");
  CHECK(c.regions[3].label == "loop k.c:7 in a");
  CHECK(c.regions[4].label == "loop k.c:7 in b");
  const ChartLayout l = layout_chart(c);
  bool shared = false;
  for (const RegionLabel& r : l.regions) {
    if (r.regions.size() != 3) continue;
    shared = true;
    CHECK(r.label.text == "matmul / matmul_naive() / loop k.c:42");
  }
  CHECK(shared);
  CHECK(l.unlabelled == 0);
}

TEST_CASE("html data: regions, roofline, conventions and verdicts when the analysis has them") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = sample_profile();
  // The analysis without verdicts: only the roofline.
  Analysis a = analyze(p, {&m, "/tmp/machine.json", {}});
  a.verdicts = false;
  for (RegionAnalysis& ra : a.regions) ra.verdict.reset();
  ChartModel c = build_chart_model(a);
  nlohmann::json d = html_report_data(a, c);
  REQUIRE(d["regions"].size() == 3);
  CHECK(d["verdicts_available"] == false);
  const auto& stream = d["regions"][0];
  CHECK(stream["verdict"].is_null());
  CHECK(stream["gflops"].get<double>() == Approx(1));
  CHECK(stream["bytes"]["dram"].get<double>() == Approx(32e9));
  CHECK(stream["intensity"]["l1"].get<double>() == Approx(2e9 / 24e9));
  CHECK(stream["roofline"]["limiting"] == "dram");
  CHECK(stream["roofline"]["boundaries"]["dram"]["bandwidth_gbs"].get<double>() ==
        Approx(m.nearest(1)->roof_bandwidth(Boundary::kDRAM)->boundary_gbs()));
  CHECK(d["regions"][2]["flops"].is_null());
  CHECK(d["machine"]["file"] == "/tmp/machine.json");
  CHECK(d["conventions"]["flops"].get<std::string>().find("FMA = 2 FLOPs") != std::string::npos);

  // The analysis' verdicts show in the data, as they are.
  a.verdicts = true;
  ShortFlagEvidence e;
  e.time_s = 2e-5;
  e.min_total_s = 1e-4;
  const VerdictFlag too_short(FlagKind::kTooShortSelfTime, e);
  for (RegionAnalysis& ra : a.regions) {
    if (ra.valid_roofline() == nullptr) continue;
    Verdict v;
    v.kind = VerdictKind::kNoRoofline;  // its words: "no roofline: " and why
    v.numbers = NoRooflineEvidence{SharedText(ra.region->name + " verdict")};
    v.flags.push_back(too_short);
    ra.verdict = v;
  }
  c = build_chart_model(a);
  d = html_report_data(a, c);
  CHECK(d["verdicts_available"] == true);
  CHECK(d["regions"][0]["verdict"]["summary"] == "no roofline: stream verdict");
  CHECK(d["regions"][0]["verdict"]["kind"] == "no-roofline");
  CHECK(d["regions"][0]["verdict"]["numbers"]["why_not"] == "stream verdict");
  CHECK(d["regions"][0]["verdict"]["flags"][0]["name"] == "too-short");
  CHECK(d["regions"][0]["verdict"]["flags"][0]["kind"] == "too-short-self-time");
  CHECK(d["regions"][0]["verdict"]["flags"][0]["numbers"]["time_s"] == 2e-5);
  CHECK(d["regions"][0]["verdict"]["flags"][0]["reason"] == flag_reason(too_short));
  CHECK(d["regions"][0]["verdict"]["flags"][0]["direction"] == flag_direction(too_short));
  CHECK(d["regions"][2]["verdict"].is_null());  // no roofline, no verdict
  REQUIRE(c.regions[0].verdict.has_value());

  // The page: one file, data block safe inside <script>, no external fetch.
  std::ostringstream html;
  Profile evil = p;
  evil.regions[0].name = "</script><script>alert(1)</script>";
  make_reporter("html")->write(analyze(evil, {&m, "", {}}), {}, html);
  const std::string page = html.str();
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("</script><script>alert(1)") == std::string::npos);
  CHECK(page.find("default-src 'none'") != std::string::npos);
  CHECK(page.find("@CSS@") == std::string::npos);
  CHECK(page.find("@LABJS@") == std::string::npos);
  CHECK(page.find("id=\"lab-intensity\"") != std::string::npos);
  CHECK(page.find("data-role=\"roofline-chart\"") != std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
}
