#include "report/check_rules.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/toml_file.h"
#include "report/table.h"
#include "report/verdict_words.h"

namespace rprof {
namespace {

using nlohmann::json;

// A rules file is small; this only stops a device or a huge file.
constexpr uint64_t kRulesFileBytes = 16u << 20;
constexpr uint64_t kRulesJsonValues = 1u << 20;

constexpr const char* kRuleKeys =
    "region, name, optional, min_fraction_of_roof, bound, boundary, min_gflops, max_time_s, "
    "flags_absent, flops, bytes_l1, bytes_l2, bytes_llc, bytes_dram, count_tolerance";

constexpr std::array<Bound, 6> kAllBounds = {Bound::kUnknown,   Bound::kCompute,
                                             Bound::kMemory,    Bound::kWaiting,
                                             Bound::kBelowRoofs, Bound::kDependencyChain};
constexpr std::array<Flag, 10> kAllFlags = {
    Flag::kLatencyBound,      Flag::kLowVectorization,   Flag::kUnderutilized,
    Flag::kTrafficAboveIdeal, Flag::kAboveRoof,          Flag::kLoadImbalance,
    Flag::kTooShort,          Flag::kImplausibleLatency, Flag::kBusyMachine,
    Flag::kOwnCache};

// Reads one rule's keys; `where` names it in messages ("rules.toml:12").
class RuleReader {
 public:
  // `key_lines`: the line of each key (a TOML file), for messages that name
  // the line of the bad key rather than of its [[rule]].
  RuleReader(const json& j, std::string where, std::string file = "",
             std::map<std::string, int> key_lines = {})
      : j_(j), where_(std::move(where)), file_(std::move(file)),
        key_lines_(std::move(key_lines)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    const auto line = key_lines_.find(key);
    const std::string where =
        line != key_lines_.end() ? fmt::format("{}:{}", file_, line->second) : where_;
    throw Error(printable(fmt::format("{}: {}: {}", where, key, what)), 2);
  }
  const json* get(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::optional<std::string> text(const char* key) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, "must be a string");
    return v->get<std::string>();
  }
  // A finite number >= 0 (and <= most, when given).
  std::optional<double> number(const char* key, double most = INFINITY) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, "must be a number");
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < 0 || d > most) {
      fail(key, fmt::format("{} is out of range (0 to {})", v->dump(), most));
    }
    return d;
  }

 private:
  const json& j_;
  std::string where_;
  std::string file_;
  std::map<std::string, int> key_lines_;
};

