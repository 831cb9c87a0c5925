// One profile, one analysis, four writers: text, JSON, CSV and the HTML
// report's data block show the same numbers, because each renders the
// analysis and none computes its own.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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

// A function region (the function view) that sampling ran for and no sample
// hit: 2e6 FLOPs, 1e6 bytes at DRAM, a 1 ms period on 2 threads.
Region unsampled_function() {
  Region f = counted_region({"[program]", "tiny<int>(int)"}, 0, 2e6, "scalar",
                            {4e6, 0, 0, 1e6});
  f.calls = 0;
  f.threads.clear();
  f.fn_object = "/bin/app";
  f.fn_symbol = "_Z4tinyIiEvi";
  f.fn_source = "/src/app.cpp:12";
  f.fn_inclusive = f.counters;
  f.fn_sampled = true;
  f.fn_samples = 0;
  f.fn_period_s = 1e-3;
  f.fn_threads = 2;
  return f;
}

}  // namespace

TEST_CASE("a function no sample hit: every writer shows the same bounds, computed once") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = two_regions();
  p.regions.push_back(unsampled_function());
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  // The analysis: time < 1 ms x 2 threads, so >= 2e6 FLOPs / 2 ms = 1 GFLOP/s.
  const RegionAnalysis& ra = a.regions.back();
  REQUIRE(ra.time_bound);
  CHECK(ra.time_bound->max_time_s == Approx(2e-3));
  CHECK(*ra.time_bound->min_gflops == Approx(1.0));
  CHECK(*ra.time_bound->min_dram_gbs == Approx(0.5));
  REQUIRE(ra.valid_roofline());
  CHECK(ra.roofline->lower_bound);
  CHECK(ra.roofline->gflops == Approx(1.0));
  REQUIRE(ra.verdict);
  CHECK(ra.verdict->has(Flag::kTooShort));
  CHECK(!ra.verdict->has(Flag::kUnderutilized));
  // No sample: as for an uncertain time, no bound is claimed; the summary
  // gives the bounds on its time and rates.
  CHECK(ra.verdict->bound == Bound::kUnknown);
  CHECK(ra.verdict->kind == VerdictKind::kUncertainNoSample);
  REQUIRE(ra.verdict->as<UncertainEvidence>().min_gflops);
  CHECK(*ra.verdict->as<UncertainEvidence>().min_gflops == Approx(1.0));
  CHECK(ra.verdict->flag(Flag::kTooShort)->kind == FlagKind::kTooShortNoSample);
  // A marked region has none, nor a function a sample hit, nor one whose
  // times are simulated (no sampling: nothing to bound by).
  CHECK(!a.regions.front().time_bound);
  Profile q = two_regions();
  q.regions.push_back(unsampled_function());
  q.regions.back().fn_samples = 1;
  q.regions.back().time_s = q.regions.back().exclusive_time_s = 1e-3;
  q.regions.push_back(unsampled_function());
  q.regions.back().path.back() = q.regions.back().name = "simulated";
  q.regions.back().fn_sampled = false;
  const Analysis qa = analyze(q, {&m, "/tmp/m.json", {}});
  CHECK(!qa.regions[qa.regions.size() - 2].time_bound);
  CHECK(!qa.regions.back().time_bound);

  const json doc = json::parse(render(a, "json"));
  const json& j = region_of(doc["regions"], "tiny<int>(int)");
  CHECK(j["time_bound"]["max_time_s"].get<double>() == ra.time_bound->max_time_s);
  CHECK(j["time_bound"]["min_gflops"].get<double>() == *ra.time_bound->min_gflops);
  CHECK(j["roofline"]["lower_bound"] == true);
  CHECK(j["memory"]["lower_bound"] == true);
  CHECK(j["function"]["sampling"]["threads"] == 2);
  const json html = html_report_data(a, build_chart_model(a));
  const json& h = region_of(html["regions"], "tiny<int>(int)");
  CHECK(h["time_bound"] == j["time_bound"]);
  CHECK(h["roofline"]["lower_bound"] == true);
  CHECK(h["function"]["symbol"] == "void tiny<int>(int)");
  CHECK(h["calls"].is_null());
  // CSV: the bounds in their columns; the bandwidth columns stay empty.
  std::vector<std::string> header;
  const std::string csv = render(a, "csv");
  const std::vector<std::string> row = csv_row(csv, "[program]/tiny<int>(int)", &header);
  REQUIRE(row.size() == header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    INFO(header[i]);
    if (header[i] == "function_time_upper_bound_s") CHECK(std::stod(row[i]) == Approx(2e-3));
    if (header[i] == "function_gflops_lower_bound") CHECK(std::stod(row[i]) == Approx(1.0));
    if (header[i] == "function_dram_gbs_lower_bound") CHECK(std::stod(row[i]) == Approx(0.5));
    if (header[i] == "function_symbol") CHECK(row[i] == "void tiny<int>(int)");
    if (header[i] == "calls") CHECK(row[i].empty());  // a function's calls are not counted
    if (header[i].rfind("bw_", 0) == 0) CHECK(row[i].empty());
  }
  // Text: "< 0.002000" s, ">= 1" GFLOP/s, and the verdict's reason.
  const std::string text = render(a, "text");
  CHECK_THAT(text, Catch::Contains("< 0.002000"));
  CHECK_THAT(text, Catch::Contains(">= 1 "));
  CHECK_THAT(text, Catch::Contains("no cpu-clock sample hit it"));
  // SVG: hollow, with its arrow; the sampling facts survive profile.json.
  const std::string svg = render(a, "svg");
  CHECK_THAT(svg, Catch::Contains("data-lower-bound=\"true\""));
  CHECK_THAT(svg, Catch::Contains("data-role=\"lower-bound\""));
  const Profile back = profile_from_json(json::parse(profile_json_text(p)), "p.json");
  const Analysis again = analyze(back, {&m, "/tmp/m.json", {}});
  REQUIRE(again.regions.back().time_bound);
  CHECK(again.regions.back().time_bound->max_time_s == ra.time_bound->max_time_s);
}

