// The chart, the HTML report and rprof diff through the built binary, on
// saved profiles whose counters are written here (as a counting backend
// writes them) and a machine file with round ceilings. The SVG is checked
// with xmllint: well-formed XML, and the ceilings, dots and labels read back
// with XPath from the data- attributes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

bool have_xmllint() { return run_command({"xmllint", "--version"}).status == 0; }

// XPath on an SVG file (xmllint --xpath); "" when it finds nothing.
std::string xpath(const std::string& file, const std::string& expr) {
  RunResult r = run_command({"xmllint", "--xpath", expr, file});
  if (r.status != 0) return "";
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}
double xpath_number(const std::string& file, const std::string& expr) {
  const std::string s = xpath(file, "number(" + expr + ")");
  return s.empty() ? NAN : std::stod(s);
}

// The recorded default machine with round ceilings: every DP/SP peak
// 100 GFLOP/s at 512-bit (10 below), bandwidth L1 400, L2/LLC 100, DRAM 20 GB/s.
const std::string& round_machine() {
  static const std::string path = [] {
    const std::string dir = fresh_dir("machine");
    json m = load_json(machine_file(default_machine()));
    for (json& set : m["ceilings"]) {
      for (json& pk : set["peaks"]) pk["gflops"] = pk["width"] == "512" ? 100.0 : 10.0;
      for (json& b : set["bandwidth"]) {
        const double g = b["boundary"] == "l1" ? 400.0 : b["boundary"] == "dram" ? 20.0 : 100.0;
        b["gbs"] = g;
        b["traffic_gbs"] = g;
      }
    }
    write_text(dir + "/machine.json", m.dump());
    return dir + "/machine.json";
  }();
  return path;
}

// Sets a region's time and canonical counters in a saved profile.
void set_counters(json& profile, const std::string& path, double time_s, const json& counters) {
  for (json& reg : profile["regions"]) {
    std::string p;
    for (const json& s : reg["path"]) p += (p.empty() ? "" : "/") + s.get<std::string>();
    if (p != path) continue;
    reg["time_s"] = time_s;
    reg["counters"] = counters;
    return;
  }
  FAIL("no region " << path);
}

// daxpy with 2e9 DP FLOPs (512-bit) and 24e9 bytes at L1 and DRAM in 0.5 s.
std::string daxpy_profile() {
  static const std::string path = [] {
    const RunResult run = run_rprof({"--backend=time", sample("daxpy"), "1000", "3"});
    REQUIRE(run.status == 0);
    json p = load_json(run.dir + "/profile.json");
    set_counters(p, "daxpy", 0.5,
                 {{"flops.dp.512", 2000000000},
                  {"bytes.l1.read", 16000000000},
                  {"bytes.l1.write", 8000000000},
                  {"bytes.dram.read", 16000000000},
                  {"bytes.dram.write", 8000000000}});
    p["run"]["backend"] = "sim";
    const std::string file = fresh_dir("daxpy") + "/profile.json";
    write_text(file, p.dump());
    return file;
  }();
  return path;
}

}  // namespace

