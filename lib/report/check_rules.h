// `rprof check RUN --rules FILE`: what a CI job asks of a run, per region
// path pattern, held against the run's analysis (the verdict, the roofline,
// the metrics: computed once in lib/analysis, read here). The rules file is
// TOML (toml++, common/toml_file.h) or JSON (by extension
// .json); docs/ci.md describes both. Units: seconds, GFLOP/s (1e9 FLOP/s,
// FMA = 2 FLOPs), bytes (exact counts), fraction of the applicable roof.
#ifndef RPROF_REPORT_CHECK_RULES_H_
#define RPROF_REPORT_CHECK_RULES_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "common/kinds.h"
#include "report/region_pattern.h"

namespace rprof {

struct Rule {
  std::string region;  // path pattern: '/' between names, '*' and '?' within one, '**' any levels
  std::string name;    // for people ("" : the pattern)
  int line = 0;        // of its [[rule]] header in a TOML file; 0 when unknown
  bool optional = false;               // a pattern that matches no region passes
  std::optional<double> min_fraction;  // of the applicable roof, 0..1
  std::optional<Bound> bound;
  std::optional<Boundary> boundary;  // the limiting boundary of a memory-bound verdict
  std::optional<double> min_gflops;
  std::optional<double> max_time_s;  // inclusive, slowest thread
  std::vector<Flag> flags_absent;
  std::optional<double> flops;                 // FMA = 2
  std::array<std::optional<double>, 4> bytes;  // by boundary (L1, L2, LLC, DRAM)
  double count_tolerance = 0;                  // relative, for flops and bytes (0: exact)
};

struct RuleSet {
  std::string file;
  std::vector<Rule> rules;
};

// Reads a rules file; throws Error (exit code 2) naming the file, the line
// or rule and the key on any unknown key, wrong type or value out of range.
RuleSet load_rules(const std::string& path);
// The same from text (`name` for messages; `json`: the text is JSON).
RuleSet parse_rules(const std::string& text, const std::string& name, bool json);

// One check of a `rprof check`: a rule on a region, or a baseline comparison.
struct CheckItem {
  std::string suite;     // "rules" or "baseline"
  std::string region;    // path string ("" when the item is about no region)
  std::string check;     // "GFLOP/s at least", "bound is", "time (s)", ...
  std::string measured;  // with its unit
  std::string expected;  // the rule's value or the baseline's limit, with its unit
  bool failed = false;
  std::string message;  // one line for a failure; "" when it passed
  std::string file;     // where the rule is (for annotations), or ""
  int line = 0;
};

// Every rule against every region its pattern matches, in rule order then
// region order; a rule that matches no region fails (unless optional).
std::vector<CheckItem> evaluate_rules(const RuleSet& rules, const Analysis& run);

}  // namespace rprof

#endif  // RPROF_REPORT_CHECK_RULES_H_