Rule read_rule(const json& j, const std::string& where, int line, const std::string& file,
               const std::map<std::string, int>& key_lines) {
  if (!j.is_object()) throw Error(where + ": a rule must be a table (object) of keys", 2);
  const RuleReader r(j, where, file, key_lines);
  static const std::vector<std::string> known = {
      "region",   "name",       "optional",   "min_fraction_of_roof", "bound",
      "boundary", "min_gflops", "max_time_s", "flags_absent",         "flops",
      "bytes_l1", "bytes_l2",   "bytes_llc",  "bytes_dram",           "count_tolerance"};
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const std::string& k : known) ok |= key == k;
    if (!ok) r.fail(key, std::string("unknown key (the keys are: ") + kRuleKeys + ")");
  }
  Rule rule;
  rule.line = line;
  const auto region = r.text("region");
  if (!region || region->empty()) r.fail("region", "every rule needs a region path pattern");
  rule.region = *region;
  rule.name = r.text("name").value_or("");
  if (const json* o = r.get("optional")) {
    if (!o->is_boolean()) r.fail("optional", "must be true or false");
    rule.optional = o->get<bool>();
  }
  rule.min_fraction = r.number("min_fraction_of_roof", 1.0);
  if (const auto b = r.text("bound")) {
    for (Bound k : kAllBounds) {
      if (*b == bound_key(k)) rule.bound = k;
    }
    if (!rule.bound)
      r.fail("bound", "'" + *b + "' is not one of compute, memory, below-roofs, waiting, unknown");
  }
  if (const auto b = r.text("boundary")) {
    rule.boundary = parse_boundary(*b);
    if (!rule.boundary) r.fail("boundary", "'" + *b + "' is not one of L1, L2, LLC, DRAM");
  }
  rule.min_gflops = r.number("min_gflops");
  rule.max_time_s = r.number("max_time_s");
  if (const json* f = r.get("flags_absent")) {
    if (!f->is_array())
      r.fail("flags_absent", "must be a list of flag names, or [\"*\"] for every flag");
    for (const json& name : *f) {
      if (!name.is_string()) r.fail("flags_absent", "must be a list of flag names");
      const std::string s = name.get<std::string>();
      if (s == "*") {
        rule.flags_absent.assign(kAllFlags.begin(), kAllFlags.end());
        continue;
      }
      bool found = false;
      for (Flag k : kAllFlags) {
        if (s == flag_key(k)) {
          rule.flags_absent.push_back(k);
          found = true;
        }
      }
      if (!found) {
        std::string all;
        for (Flag k : kAllFlags) all += std::string(all.empty() ? "" : ", ") + flag_key(k);
        r.fail("flags_absent", "'" + s + "' is not a flag (" + all + ")");
      }
    }
  }
  rule.flops = r.number("flops");
  for (Boundary b : kBoundaries) {
    const std::string key = std::string("bytes_") + boundary_key(b);
    rule.bytes[static_cast<size_t>(b)] = r.number(key.c_str());
  }
  rule.count_tolerance = r.number("count_tolerance", 1.0).value_or(0);
  bool any_bytes = false;
  for (const auto& b : rule.bytes) any_bytes |= b.has_value();
  if (!rule.min_fraction && !rule.bound && !rule.boundary && !rule.min_gflops && !rule.max_time_s &&
      rule.flags_absent.empty() && !rule.flops && !any_bytes) {
    r.fail("region", "the rule checks nothing (give at least one of its checks)");
  }
  return rule;
}

std::string count_text(double v) { return fmt::format("{:.0f}", v); }

bool counts_equal(double measured, double expected, double tolerance) {
  return std::fabs(measured - expected) <= tolerance * std::fabs(expected);
}

std::string tolerance_text(double t) {
  return t > 0 ? fmt::format(" (within {:g}%)", 100 * t) : " (exactly)";
}

// What the analysis says of one region, for the rules.
struct Facts {
  const RegionAnalysis& ra;
  std::string no_roof;  // why there is no roof fraction, when there is none
  std::optional<double> fraction, gflops;
};

Facts facts_of(const RegionAnalysis& ra) {
  Facts f{ra, "", std::nullopt, std::nullopt};
  const RegionRoofline* rr = ra.valid_roofline();
  if (ra.verdict && (rr || ra.valid_memory())) {
    f.fraction = ra.verdict->fraction;
  } else if (ra.roofline && !ra.roofline->valid) {
    f.no_roof = ra.roofline->why_not;
  } else {
    f.no_roof = ra.metrics.has_flops || ra.metrics.any_traffic()
                    ? "no roofline: no machine ceilings"
                    : "no roofline: the run has no FLOP or byte counts";
  }
  if (rr) {
    f.gflops = rr->gflops;
  } else if (ra.metrics.has_flops && ra.region->time_s > 0) {
    f.gflops = ra.metrics.flops_total() / ra.region->time_s / 1e9;
  }
  return f;
}

