// rprof check RUN [--rules FILE] [--baseline OLD]: a CI gate. Exit 0 when
// every check passes, 1 when a rule or the baseline comparison fails, 2 on
// bad input (a missing run, a rules file that does not parse, a bad option).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "common/fs.h"
#include "profile/profile_json.h"
#include "report/check_baseline.h"
#include "report/check_report.h"
#include "report/check_rules.h"
#include "run/registry.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/report_setup.h"

namespace rprof {
namespace {

constexpr double kDefaultTolerance = 0.10;

// Counts that are the same in every run of the same program and input: the
// backend counted them by simulation, by the program's own instrumentation
// (inst) or from a script, not by sampling hardware counters.
bool exact_counts(const Profile& p) {
  try {
    const CountSource s = make_driver(p.run.backend)->source();
    return s == CountSource::kSimulation || s == CountSource::kInstrumented ||
           s == CountSource::kScripted;
  } catch (const Error&) {
    return false;  // a backend this build does not know
  }
}

struct CheckSetup {
  std::string run_path, rules_path, baseline_path, machine_file, junit_path;
  double tolerance = kDefaultTolerance;
  double count_tolerance = 0;
  bool tolerance_given = false, github = false, counts_only = false;
};

int run_check(const CheckSetup& s) {
  if (s.rules_path.empty() && s.baseline_path.empty()) {
    throw Error("nothing to check: give --rules FILE, --baseline OLD, or both (docs/ci.md)", 2);
  }
  const RuleSet rules = s.rules_path.empty() ? RuleSet{} : load_rules(s.rules_path);
  const Profile now = load_profile(s.run_path);
  std::optional<Profile> old;
  if (!s.baseline_path.empty()) old = load_profile(s.baseline_path);
  std::vector<const Profile*> profiles = {&now};
  if (old) profiles.push_back(&*old);
  const MachineChoice machine = load_report_machine(profiles, s.machine_file);
  const Analysis a = analyze(now, machine_source(machine));

  std::vector<CheckItem> items;
  std::cout << "rprof check: " << s.run_path << " (backend " << now.run.backend << ", "
            << now.regions.size() << " regions)\n";
  for (const std::string& n : machine.notes) std::cout << "  " << n << "\n";
  if (!rules.rules.empty()) {
    std::cout << "  rules: " << s.rules_path << " (" << rules.rules.size() << ")\n";
    items = evaluate_rules(rules, a);
  }
  if (old) {
    BaselineOptions o;
    o.tolerance = s.tolerance;
    o.exact_counts = exact_counts(*old) && exact_counts(now);
    o.counts_only = s.counts_only;
    o.count_tolerance = s.count_tolerance;
    o.runs_spread = !s.tolerance_given && old->run.repeat > 1 && now.run.repeat > 1;
    std::cout << "  baseline: " << s.baseline_path << " (backend " << old->run.backend << "): ";
    if (s.counts_only) {
      std::cout << "times not compared (--counts-only); ";
    } else if (o.runs_spread) {
      std::cout << "median time and GFLOP/s within the runs' own spread, (max - min) / median, "
                   "the larger of the two (both runs repeated: "
                << old->run.repeat << " and " << now.run.repeat << " timed runs; "
                << 100 * o.tolerance << "% for regions without it, --tolerance overrides); ";
    } else {
      std::cout << "time and GFLOP/s within " << 100 * o.tolerance << "% ("
                << (s.tolerance_given ? "--tolerance" : "the default; --tolerance sets it")
                << "); ";
    }
    std::cout << "calls exact; "
              << (!o.exact_counts ? "FLOPs and bytes not compared (not exact counts in both runs)"
                  : o.count_tolerance > 0
                      ? "FLOPs and bytes within " + fmt::format("{:g}", 100 * o.count_tolerance) +
                            "% (--count-tolerance; counted by simulation in both runs)"
                      : std::string("FLOPs and bytes exact (counted by simulation in both runs)"))
              << "\n";
    const Analysis before = analyze(*old, machine_source(machine));
    const std::vector<CheckItem> b = compare_to_baseline(diff_profiles(before, a), o);
    items.insert(items.end(), b.begin(), b.end());
  }
  std::cout << "\n";
  write_check_text(items, std::cout);
  if (!s.junit_path.empty()) {
    write_file_atomic(s.junit_path, check_junit_xml(items));
    std::cerr << "rprof: JUnit XML written to " << s.junit_path << "\n";
  }
  if (s.github) {
    std::string run_file = s.run_path;
    if (std::filesystem::is_directory(run_file)) run_file += "/profile.json";
    write_github_annotations(items, run_file, std::cout);
  }
  for (const CheckItem& it : items) {
    if (it.failed) return 1;
  }
  return 0;
}

}  // namespace

int cmd_check(const Args& args) {
  CLI::App app(
      "Gate a run in CI: rules per region (fraction of roof, bound, boundary, GFLOP/s, "
      "time, flags, exact FLOP and byte counts) and regressions against a baseline run. "
      "Exit 0: every check passed; 1: a check failed; 2: bad input. docs/ci.md.",
      "rprof check");
  CheckSetup s;
  app.add_option("run", s.run_path, "the run to check: output directory or profile file")
      ->required();
  app.add_option("--rules", s.rules_path,
                 "rules file: TOML ([[rule]] tables; .toml or any other name) or JSON (.json)");
  app.add_option("--baseline", s.baseline_path,
                 "a stored run to compare with: times and GFLOP/s within --tolerance, exact "
                 "counts (sim, inst) equal");
  app.add_option("--tolerance", s.tolerance,
                 "relative change of time or GFLOP/s that counts as a regression (default 0.10)");
  app.add_option("--count-tolerance", s.count_tolerance,
                 "with --baseline: relative difference of FLOPs and bytes still equal (default "
                 "0: exactly; the simulated caches see addresses, which follow the environment)");
  app.add_flag("--counts-only", s.counts_only,
               "with --baseline: compare calls and exact counts only, not times (times on a "
               "shared CI runner, or under Valgrind, are noise)");
  app.add_option("--machine", s.machine_file,
                 "machine file with the ceilings (default: $RPROF_MACHINE_FILE, else the cached "
                 "one for this CPU)");
  app.add_option("--junit", s.junit_path, "also write the checks as JUnit XML to this file");
  app.add_flag("--github", s.github,
               "also print GitHub Actions annotations (::error file=...::) for failed checks");
  if (!parse_cli(app, args)) return 0;
  s.tolerance_given = app.count("--tolerance") > 0;
  if (!std::isfinite(s.tolerance) || s.tolerance < 0 || s.tolerance > 10) {
    throw Error("--tolerance must be a relative change between 0 and 10 (0.10 = 10%)", 2);
  }
  if (!std::isfinite(s.count_tolerance) || s.count_tolerance < 0 || s.count_tolerance > 1) {
    throw Error("--count-tolerance must be a relative difference between 0 and 1", 2);
  }
  // Whatever stops the check before a verdict is bad input (exit 2), never
  // a failed check (exit 1).
  try {
    return run_check(s);
  } catch (const Error& e) {
    throw Error(e.what(), 2);
  } catch (const std::filesystem::filesystem_error& e) {
    const std::string path = e.path1().string();
    throw Error((path.empty() ? "" : path + ": ") + e.code().message(), 2);
  }
}

}  // namespace rprof