TEST_CASE("plot: a well-formed SVG with the ceilings, dots and labels of the profile") {
  if (!have_xmllint()) FAIL("xmllint is missing: scripts/install-deps.sh installs libxml2-utils");
  const std::string svg = fresh_dir("plot") + "/roofline.svg";
  const RunResult r = run_tool({"plot", daxpy_profile(), "-o", svg, "--machine", round_machine()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("written to " + svg) != std::string::npos);
  const RunResult lint = run_command({"xmllint", "--noout", svg});
  INFO(lint.err);
  REQUIRE(lint.status == 0);
  // The compute roof that applies (512-bit DP, 100 GFLOP/s) and one bandwidth
  // line per boundary with traffic, with their ridges I* = P / B.
  CHECK(xpath_number(svg, "//*[@data-role='compute-ceiling'][starts-with(@data-label,'DP 512-bit')]/@data-gflops") == Approx(100));
  CHECK(xpath_number(svg, "count(//*[@data-role='bandwidth-ceiling'])") == 2);
  CHECK(xpath_number(svg, "//*[@data-role='bandwidth-ceiling'][@data-boundary='dram']/@data-gbs") == Approx(20));
  CHECK(xpath_number(svg, "//*[@data-role='bandwidth-ceiling'][@data-boundary='l1']/@data-gbs") == Approx(400));
  CHECK(xpath_number(svg, "//*[@data-role='ridge'][@data-boundary='dram']/@data-intensity") == Approx(100.0 / 20));
  CHECK(xpath_number(svg, "//*[@data-role='ridge'][@data-boundary='l1']/@data-intensity") == Approx(100.0 / 400));
  // daxpy: one dot per boundary at I = 2e9 / 24e9, 4 GFLOP/s, DRAM limiting.
  const std::string region = "//*[@data-role='region'][@data-region='daxpy']";
  CHECK(xpath_number(svg, region + "/@data-gflops") == Approx(4));
  CHECK(xpath_number(svg, "count(" + region + "/*[@data-role='point'])") == 2);
  CHECK(xpath_number(svg, region + "/*[@data-role='point'][@data-boundary='dram']/@data-intensity") ==
        Approx(2.0 / 24).epsilon(1e-5));
  CHECK(xpath(svg, "string(" + region + "/*[@data-role='point'][@data-limiting='true']/@data-boundary)") == "dram");
  CHECK(xpath(svg, "string(" + region + "/*[@data-role='label'])") == "daxpy");
  CHECK(xpath_number(svg, "count(//*[@data-role='region'])") == 1);  // init has no counters
  // Axes with units and decade ticks; the conventions on the chart itself.
  CHECK(xpath(svg, "string(//*[@data-role='x-axis-label'])") == "Arithmetic intensity [FLOP/byte]");
  CHECK(xpath(svg, "string(//*[@data-role='y-axis-label'])") == "Performance [GFLOP/s]");
  CHECK(xpath_number(svg, "count(//*[@data-role='x-tick'][@data-value='1'])") == 1);
  CHECK(xpath_number(svg, "count(//*[@data-role='y-tick'][@data-value='10'])") == 1);
  const std::string conventions = xpath(svg, "string(//*[@data-role='conventions'])");
  CHECK(conventions.find("FMA = 2 FLOPs") != std::string::npos);
  CHECK(conventions.find("GB = 1e9 bytes") != std::string::npos);
  CHECK(conventions.find("1 thread") != std::string::npos);
  // The same chart on stdout.
  const RunResult out = run_tool({"plot", daxpy_profile(), "-o", "-", "--machine", round_machine()});
  CHECK(out.out == read_text(svg));
}

TEST_CASE("plot and report: bad input gives one line and a non-zero exit") {
  const std::string dir = fresh_dir("badplot");
  write_text(dir + "/cut.json", read_text(daxpy_profile()).substr(0, 200));
  const RunResult timing = run_rprof({"--backend=time", sample("daxpy"), "1000", "1"});
  REQUIRE(timing.status == 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"plot", dir + "/missing.json"}, "missing.json"},
      {{"plot", dir + "/cut.json"}, "cut.json"},
      {{"plot", timing.dir}, "no region has FLOP counts (backend time)"},
      {{"report", dir + "/cut.json", "--format", "html"}, "cut.json"},
      {{"report", timing.dir, "--format", "pdf"}, "pdf"},
      {{"plot"}, "profile"},
  };
  for (const auto& [args, why] : cases) {
    const RunResult r = run_tool(args);
    INFO(args.front() << " " << args.back() << ": " << r.err);
    CHECK(r.status != 0);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("rprof: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(why) != std::string::npos);
  }
  CHECK_FALSE(fs::exists("roofline.svg"));  // nothing written on failure
}

TEST_CASE("rprof ./app writes roofline.svg and report.html, which say what is missing") {
  const RunResult r = run_rprof({"--backend=time", sample("daxpy"), "1000", "2"});
  REQUIRE(r.status == 0);
  for (const char* f : {"profile.json", "report.txt", "roofline.svg", "report.html"}) {
    INFO(f);
    CHECK(fs::exists(r.dir + "/" + f));
  }
  CHECK(r.err.find("open " + r.dir + "/report.html") != std::string::npos);
  if (have_xmllint()) {
    const std::string svg = r.dir + "/roofline.svg";
    CHECK(run_command({"xmllint", "--noout", svg}).status == 0);
    CHECK(xpath(svg, "string(//*[@data-role='missing'])").find("FLOP counts") != std::string::npos);
  }
  const std::string html = read_text(r.dir + "/report.html");
  CHECK(html.find("\"name\":\"daxpy\"") != std::string::npos);
  CHECK(html.find("no region has FLOP counts") != std::string::npos);
}