// Appends the checks of one rule on one region.
void check_region(const Rule& rule, const std::string& file, const RegionAnalysis& ra,
                  std::vector<CheckItem>& out) {
  const Facts f = facts_of(ra);
  const Region& reg = *ra.region;
  const std::string label = rule.name.empty() ? "" : rule.name + ": ";
  auto add = [&](const std::string& check, const std::string& measured, const std::string& expected,
                 bool pass, const std::string& why) {
    CheckItem it;
    it.suite = "rules";
    it.region = path_string(reg.path);
    it.check = check;
    it.measured = measured;
    it.expected = expected;
    it.failed = !pass;
    if (!pass) it.message = label + it.region + ": " + why;
    it.file = file;
    it.line = rule.line;
    out.push_back(std::move(it));
  };
  const Verdict* v = ra.verdict ? &*ra.verdict : nullptr;
  if (rule.min_fraction) {
    const std::string want = fmt::format(">= {:.0f}% of roof", 100 * *rule.min_fraction);
    if (!f.fraction) {
      add("fraction of roof", "none", want, false, "no fraction of a roof: " + f.no_roof);
    } else {
      const std::string got = fmt::format("{:.1f}% of roof", 100 * *f.fraction);
      add("fraction of roof", got, want, *f.fraction >= *rule.min_fraction,
          fmt::format("reaches {} ({}), below the required {:.0f}%", got,
                      v ? verdict_summary(*v) : std::string(), 100 * *rule.min_fraction));
    }
  }
  if (rule.bound) {
    const std::string got = v ? bound_key(v->bound) : bound_key(Bound::kUnknown);
    const std::string want = bound_key(*rule.bound);
    add("bound is", got, want, got == want,
        "bound is " + got + ", not " + want +
            (v && !verdict_summary(*v).empty() ? " (" + verdict_summary(*v) + ")" : ""));
  }
  if (rule.boundary) {
    const std::string got = v && v->boundary ? boundary_name(*v->boundary) : "none";
    const std::string want = boundary_name(*rule.boundary);
    add("boundary is", got, want, got == want,
        "limiting boundary is " + got + ", not " + want +
            (v ? std::string(" (bound ") + bound_key(v->bound) + ")" : std::string()));
  }
  if (rule.min_gflops) {
    const std::string want = fmt::format(">= {:g} GFLOP/s", *rule.min_gflops);
    if (!f.gflops) {
      add("GFLOP/s", "none", want, false, "no GFLOP/s: the run has no FLOP counts or no time");
    } else {
      const std::string got = fmt::format("{:.4g} GFLOP/s", *f.gflops);
      add("GFLOP/s", got, want, *f.gflops >= *rule.min_gflops,
          got + " (FMA = 2 FLOPs), below the required " + want);
    }
  }
  if (rule.max_time_s) {
    const std::string want = fmt::format("<= {:g} s", *rule.max_time_s);
    const std::string got = fmt::format("{:.4g} s", reg.time_s);
    add("time", got, want, reg.time_s <= *rule.max_time_s,
        "took " + got + " (inclusive, slowest thread), above the limit " + want);
  }
  for (Flag flag : rule.flags_absent) {
    const std::string name = flag_key(flag);
    const VerdictFlag* hit = nullptr;
    if (v) {
      for (const VerdictFlag& vf : v->flags) {
        if (vf.flag == flag) hit = &vf;
      }
    }
    add("flag absent", hit ? name : "absent", "no " + name, hit == nullptr,
        "flagged " + name + (hit ? ": " + flag_reason(*hit) : std::string()));
  }
  const std::string tol = tolerance_text(rule.count_tolerance);
  if (rule.flops) {
    const std::string want = count_text(*rule.flops) + " FLOPs" + tol;
    if (!ra.metrics.has_flops) {
      add("FLOPs equal", "none", want, false, "no FLOP counts in this run");
    } else {
      const double got = ra.metrics.flops_total();
      add("FLOPs equal", count_text(got) + " FLOPs", want,
          counts_equal(got, *rule.flops, rule.count_tolerance),
          "counted " + count_text(got) + " FLOPs (FMA = 2), expected " + want);
    }
  }
  for (Boundary b : kBoundaries) {
    const auto& expected = rule.bytes[static_cast<size_t>(b)];
    if (!expected) continue;
    const std::string check = std::string("bytes at ") + boundary_name(b);
    const std::string want = count_text(*expected) + " B" + tol;
    const Traffic& t = ra.metrics.at(b);
    if (!t.measured) {
      add(check, "none", want, false, std::string("no byte counts at ") + boundary_name(b));
    } else if (const SampledBoundary* sb = ra.sampled_at(b)) {
      // A sampled estimate: it passes when its 95% interval reaches the
      // expected count's tolerance band, and both say the interval.
      const double lo = *expected - rule.count_tolerance * std::fabs(*expected);
      const double hi = *expected + rule.count_tolerance * std::fabs(*expected);
      const std::string got =
          fmt::format("{} B ± {} B (95% interval [{}, {}], sampled: {:.0f} units)",
                      count_text(sb->bytes), count_text(sb->ci95_bytes), count_text(sb->bytes_lo),
                      count_text(sb->bytes_hi), sb->units);
      add(check, got, want, sb->bytes_lo <= hi && sb->bytes_hi >= lo,
          "estimated " + got + " at " + boundary_name(b) + ", expected " + want +
              ": the interval does not reach it");
    } else {
      add(check, count_text(t.bytes()) + " B", want,
          counts_equal(t.bytes(), *expected, rule.count_tolerance),
          "counted " + count_text(t.bytes()) + " bytes at " + boundary_name(b) + ", expected " +
              want);
    }
  }
}

}  // namespace

