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
  // The text report: symbol, source and object in the Functions table.
  const std::string text = report(r.dir, "text");
  CHECK(text.find("Functions (self = ") != std::string::npos);
  CHECK(text.find(dot.at("function_source")) != std::string::npos);
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
