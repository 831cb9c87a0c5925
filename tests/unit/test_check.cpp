// rprof check's parts on synthetic profiles: the TOML reader, the
// rules file (TOML and JSON alike, every mistake refused with its place),
// region path patterns, rules against an analysis, the baseline comparison
// (noise against a changed program) and the JUnit and GitHub outputs.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/error.h"
#include "common/toml_file.h"
#include "machine_fixture.h"
#include "report/check_baseline.h"
#include "report/check_report.h"
#include "report/check_rules.h"
#include "report_fixture.h"

using namespace rprof;
using rprof::test::counted_region;

namespace {

// The message of the Error (exit code 2) that f throws.
template <typename F>
std::string bad_input(F f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  FAIL("no error");
  return "";
}

constexpr double kN = 1e6;

// A daxpy of 2n FLOPs and 24n bytes at L1 and DRAM, 0.1 s, and an init.
Profile run(double n = kN, double time_s = 0.1) {
  return rprof::test::profile_of(
      {counted_region({"daxpy"}, time_s, 2 * n, "256", {24 * n, 0, 0, 24 * n}),
       counted_region({"daxpy", "inner"}, time_s / 2, n, "256", {12 * n, 0, 0, 12 * n}),
       counted_region({"init"}, 0.01, 0, "scalar", {16 * n, 0, 0, 0})},
      0.2);
}

const CheckItem* failed_item(const std::vector<CheckItem>& items, const std::string& check) {
  for (const CheckItem& it : items) {
    if (it.failed && it.check == check) return &it;
  }
  return nullptr;
}

size_t failures(const std::vector<CheckItem>& items) {
  size_t n = 0;
  for (const CheckItem& it : items) n += it.failed;
  return n;
}

}  // namespace

