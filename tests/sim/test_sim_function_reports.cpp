// The function view in every report (issue 14's leftovers): a function
// region carries what an engineer needs to find it (symbol, demangled where
// it is C++; object; source file:line; self and inclusive counts) in the
// CSV, the HTML and the SVG as in profile.json and the text report.
// Programs: tests/sim/functions.c (functions_plain, C, -O2 -g) and
// tests/sim/functions_cpp.cpp (C++, -O2 -g), both without rprof.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

const char* const kCaches = "l1=32K:8:64,l2=256K:8:64,llc=2M:16:64";
constexpr uint64_t kN = 4096;  // the size passed to functions.c
constexpr uint64_t kCppN = 4096, kCppReps = 16;
const char* const kCppDot = "double kern::dot<double>(double const*, double const*, int)";

RunResult run_functions(const std::vector<std::string>& cmd, bool sim_only = true) {
  std::vector<std::string> args = {"--backend=sim", "-q", "--sim-cache", kCaches,
                                   "--functions=1000"};
  if (sim_only) args.insert(args.begin() + 1, "--sim-only");
  args.insert(args.end(), cmd.begin(), cmd.end());
  const RunResult r = run_rprof(args, {test_machine_env()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r;
}

std::string report(const std::string& dir, const std::string& format) {
  const RunResult r =
      run_command({RPROF_BIN, "report", dir, "--format", format}, {test_machine_env()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

// One CSV record into fields (RFC 4180 quoting; no newlines inside fields
// in these tests).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The CSV as rows keyed by path, each a map from column name to cell.
std::map<std::string, std::map<std::string, std::string>> csv_rows(const std::string& csv) {
  std::map<std::string, std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  size_t at = 0;
  while (at < csv.size()) {
    const size_t nl = csv.find('\n', at);
    const std::string line = csv.substr(at, nl == std::string::npos ? nl : nl - at);
    at = nl == std::string::npos ? csv.size() : nl + 1;
    const std::vector<std::string> f = csv_fields(line);
    if (header.empty()) {
      header = f;
      continue;
    }
    REQUIRE(f.size() == header.size());
    auto& row = rows[f[0]];
    for (size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
  }
  return rows;
}

uint64_t csv_flops(const std::map<std::string, std::string>& row) {
  uint64_t sum = 0;
  for (const auto& [k, v] : row) {
    if (k.rfind("flops.", 0) == 0 && !v.empty()) sum += std::stoull(v);
  }
  return sum;
}

// Checks that `where` is "<source>:<line>" with the line inside the function
// that starts at the line holding `needle` (the tool gives the line of the
// function's entry address: its first statement's, at -O2).
void check_source(const std::string& where, const std::string& source, const std::string& needle) {
  INFO(where << " should be a line of " << source << " in the function at \"" << needle << "\"");
  REQUIRE(where.rfind(source + ":", 0) == 0);
  const unsigned line = static_cast<unsigned>(std::stoul(where.substr(source.size() + 1)));
  std::ifstream in(source);
  std::string text;
  unsigned first = 0, last = 0;
  for (unsigned n = 1; std::getline(in, text); ++n) {
    if (first == 0 && text.find(needle) != std::string::npos) first = n;
    if (first != 0 && last == 0 && text == "}") last = n;
  }
  REQUIRE(first > 0);
  CHECK(line >= first);
  CHECK(line < last);
}

std::string printf_num(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}
// As the reports print numbers ({:.4g}, {:.6f}).
std::string fmt_4g(double v) { return printf_num("%.4g", v); }
std::string fixed6(double v) { return printf_num("%.6f", v); }

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("sim function reports: the CSV row of a C function has its exact FLOPs, symbol and file:line") {
  require_sim_backend();
  const RunResult r = run_functions({sim_test_program("functions_plain"), std::to_string(kN)});
  const auto rows = csv_rows(report(r.dir, "csv"));
  REQUIRE(rows.count("[program]/dot"));
  const auto& dot = rows.at("[program]/dot");
  // dot runs twice (from main and from dot_and_sum): 2 x 2N FLOPs, its self
  // and its inclusive counts alike (it calls nothing).
  CHECK(csv_flops(dot) == 4 * kN);
  CHECK(dot.at("function_symbol") == "dot");
  check_source(dot.at("function_source"), std::string(RPROF_SIM_TEST_SRC_DIR) + "/functions.c",
               "NOINLINE double dot(");
  CHECK(dot.at("function_object").find("functions_plain") != std::string::npos);
  CHECK(dot.at("function_inclusive_flops") == std::to_string(4 * kN));
  CHECK(!dot.at("function_inclusive_dram_bytes").empty());  // 0 is a count
  // Self vs inclusive: dot_and_sum's own add, and with its callees one dot
  // and one sum_f.
  const auto& both = rows.at("[program]/dot_and_sum");
  CHECK(csv_flops(both) == 1);
  CHECK(both.at("function_inclusive_flops") == std::to_string(2 * kN + kN + 1));
  // Not a function: empty cells.
  const auto& prog = rows.at("[program]");
  for (const char* col : {"function_symbol", "function_object", "function_source",
                          "function_inclusive_flops", "function_inclusive_dram_bytes"}) {
    INFO(col);
    CHECK(prog.at(col).empty());
  }
  // The text report: the source as file:line in the Functions table, the
  // object named once below it.
  const std::string text = report(r.dir, "text");
  CHECK(text.find("Functions (self = ") != std::string::npos);
  const std::string source = dot.at("function_source");
  CHECK(text.find(source.substr(source.rfind('/') + 1)) != std::string::npos);
  CHECK(text.find(dot.at("function_object")) != std::string::npos);
}

TEST_CASE("sim function reports: a C++ function is shown demangled, and escaped in the HTML and SVG") {
  require_sim_backend();
  const RunResult r = run_functions({sim_test_program("functions_cpp"), std::to_string(kCppN),
                                     std::to_string(kCppReps)});
  const json p = load_json(r.dir + "/profile.json");
  const std::string path = std::string("[program]/") + kCppDot;
  const json dot = find_region(p, path);
  REQUIRE(dot.is_object());
  CHECK(all_flops(dot) == 2 * kCppN * kCppReps);
  CHECK(dot["function"]["symbol"] == "_ZN4kern3dotIdEET_PKS1_S3_i");  // raw in profile.json

  const auto rows = csv_rows(report(r.dir, "csv"));
  REQUIRE(rows.count(path));
  const auto& row = rows.at(path);
  CHECK(csv_flops(row) == 2 * kCppN * kCppReps);
  CHECK(row.at("function_symbol") == kCppDot);
  check_source(row.at("function_source"),
               std::string(RPROF_SIM_TEST_SRC_DIR) + "/functions_cpp.cpp", "NOINLINE T dot(");

  // HTML: the symbol in the data block with <, > and & as \u escapes (the
  // page shows it as text), and in the chart's markup as entities; never raw.
  const std::string html = read_text(r.dir + "/report.html");
  CHECK(html.find("kern::dot<double>") == std::string::npos);
  CHECK(html.find("\"symbol\":\"double kern::dot\\u003cdouble\\u003e(double const*, double const*, "
                  "int)\"") != std::string::npos);
  CHECK(html.find("data-symbol=\"double kern::dot&lt;double&gt;(double const*, double const*, "
                  "int)\"") != std::string::npos);
  // SVG: the region's data attributes and its tooltip say where it is.
  const std::string svg = read_text(r.dir + "/roofline.svg");
  CHECK(svg.find("kern::dot<double>") == std::string::npos);
  CHECK(count_of(svg, "function double kern::dot&lt;double&gt;(double const*, double const*, "
                      "int) at " + row.at("function_source")) >= 1);
  CHECK(svg.find("data-source=\"" + row.at("function_source") + "\"") != std::string::npos);
}

TEST_CASE("sim function reports: a function no sample hit has a bound on its time and on its rates") {
  require_sim_backend();
  // The kernel runs long enough natively for cpu-clock samples (about 10 ms);
  // tiny() runs for nanoseconds, between two samples.
  constexpr uint64_t kReps = 5000;
  const RunResult r = run_functions({sim_test_program("functions_cpp"), std::to_string(kCppN),
                                     std::to_string(kReps)},
                                    /*sim_only=*/false);
  const json report_json = json::parse(report(r.dir, "json"));
  for (const json& n : report_json["notes"]) {
    if (n.get<std::string>().find("times are simulated") != std::string::npos) {
      skip_test("cpu-clock sampling is refused here: " + n.get<std::string>());
    }
  }
  const std::string tiny_path = "[program]/tiny(double const*)";
  const json tiny = find_region(report_json, tiny_path);
  REQUIRE(tiny.is_object());
  CHECK(all_flops(tiny) == 16);  // exact, whatever its time
  REQUIRE(tiny["function"].contains("sampling"));
  const json& sampling = tiny["function"]["sampling"];
  if (sampling["samples"].get<uint64_t>() > 0) {
    skip_test("a cpu-clock sample hit tiny() (nanoseconds of 250 us periods): run again");
  }
  const double period = sampling["period_s"].get<double>();
  const unsigned threads = sampling["threads"].get<unsigned>();
  CHECK(period > 0);
  CHECK(threads == 1);  // one thread ran the program
  // The bound: one period per thread; the rates at it are lower bounds.
  REQUIRE(tiny.contains("time_bound"));
  const json& b = tiny["time_bound"];
  const double max_time = b["max_time_s"].get<double>();
  CHECK(max_time == Approx(period * threads).epsilon(1e-12));
  const double min_gflops = b["min_gflops"].get<double>();
  CHECK(min_gflops == Approx(16 / max_time / 1e9).epsilon(1e-12));
  CHECK(tiny["time_s"].get<double>() == 0);  // measured: no sample
  REQUIRE(tiny.contains("roofline"));
  CHECK(tiny["roofline"]["available"] == true);
  CHECK(tiny["roofline"]["lower_bound"] == true);
  CHECK(tiny["roofline"]["gflops"].get<double>() == Approx(min_gflops).epsilon(1e-12));
  // The verdict: too-short, saying why with its numbers; no bound claimed
  // (as for any uncertain function time), the roofline keeps what the counts
  // say.
  REQUIRE(tiny.contains("verdict"));
  CHECK(tiny["verdict"]["bound"] == "unknown");
  CHECK(tiny["verdict"]["kind"] == "uncertain-no-sample");
  json too_short;
  for (const json& f : tiny["verdict"]["flags"]) {
    if (f["name"] == "too-short") too_short = f;
  }
  INFO(too_short.dump());
  REQUIRE(too_short.is_object());
  CHECK(too_short["kind"] == "too-short-no-sample");
  CHECK(too_short["numbers"]["max_time_s"].get<double>() == Approx(max_time).epsilon(1e-12));
  CHECK(too_short["numbers"]["min_gflops"].get<double>() == Approx(min_gflops).epsilon(1e-12));
  // The kernel was sampled: a measured time, no bound.
  const json dot = find_region(report_json, std::string("[program]/") + kCppDot);
  REQUIRE(dot.is_object());
  CHECK(dot["function"]["sampling"]["samples"].get<uint64_t>() > 0);
  CHECK(!dot.contains("time_bound"));
  CHECK(dot["roofline"]["lower_bound"] == false);

  // CSV: the bound columns, and no bandwidth as if it were measured.
  const auto rows = csv_rows(report(r.dir, "csv"));
  const auto& row = rows.at(tiny_path);
  CHECK(csv_flops(row) == 16);
  CHECK(std::stod(row.at("function_time_upper_bound_s")) == Approx(max_time).epsilon(1e-8));
  CHECK(std::stod(row.at("function_gflops_lower_bound")) == Approx(min_gflops).epsilon(1e-8));
  CHECK(row.at("bw_l1_gbs").empty());
  CHECK(rows.at(std::string("[program]/") + kCppDot).at("function_time_upper_bound_s").empty());
  // Text: "< T" for its time, ">= G" for its GFLOP/s.
  const std::string text = report(r.dir, "text");
  CHECK(text.find("< " + fixed6(max_time)) != std::string::npos);
  CHECK(text.find(">= " + fmt_4g(min_gflops)) != std::string::npos);
  // HTML: the bound in the data block; SVG: a hollow dot with an arrow up.
  CHECK(read_text(r.dir + "/report.html").find("\"time_bound\":{") != std::string::npos);
  const std::string svg = read_text(r.dir + "/roofline.svg");
  const size_t g = svg.find("data-path=\"[program]/tiny(double const*)\"");
  REQUIRE(g != std::string::npos);
  const std::string group = svg.substr(g, svg.find("</g>", g) - g);
  CHECK(group.find("data-lower-bound=\"true\"") != std::string::npos);
  CHECK(group.find("data-role=\"lower-bound\"") != std::string::npos);
  CHECK(group.find("FLOP/byte, &gt;= ") != std::string::npos);
}