TEST_CASE("report --format html|svg -o FILE writes the same as rprof ./app would") {
  const std::string dir = fresh_dir("reporthtml");
  RunResult r = run_tool({"report", daxpy_profile(), "--machine", round_machine(), "--format", "html",
                          "-o", dir + "/r.html"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string html = read_text(dir + "/r.html");
  CHECK(html.find("data-role=\"roofline-chart\"") != std::string::npos);
  CHECK(html.find("\"limiting\":\"dram\"") != std::string::npos);
  CHECK(html.find("id=\"lab-reset\"") != std::string::npos);
  r = run_tool({"report", daxpy_profile(), "--machine", round_machine(), "--format", "svg"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("data-region=\"daxpy\"") != std::string::npos);
}

TEST_CASE("diff: fused vs unfused samples, the seed's check of a transformation") {
  // Real runs of samples/fusion.c; the counters a counting backend would
  // give (see the sample's comment) are written into the saved profiles.
  const double n = 200000, reps = 2;
  auto run = [&](const char* mode, double l1_per_elem, double dram_per_elem) {
    const RunResult r = run_rprof({"--backend=time", sample("fusion"), mode, "200000", "2"});
    REQUIRE(r.status == 0);
    json p = load_json(r.dir + "/profile.json");
    double time_s = 0;
    for (const json& reg : p["regions"]) {
      if (reg["name"] == "sweep") time_s = reg["time_s"].get<double>();
    }
    REQUIRE(time_s > 0);
    auto bytes = [&](double per_elem) { return static_cast<uint64_t>(per_elem * n * reps); };
    set_counters(p, "sweep", time_s,
                 {{"flops.dp.scalar", bytes(2)},
                  {"bytes.l1.read", bytes(l1_per_elem * 2 / 3)},
                  {"bytes.l1.write", bytes(l1_per_elem / 3)},
                  {"bytes.dram.read", bytes(dram_per_elem / 2)},
                  {"bytes.dram.write", bytes(dram_per_elem / 2)}});
    const std::string file = fresh_dir(mode) + "/profile.json";
    write_text(file, p.dump());
    return std::make_pair(file, time_s);
  };
  const auto [before, t_before] = run("unfused", 40, 56);
  const auto [after, t_after] = run("fused", 24, 32);

  RunResult r = run_tool({"diff", before, after, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json d = json::parse(r.out);
  CHECK(d["format"] == "rprof-diff");
  json sweep;
  for (const json& reg : d["regions"]) {
    if (reg["path_string"] == "sweep") sweep = reg;
  }
  REQUIRE(sweep.is_object());
  CHECK(sweep["presence"] == "both");
  CHECK(sweep["bytes"]["dram"]["ratio"].get<double>() == Approx(32.0 / 56));
  CHECK(sweep["bytes"]["dram"]["change"].get<double>() == Approx(-24 * n * reps));
  CHECK(sweep["bytes"]["l1"]["ratio"].get<double>() == Approx(24.0 / 40));
  CHECK(sweep["flops"]["ratio"].get<double>() == Approx(1));
  CHECK(sweep["intensity"]["dram"]["ratio"].get<double>() == Approx(56.0 / 32));
  CHECK(sweep["time_s"]["before"].get<double>() == Approx(t_before));
  CHECK(sweep["time_s"]["after"].get<double>() == Approx(t_after));
  CHECK(sweep["declared_bytes"]["ratio"].get<double>() == Approx(1));  // same ideal work
  std::vector<std::string> gone = d["only_before"];
  std::sort(gone.begin(), gone.end());
  CHECK(gone == std::vector<std::string>{"sweep/add", "sweep/scale"});
  CHECK(d["only_after"] == json({"sweep/scale_add"}));

  r = run_tool({"diff", before, after});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Bytes DRAM [GB]") != std::string::npos);
  CHECK(r.out.find("x0.5714 (-42.9%)") != std::string::npos);  // 32/56 of the bytes
  CHECK(r.out.find("x1.75 (+75.0%)") != std::string::npos);     // intensity up 56/32
  CHECK(r.out.find("Only in before (matched by path):") != std::string::npos);
  CHECK(r.out.find("FMA = 2 FLOPs") != std::string::npos);

  // Bad input: one line, non-zero.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", before}, {"diff", before, "/nonexistent/profile.json"},
        {"diff", before, after, "--format", "xml"}}) {
    const RunResult bad = run_tool(args);
    INFO(bad.err);
    CHECK(bad.status != 0);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  }
}