RuleSet parse_rules(const std::string& text, const std::string& name, bool is_json) {
  RuleSet set;
  set.file = name;
  json root;
  std::vector<int> lines;
  std::vector<std::map<std::string, int>> key_lines;
  if (is_json) {
    // The checked reader: syntax errors with line:column, caps on depth,
    // strings and values; a rules file needs few.
    JsonLimits lim;
    lim.values = kRulesJsonValues;
    try {
      root = JsonReader(name, "rprof rules file").parse(text, lim);
    } catch (const Error& e) {
      throw Error(printable(e.what()), 2);
    }
  } else {
    TomlDocument doc = parse_toml(text, name);
    root = std::move(doc.root);
    lines = doc.table_lines["rule"];
    key_lines = doc.key_lines["rule"];
  }
  if (!root.is_object())
    throw Error(name + ": the rules must be an object with a \"rule\" list", 2);
  for (const auto& [key, value] : root.items()) {
    if (key != "rule") {
      throw Error(
          printable(name + ": unknown key '" + key + "' (a rules file holds [[rule]] tables only)"),
          2);
    }
  }
  const auto it = root.find("rule");
  if (it == root.end() || !it->is_array() || it->empty()) {
    throw Error(name + ": no rules (write at least one [[rule]] table; docs/ci.md)", 2);
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const int line = i < lines.size() ? lines[i] : 0;
    const std::string where =
        line > 0 ? fmt::format("{}:{}", name, line) : fmt::format("{}: rule {}", name, i + 1);
    set.rules.push_back(read_rule((*it)[i], where, line, name,
                                  i < key_lines.size() ? key_lines[i] : std::map<std::string, int>{}));
  }
  return set;
}

RuleSet load_rules(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, kRulesFileBytes, "rprof rules file");
  } catch (const Error& e) {
    throw Error(e.what(), 2);
  }
  const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return parse_rules(text, path, is_json);
}

std::vector<CheckItem> evaluate_rules(const RuleSet& rules, const Analysis& run) {
  std::vector<CheckItem> out;
  for (const Rule& rule : rules.rules) {
    size_t matched = 0;
    for (const RegionAnalysis& ra : run.regions) {
      if (!path_matches(rule.region, ra.region->path)) continue;
      ++matched;
      check_region(rule, rules.file, ra, out);
    }
    if (matched > 0) continue;
    CheckItem it;
    it.suite = "rules";
    it.region = rule.region;
    it.check = "matches a region";
    it.measured = "no region";
    it.expected = rule.optional ? "optional" : "at least one";
    it.failed = !rule.optional;
    if (it.failed) {
      it.message = (rule.name.empty() ? "" : rule.name + ": ") + "no region matches '" +
                   rule.region + "' (paths are 'outer/inner'; '**/name' matches at any depth)";
    }
    it.file = rules.file;
    it.line = rule.line;
    out.push_back(std::move(it));
  }
  return out;
}

}  // namespace rprof