TEST_CASE("toml: tables, arrays of tables, values, lines, and errors that name line and column") {
  const TomlDocument d = parse_toml(
      "# rules\ntitle = 'gate'\n\n[[rule]]\nregion = \"a/b\"  # comment\nn = 1_000\n"
      "x = -2.5e-1\nok = true\nflags = [\"x\", 'y']\n[[rule]]\n\"quoted key\" = \"\\u00e9\\t\"\n"
      "when = 1979-05-27\n[opts]\nk = false\n",
      "t.toml");
  CHECK(d.root["title"] == "gate");
  REQUIRE(d.root["rule"].size() == 2);
  CHECK(d.root["rule"][0]["region"] == "a/b");
  CHECK(d.root["rule"][0]["n"] == 1000);
  CHECK(d.root["rule"][0]["x"].get<double>() == -0.25);
  CHECK(d.root["rule"][0]["ok"] == true);
  CHECK(d.root["rule"][0]["flags"] == nlohmann::json({"x", "y"}));
  CHECK(d.root["rule"][1]["quoted key"] == "\xc3\xa9\t");
  CHECK(d.root["rule"][1]["when"] == "1979-05-27");  // a date: its text, never a number
  CHECK(d.root["opts"]["k"] == false);
  CHECK(d.table_lines.at("rule") == std::vector<int>{4, 10});
  CHECK(d.key_lines.at("rule")[0].at("region") == 5);
  CHECK(d.key_lines.at("rule")[0].at("flags") == 9);
  CHECK(d.key_lines.at("rule")[1].at("when") == 12);

  // Each error: "r.toml:LINE:COLUMN: " then toml++'s description, one line.
  auto err = [](const std::string& text) {
    return bad_input([&] { parse_toml(text, "r.toml"); });
  };
  const std::pair<const char*, const char*> bad[] = {
      {"k = \"open", "r.toml:1:"},          {"k = 1\nk = 2", "r.toml:2:"},
      {"\n\nk = [1,", "r.toml:3:"},         {"[t]\n[t]", "r.toml:2:"},
      {"k = 1 2", "r.toml:1:"},              {"k = \"\\q\"", "r.toml:1:"},
      {"\n[[rule]]\nregion = ", "r.toml:3:"}};
  for (const auto& [text, where] : bad) {
    INFO(text);
    const std::string e = err(text);
    CHECK_THAT(e, Catch::StartsWith(where));
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE(
    "rules file: TOML and JSON give the same rules, and mistakes are refused, never ignored") {
  const RuleSet t = parse_rules(
      "[[rule]]\nregion = \"**/daxpy\"\nmin_fraction_of_roof = 0.5\nbound = \"memory\"\n"
      "boundary = \"dram\"\nflags_absent = [\"latency-bound\", \"too-short\"]\n"
      "flops = 2000000\nbytes_dram = 24000000\ncount_tolerance = 0.01\n",
      "r.toml", false);
  const RuleSet j = parse_rules(
      R"({"rule": [{"region": "**/daxpy", "min_fraction_of_roof": 0.5, "bound": "memory",
          "boundary": "DRAM", "flags_absent": ["latency-bound", "too-short"],
          "flops": 2e6, "bytes_dram": 2.4e7, "count_tolerance": 0.01}]})",
      "r.json", true);
  for (const RuleSet* s : {&t, &j}) {
    REQUIRE(s->rules.size() == 1);
    const Rule& r = s->rules[0];
    CHECK(r.region == "**/daxpy");
    CHECK(*r.min_fraction == 0.5);
    CHECK(*r.bound == Bound::kMemory);
    CHECK(*r.boundary == Boundary::kDRAM);
    CHECK(r.flags_absent == std::vector<Flag>{Flag::kLatencyBound, Flag::kTooShort});
    CHECK(*r.flops == 2e6);
    CHECK(*r.bytes[3] == 2.4e7);
    CHECK_FALSE(r.bytes[0].has_value());
    CHECK(r.count_tolerance == 0.01);
  }
  CHECK(t.rules[0].line == 1);
  CHECK(j.rules[0].line == 0);
  // "*" stands for every flag.
  CHECK(parse_rules("[[rule]]\nregion='x'\nflags_absent=['*']", "r", false)
            .rules[0]
            .flags_absent.size() == 10);

  // Each message names the line of the bad key (the [[rule]]'s line when
  // the key is missing).
  auto err = [](const std::string& text) {
    return bad_input([&] { parse_rules(text, "r.toml", false); });
  };
  CHECK(err("[[rule]]\nregion = 'x'\nmin_gflop = 1") ==
        "r.toml:3: min_gflop: unknown key (the keys are: region, name, optional, "
        "min_fraction_of_roof, bound, boundary, min_gflops, max_time_s, flags_absent, flops, "
        "bytes_l1, bytes_l2, bytes_llc, bytes_dram, count_tolerance)");
  CHECK(err("[[rule]]\nregion = 'x'\nbound = 'cpu'") ==
        "r.toml:3: bound: 'cpu' is not one of compute, memory, below-roofs, waiting, unknown");
  CHECK(err("[[rule]]\nregion = 'x'\nboundary = 'L3'") ==
        "r.toml:3: boundary: 'L3' is not one of L1, L2, LLC, DRAM");
  CHECK(err("\n[[rule]]\nregion = 'x'\nmin_fraction_of_roof = 1.5") ==
        "r.toml:4: min_fraction_of_roof: 1.5 is out of range (0 to 1)");
  CHECK(err("[[rule]]\nregion = 'x'\nmax_time_s = '1'") ==
        "r.toml:3: max_time_s: must be a number");
  CHECK(err("[[rule]]\nregion = 'x'\nflags_absent = ['slow']") ==
        "r.toml:3: flags_absent: 'slow' is not a flag (latency-bound, low-vectorization, "
        "underutilized, traffic-above-ideal, above-roof, load-imbalance, too-short, "
        "implausible-latency, busy-machine, own-cache)");
  CHECK(err("[[rule]]\nregion = 'x'") ==
        "r.toml:2: region: the rule checks nothing (give at least one of its checks)");
  CHECK(err("[[rule]]\nflops = 1") == "r.toml:1: region: every rule needs a region path pattern");
  CHECK(err("[rules]\nregion = 'x'") ==
        "r.toml: unknown key 'rules' (a rules file holds [[rule]] tables only)");
  CHECK(err("# nothing\n") == "r.toml: no rules (write at least one [[rule]] table; docs/ci.md)");
  CHECK_THAT(bad_input([] { parse_rules("{\"rule\": [", "r.json", true); }),
             Catch::StartsWith("r.json: not a valid rprof rules file: "));
  CHECK(bad_input([] { load_rules("/nonexistent/rules.toml"); }) ==
        "/nonexistent/rules.toml: no such file or directory");
}