TEST_CASE("text, JSON, CSV and HTML show the same numbers for one profile") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = two_regions();
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  const json doc = json::parse(render(a, "json"));
  const std::string text = rprof::test::unwrapped(render(a, "text"));
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

TEST_CASE("profile.json round trip: the writer's file, read back by the reader, is the profile") {
  const Machine m = rprof::test::synthetic_machine();
  Profile p = two_regions();
  // Names that need escaping, declared work, CPU time, --repeat times, threads
  // of two processes (a process spread) with a counter one of them lacks, a
  // function region with its sampling, marker errors, notes, missing ranks.
  Region odd = p.regions.back();
  odd.name = "q\"uote\\ \x01 caf\xc3\xa9";
  odd.path = {odd.name};
  odd.work_calls = 2;
  odd.work_flops = 1.5e9;
  odd.work_bytes = 3;
  odd.has_cpu_time = true;
  odd.cpu_time_s = 0.75;
  odd.repeat = {3, 0.9, 1.0, 1.2};
  ThreadRow t = odd.threads.front();
  t.host = "n\"1";
  t.pid = 7;
  t.rank = 1;
  t.time_s = 0.5;
  t.cpu_time_s = 0.25;
  t.counters["z.extra"] = 5;
  odd.threads.push_back(t);
  p.regions.push_back(odd);
  p.regions.push_back(unsampled_function());
  p.errors.push_back({"mismatched_end", "a", "b\n", 2, 7, 1});
  p.notes.push_back("a note");
  p.run.world_size = 4;
  p.run.missing_ranks = {2, 3};
  p.run.repeat = 3;
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  const std::string text = render(a, "json");
  namespace fs = std::filesystem;
  const fs::path dir = "test_writers_agree_scratch";
  fs::create_directories(dir);
  const std::string file = (dir / "profile.json").string();
  std::ofstream(file, std::ios::binary) << text;
  const Profile back = load_profile(file);

  REQUIRE(back.regions.size() == 4);
  CHECK(back.run.command == p.run.command);
  CHECK(back.run.wall_time_s == 4.0);
  CHECK(back.run.world_size == 4);
  CHECK(back.run.missing_ranks == std::vector<int>{2, 3});
  CHECK(back.run.repeat == 3);
  REQUIRE(back.errors.size() == 1);
  CHECK(back.errors[0].got == "b\n");
  CHECK(back.errors[0].count == 2);
  CHECK(back.notes == p.notes);
  CHECK(back.counters == p.counters);
  for (size_t i = 0; i < p.regions.size(); ++i) {
    const Region& w = p.regions[i];
    const Region& r = back.regions[i];
    INFO(w.name);
    CHECK(r.name == w.name);
    CHECK(r.path == w.path);
    CHECK(r.calls == w.calls);
    CHECK(r.time_s == w.time_s);
    CHECK(r.exclusive_time_s == w.exclusive_time_s);
    CHECK(r.counters == w.counters);
    CHECK(r.exclusive_counters == w.exclusive_counters);
    CHECK(r.has_cpu_time == w.has_cpu_time);
    CHECK(r.cpu_time_s == w.cpu_time_s);
    CHECK(r.work_flops == w.work_flops);
    CHECK(r.repeat.runs == w.repeat.runs);
    CHECK(r.repeat.max_s == w.repeat.max_s);
    CHECK(r.fn_symbol == w.fn_symbol);
    CHECK(r.fn_period_s == w.fn_period_s);
    CHECK(r.fn_threads == w.fn_threads);
    CHECK(r.fn_inclusive == w.fn_inclusive);
    REQUIRE(r.threads.size() == w.threads.size());
    for (size_t k = 0; k < w.threads.size(); ++k) {
      CHECK(r.threads[k].host == w.threads[k].host);
      CHECK(r.threads[k].pid == w.threads[k].pid);
      CHECK(r.threads[k].rank == w.threads[k].rank);
      CHECK(r.threads[k].time_s == w.threads[k].time_s);
      CHECK(r.threads[k].cpu_time_s == w.threads[k].cpu_time_s);
      for (const auto& [name, v] : w.threads[k].counters) {
        CHECK(r.threads[k].counters.at(name) == v);
      }
    }
  }
  CHECK(back.regions[2].process_spread().count == 2);
  // Thread rows are stored by column: a counter one row lacks reads as 0 there.
  CHECK(back.regions[2].threads[0].counters.at("z.extra") == 0);
  CHECK(back.regions[2].threads[1].counters.at("z.extra") == 5);
  // Everything written is read: the profile read back writes the same file,
  // the analysis' sections (recomputed) included.
  CHECK(render(analyze(back, {&m, "/tmp/m.json", {}}), "json") == text);
  CHECK(profile_json_text(back) == profile_json_text(p));
  // What no reader can get back is written as JSON allows: invalid UTF-8 as
  // U+FFFD, a NaN as null (which the reader then refuses, naming it).
  Profile bad = two_regions();
  bad.regions[0].name = bad.regions[0].path[0] = "x\xff";
  bad.regions[1].exclusive_time_s = std::nan("");
  const std::string bad_text = profile_json_text(bad);
  CHECK_THAT(bad_text, Catch::Contains("\"name\":\"x\xef\xbf\xbd\""));
  CHECK_THAT(bad_text, Catch::Contains("\"exclusive_time_s\":null"));
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bad_text;
  CHECK_THROWS_WITH(load_profile(file), Catch::Contains("regions[1].exclusive_time_s"));
}