TEST_CASE("region path patterns: names, globs within a name, ** across levels") {
  CHECK(path_matches("daxpy", {"daxpy"}));
  CHECK_FALSE(path_matches("daxpy", {"outer", "daxpy"}));
  CHECK(path_matches("**/daxpy", {"outer", "daxpy"}));
  CHECK(path_matches("**/daxpy", {"daxpy"}));
  CHECK(path_matches("outer/**", {"outer", "a", "b"}));
  CHECK(path_matches("outer/**", {"outer"}));
  CHECK(path_matches("s*e/it?rate", {"solve", "iterate"}));
  CHECK_FALSE(path_matches("s*e/it?rate", {"solve", "iterrate"}));
  CHECK(path_matches("[program]", {"[program]"}));  // brackets are literal
  CHECK(path_matches("*", {"x"}));
  CHECK_FALSE(path_matches("*", {"x", "y"}));
  CHECK(path_matches("**", {}));
  CHECK(path_matches("a/**/b/**/c", {"a", "x", "b", "b", "y", "c"}));
  CHECK_FALSE(path_matches("a/**/b/**/c", {"a", "c", "b"}));
  CHECK(path_matches("a**b", {"axyb"}));  // "**" within a name is '*' twice
  CHECK_FALSE(path_matches("a**b", {"ax", "b"}));
  CHECK(path_matches("*x*", {"*x*"}));  // a star matches a literal '*' too
  CHECK_FALSE(path_matches("", {"a"}));
}

namespace {

// The patterns' meaning written as plainly as possible (exponential): the
// greedy matcher must agree with it everywhere.
bool reference_name(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return reference_name(p + 1, s) || (*s != '\0' && reference_name(p, s + 1));
  if (*s == '\0') return false;
  return (*p == '?' || *p == *s) && reference_name(p + 1, s + 1);
}

bool reference_names(const std::vector<std::string>& pat, size_t i,
                     const std::vector<std::string>& path, size_t j) {
  if (i == pat.size()) return j == path.size();
  if (pat[i] == "**") {
    for (size_t k = j; k <= path.size(); ++k) {
      if (reference_names(pat, i + 1, path, k)) return true;
    }
    return false;
  }
  return j < path.size() && reference_name(pat[i].c_str(), path[j].c_str()) &&
         reference_names(pat, i + 1, path, j + 1);
}

bool reference_path(const std::string& pattern, const std::vector<std::string>& path) {
  std::vector<std::string> pat(1);
  for (char c : pattern) {
    if (c == '/') {
      pat.emplace_back();
    } else {
      pat.back() += c;
    }
  }
  return reference_names(pat, 0, path, 0);
}

}  // namespace

TEST_CASE("region path patterns: the greedy matcher agrees with the plain definition") {
  // Small patterns and paths over few letters, so stars have many ways to
  // fit; a fixed seed keeps the cases the same from run to run.
  uint64_t state = 42;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (state >> 33) % n;
  };
  int matched = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string pattern;
    for (uint64_t k = next(10); k > 0; --k) pattern += "ab*?/"[next(5)];
    if (next(3) == 0) pattern = "**/" + pattern;
    if (next(3) == 0) pattern += "/**";
    std::vector<std::string> path(next(5));
    for (std::string& name : path) {
      for (uint64_t k = next(4); k > 0; --k) name += "ab*?"[next(next(5) == 0 ? 4 : 2)];
    }
    const bool want = reference_path(pattern, path);
    matched += want ? 1 : 0;
    INFO(pattern << " against " << path_string(path));
    REQUIRE(path_matches(pattern, path) == want);
  }
  CHECK(matched > 1000);  // the cases are not all misses
}

TEST_CASE("region path patterns: many stars match in polynomial time") {
  const auto t0 = std::chrono::steady_clock::now();
  // 60 characters of '*' and 'x': a matcher that tries every split of the
  // stars needs minutes for these.
  std::string stars;
  for (int i = 0; i < 30; ++i) stars += "*x";
  CHECK(path_matches(stars, {std::string(100, 'x')}));
  CHECK_FALSE(path_matches(stars, {std::string(100, 'x') + "y"}));
  std::string stars_y;
  for (int i = 0; i < 30; ++i) stars_y += "x*";
  CHECK_FALSE(path_matches(stars_y + "y", {std::string(64, 'x')}));
  // "**/" eight times, then "zz", against a path 64 levels deep.
  std::string levels;
  for (int i = 0; i < 8; ++i) levels += "**/";
  levels += "zz";
  std::vector<std::string> deep(64, "a");
  CHECK_FALSE(path_matches(levels, deep));
  deep.back() = "zz";
  CHECK(path_matches(levels, deep));
  deep[10] = "zz";
  deep.back() = "z";
  CHECK_FALSE(path_matches(levels, deep));
  // Microseconds here; the bound leaves room for a loaded machine.
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 2.0);
}

TEST_CASE("rules against an analysis: exact counts pass, each failure says what and where") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile p = run();
  const Analysis a = analyze(p, MachineSource{&m, "synthetic", {}});
  const RuleSet ok = parse_rules(
      "[[rule]]\nregion = 'daxpy'\nflops = 2000000\nbytes_l1 = 24000000\nbytes_dram = 24000000\n"
      "max_time_s = 0.1\nbound = 'memory'\nboundary = 'DRAM'\nmin_fraction_of_roof = 0.85\n"
      "[[rule]]\nregion = '**/inner'\nflops = 1000000\n",
      "ok.toml", false);
  std::vector<CheckItem> items = evaluate_rules(ok, a);
  INFO([&] {
    std::ostringstream o;
    write_check_text(items, o);
    return o.str();
  }());
  REQUIRE(items.size() == 8);
  // The DRAM roof: 2/24 FLOP/byte x 22.5 GB/s (the triad's traffic figure,
  // 0.9 x 20 x 5/4) = 1.875 GFLOP/s; 2e6 FLOPs in 0.1 s are 0.02 GFLOP/s,
  // 1.07% of it: below every roof, so bound and boundary fail too.
  CHECK(failures(items) == 3);
  const CheckItem* frac = failed_item(items, "fraction of roof");
  REQUIRE(frac != nullptr);
  CHECK(frac->measured == "1.1% of roof");
  CHECK(frac->expected == ">= 85% of roof");
  CHECK(frac->line == 1);
  CHECK(frac->file == "ok.toml");
  CHECK_THAT(failed_item(items, "bound is")->message,
             Catch::StartsWith("daxpy: bound is below-roofs, not memory (below every roof: "));
  CHECK(failed_item(items, "boundary is")->message ==
        "daxpy: limiting boundary is none, not DRAM (bound below-roofs)");

  // The same counts in 1.2 ms: 1.667 GFLOP/s, 88.9% of the DRAM roof.
  const Profile fast = run(kN, 1.2e-3);
  const Analysis af = analyze(fast, MachineSource{&m, "synthetic", {}});
  items = evaluate_rules(ok, af);
  CHECK(failures(items) == 0);
  for (const CheckItem& it : items) {
    if (it.check == "fraction of roof") CHECK(it.measured == "88.9% of roof");
  }

  const RuleSet bad = parse_rules(
      "[[rule]]\nname = 'work'\nregion = 'daxpy'\nflops = 2000001\n"
      "[[rule]]\nregion = 'daxpy'\nbytes_dram = 25000000\ncount_tolerance = 0.01\n"
      "[[rule]]\nregion = 'daxpy'\nmax_time_s = 1e-3\nmin_gflops = 2\n"
      "[[rule]]\nregion = 'solve'\nflops = 1\n"
      "[[rule]]\nregion = 'solve'\nflops = 1\noptional = true\n",
      "bad.toml", false);
  items = evaluate_rules(bad, af);
  CHECK(failures(items) == 5);
  CHECK(failed_item(items, "FLOPs equal")->message ==
        "work: daxpy: counted 2000000 FLOPs (FMA = 2), expected 2000001 FLOPs (exactly)");
  CHECK(failed_item(items, "bytes at DRAM")->message ==
        "daxpy: counted 24000000 bytes at DRAM, expected 25000000 B (within 1%)");
  CHECK(failed_item(items, "time")->message ==
        "daxpy: took 0.0012 s (inclusive, slowest thread), above the limit <= 0.001 s");
  CHECK(failed_item(items, "time")->line == 9);
  CHECK(failed_item(items, "matches a region")->message ==
        "no region matches 'solve' (paths are 'outer/inner'; '**/name' matches at any depth)");
  // 2e6 FLOPs in 1.2 ms: 1.667 GFLOP/s.
  CHECK(failed_item(items, "GFLOP/s")->message ==
        "daxpy: 1.667 GFLOP/s (FMA = 2 FLOPs), below the required >= 2 GFLOP/s");
}