TEST_CASE("reports: a region without FLOPs, a run without markers, the DRAM roof both ways") {
  const Machine m = rprof::test::synthetic_machine();
  // A copy: 0 FLOPs in 0.11 s, 16e8 bytes at DRAM (with write-allocate).
  Profile p = rprof::test::profile_of(
      {counted_region({"gemm"}, 1.0, 30e9, "256", {60e9, 0, 0, 1e9}),
       counted_region({"copy"}, 0.11, 0, "256", {1e9, 0, 0, 1.6e9})},
      4.0);
  p.regions.back().counters["flops.dp.256"] = 0;
  const Analysis a = analyze(p, {&m, "/tmp/m.json", {}});
  const std::string text = rprof::test::unwrapped(render(a, "text"));
  // Why there is no roofline is a note under the table, not a cell.
  CHECK_THAT(text, Catch::Contains("copy: no roofline: no floating-point operations counted"));
  for (std::istringstream in(text); !in.eof();) {
    std::string line;
    std::getline(in, line);
    if (line.rfind("copy ", 0) == 0) CHECK(line.find("no floating-point") == std::string::npos);
  }
  // The chart says why the copy has no point: its FLOPs, not its time.
  const ChartModel chart = build_chart_model(a);
  bool said = false;
  for (const std::string& s : chart.missing) {
    if (s.rfind("copy:", 0) == 0) {
      CHECK(s.find("no elapsed time") == std::string::npos);
      CHECK_THAT(s, Catch::Contains("0 FLOPs"));
      said = true;
    }
  }
  CHECK(said);
  // The DRAM roof both ways: with write-allocate (the fraction's) and STREAM's.
  // The copy's bytes are a third written: its roof is the best kernel's
  // (triad, 22.5), under the best read rate (load's 20) / (1 - 1/3) = 30.
  CHECK_THAT(text, Catch::Contains("DRAM roof (1 thread): 22.5 GB/s counting write-allocate, "
                                   "the best of any kernel (triad); for a region whose bytes "
                                   "there are a share w written, min(that, the best read rate "
                                   "20 GB/s (load kernel) / (1 - w)) (the % above); 20 GB/s in "
                                   "STREAM's convention, explicit bytes (load kernel)"));
  const json doc = json::parse(render(a, "json"));
  const json& dram = region_of(doc["regions"], "copy")["memory"]["boundaries"].back();
  CHECK(dram["boundary"] == "dram");
  CHECK(dram["roof_gbs"].get<double>() == Approx(22.5));
  CHECK(dram["roof_gbs_stream_convention"].get<double>() == Approx(20));
  CHECK(dram["write_share"].get<double>() == Approx(1.0 / 3).epsilon(1e-6));
  CHECK_FALSE(dram["roof_read_limited"].get<bool>());
  CHECK(dram["roof_kernel"] == "triad");
  // A run without marker data: no "0 processes, 0 threads with markers".
  p.run.processes = 0;
  p.run.threads = 0;
  const std::string none = render(analyze(p, {&m, "/tmp/m.json", {}}), "text");
  CHECK_THAT(none, Catch::Contains("backend sim, no markers, exit status 0"));
  CHECK_THAT(none, !Catch::Contains("0 processes"));
}