TEST_CASE("baseline: times within the tolerance are noise, exact counts that change are not") {
  const Machine m = rprof::test::synthetic_machine();
  const MachineSource ms{&m, "synthetic", {}};
  const Profile old_run = run(kN, 0.1);
  auto compare = [&](const Profile& now, bool exact, double tolerance = 0.10,
                     bool counts_only = false, double count_tolerance = 0) {
    BaselineOptions o;
    o.count_tolerance = count_tolerance;
    o.tolerance = tolerance;
    o.exact_counts = exact;
    o.counts_only = counts_only;
    return compare_to_baseline(diff_profiles(analyze(old_run, ms), analyze(now, ms)), o);
  };
  // 8% slower: within 10%.
  std::vector<CheckItem> items = compare(run(kN, 0.108), true);
  CHECK(failures(items) == 0);
  // 12% slower: a regression in time and in GFLOP/s (1/1.12 = -10.7%), of
  // daxpy and of daxpy/inner.
  items = compare(run(kN, 0.112), true);
  CHECK(failures(items) == 4);
  CHECK(failed_item(items, "time")->message ==
        "daxpy: regression: time 0.1 s -> 0.112 s (+12.0%), beyond the 10% tolerance");
  CHECK(failed_item(items, "GFLOP/s")->message ==
        "daxpy: regression: 0.02 GFLOP/s -> 0.01786 GFLOP/s (-10.7%, FMA = 2 FLOPs), beyond the "
        "10% tolerance");
  // ... and within a 15% tolerance; with counts only, times are left out.
  CHECK(failures(compare(run(kN, 0.112), true, 0.15)) == 0);
  items = compare(run(kN, 0.5), true, 0.10, true);
  CHECK(failures(items) == 0);
  for (const CheckItem& it : items) CHECK(it.check != "time");
  // Twice the work at the same speed: 2x the time is a regression, and the
  // counts say why: a changed program, never noise.
  items = compare(run(2 * kN, 0.1), true);
  const CheckItem* flops = failed_item(items, "FLOPs");
  REQUIRE(flops != nullptr);
  CHECK(flops->message ==
        "daxpy: changed program: FLOPs 2000000 FLOPs -> 4000000 FLOPs (+100.00%) (exact counts: "
        "not noise; update the baseline if the change is intended)");
  CHECK(failed_item(items, "bytes at DRAM") != nullptr);
  // Within a stated count tolerance: 1% more work passes 2%, fails 0.5%.
  CHECK(failures(compare(run(1.01 * kN, 0.1), true, 0.10, false, 0.02)) == 0);
  CHECK(failed_item(compare(run(1.01 * kN, 0.1), true, 0.10, false, 0.005), "FLOPs")->message ==
        "daxpy: changed program: FLOPs 2000000 FLOPs -> 2020000 FLOPs (+1.00%) (exact counts: "
        "not noise; update the baseline if the change is intended)");
  // Counts that are not exact (hardware counters) are not compared.
  CHECK(failed_item(compare(run(2 * kN, 0.1), false), "FLOPs") == nullptr);
  // A region gone and a region new.
  Profile renamed = run();
  renamed.regions[2].path = {"setup"};
  renamed.regions[2].name = "setup";
  items = compare(renamed, true);
  CHECK(failures(items) == 2);
  bool gone = false, added = false;
  for (const CheckItem& it : items) {
    gone |=
        it.message == "init: changed program: the region is in the baseline, not in the new run";
    added |= it.message == "setup: changed program: a new region, not in the baseline";
  }
  CHECK(gone);
  CHECK(added);
  // A changed call count is a changed program with any backend.
  Profile more_calls = run();
  more_calls.regions[0].calls = 2;
  CHECK(failed_item(compare(more_calls, false), "calls")->message ==
        "daxpy: changed program: calls 1 -> 2 (+100.00%) (exact counts: not noise; update the "
        "baseline if the change is intended)");
}

TEST_CASE("check outputs: table, JUnit XML, GitHub annotations escaped") {
  std::vector<CheckItem> items(3);
  items[0] = {"rules",  "a/b", "time", "2 s", "<= 1 s", true, "a/b: took 2 s, 50% over: a,b",
              "r.toml", 7};
  items[1] = {"rules", "a/<c>", "bound is", "memory", "memory", false, "", "r.toml", 9};
  items[2] = {"baseline", "x", "FLOPs", "2 FLOPs", "1 FLOPs", true, "x: changed program\nnext",
              "",         0};
  std::ostringstream text;
  write_check_text(items, text);
  CHECK_THAT(text.str(),
             Catch::Contains("FAIL       rules     a/b      time       2 s    <= 1 s") &&
                 Catch::EndsWith("\nrprof check: FAILED: 2 of 3 checks failed\n"));
  const std::string xml = check_junit_xml(items);
  CHECK_THAT(xml, Catch::Contains("<testsuites name=\"rprof check\" tests=\"3\" failures=\"2\">"));
  CHECK_THAT(xml, Catch::Contains(
                      "<testsuite name=\"rprof.rules\" tests=\"2\" failures=\"1\" errors=\"0\">"));
  CHECK_THAT(xml,
             Catch::Contains("classname=\"rprof.rules.a/&lt;c&gt;\" name=\"bound is: memory\""));
  CHECK_THAT(xml, Catch::Contains("file=\"r.toml\" line=\"7\""));
  CHECK_THAT(xml,
             Catch::Contains("<failure message=\"a/b: took 2 s, 50% over: a,b\" type=\"rule\">"));
  std::ostringstream gh;
  write_github_annotations(items, "run/profile.json", gh);
  CHECK(gh.str() ==
        "::error file=r.toml,line=7,title=rprof check (rules)::a/b: took 2 s, 50%25 over: a,b\n"
        "::error file=run/profile.json,title=rprof check (baseline)::x: changed program%0Anext\n");
}

TEST_CASE("docs/ci.md: its rules example is a valid rules file") {
  std::ifstream in(std::string(RPROF_SOURCE_DIR) + "/docs/ci.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t begin = doc.find("```toml\n");
  REQUIRE(begin != std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  const RuleSet r = parse_rules(doc.substr(begin + 8, end - begin - 8), "ci.md", false);
  REQUIRE(r.rules.size() == 3);
  CHECK(r.rules[0].flags_absent.size() == 2);
  CHECK(*r.rules[1].min_gflops == 2.0);
  CHECK(*r.rules[2].bytes[static_cast<size_t>(Boundary::kDRAM)] == 2400000);
}

TEST_CASE("RepeatTimes: min, median (middle, or mean of the middle two), max, spread") {
  const RepeatTimes odd = RepeatTimes::of({0.3, 0.1, 0.2});
  CHECK(odd.runs == 3);
  CHECK(odd.min_s == 0.1);
  CHECK(odd.median_s == 0.2);
  CHECK(odd.max_s == 0.3);
  CHECK(odd.spread() == Approx(1.0).epsilon(1e-12));  // (0.3 - 0.1) / 0.2
  const RepeatTimes even = RepeatTimes::of({4, 1, 2, 3});
  CHECK(even.median_s == 2.5);
  CHECK(even.spread() == Approx(1.2).epsilon(1e-12));  // (4 - 1) / 2.5
  CHECK(RepeatTimes::of({}).runs == 0);
  CHECK(RepeatTimes::of({}).spread() == 0);
}

TEST_CASE("baseline: repeated runs compare median times within the runs' own spread") {
  const Machine m = rprof::test::synthetic_machine();
  const MachineSource ms{&m, "synthetic", {}};
  // daxpy: first-run time `first`, 3 runs with this median, spread +-half.
  auto repeated = [](double first, double median, double half) {
    Profile p = run(kN, first);
    p.regions[1].time_s = 0.05;  // daxpy/inner: no repeat times
    p.run.repeat = 3;
    p.regions[0].repeat = RepeatTimes::of({median * (1 - half), median, median * (1 + half)});
    return p;
  };
  auto compare = [&](const Profile& a, const Profile& b, bool spread) {
    BaselineOptions o;
    o.exact_counts = true;
    o.runs_spread = spread;
    return compare_to_baseline(diff_profiles(analyze(a, ms), analyze(b, ms)), o);
  };
  // Baseline median 0.1 s with a 20% spread; the new run's median 15% slower
  // (its first run 30% slower: not what is compared): within 20%.
  const Profile old_run = repeated(0.1, 0.1, 0.10);
  std::vector<CheckItem> items = compare(old_run, repeated(0.13, 0.115, 0.02), true);
  CHECK(failed_item(items, "median time") == nullptr);
  CHECK(failed_item(items, "time") == nullptr);
  bool seen = false;
  for (const CheckItem& it : items) {
    if (it.region == "daxpy" && it.check == "median time") {
      seen = true;
      CHECK(it.expected == "median 0.1 s");
      CHECK(it.measured == "median 0.115 s (+15.0%) within 20%");
    }
  }
  CHECK(seen);
  // 25% slower: beyond the spread, in time and in GFLOP/s (1/1.25 = -20.0%).
  items = compare(old_run, repeated(0.1, 0.125, 0.02), true);
  REQUIRE(failed_item(items, "median time") != nullptr);
  CHECK(failed_item(items, "median time")->message ==
        "daxpy: regression: median time 0.1 s -> 0.125 s (+25.0%), beyond the 20% tolerance "
        "(the runs' spread, median of 3 and 3 runs)");
  REQUIRE(failed_item(items, "median GFLOP/s") != nullptr);
  CHECK(failed_item(items, "median GFLOP/s")->message ==
        "daxpy: regression: median 0.02 GFLOP/s -> 0.016 GFLOP/s (-20.0%, FMA = 2 FLOPs), beyond "
        "the 20% tolerance (the runs' spread, median of 3 and 3 runs)");
  // The larger spread of the two counts: the new run's 30% lets 25% pass.
  CHECK(failures(compare(old_run, repeated(0.1, 0.125, 0.15), true)) == 0);
  // Without runs_spread (--tolerance given): first-run times, the 10% default.
  items = compare(old_run, repeated(0.115, 0.115, 0.02), false);
  REQUIRE(failed_item(items, "time") != nullptr);
  CHECK(failed_item(items, "time")->message ==
        "daxpy: regression: time 0.1 s -> 0.115 s (+15.0%), beyond the 10% tolerance");
  // Regions without repeat times (daxpy/inner here) keep the default: 12% slower fails.
  Profile inner_slower = repeated(0.1, 0.1, 0.02);
  inner_slower.regions[1].time_s = 0.056;
  items = compare(old_run, inner_slower, true);
  REQUIRE(failed_item(items, "time") != nullptr);
  CHECK(failed_item(items, "time")->message ==
        "daxpy/inner: regression: time 0.05 s -> 0.056 s (+12.0%), beyond the 10% tolerance");
  CHECK(failed_item(items, "median time") == nullptr);
}
