// rprof validate: before trusting rprof's hardware counters on a new CPU,
// run the program under the hardware backend and the exact one (sim) and
// compare per region and quantity (lib/analysis/validate.h has the
// relations). Or compare two saved profiles (--hardware, --exact).
// Exit codes: 0 every compared quantity agrees, 1 some disagree, 2 no
// hardware counters here (with the reason) or a usage error.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/validate.h"
#include "common/error.h"
#include "hwcounters/perf_probe.h"
#include "profile/profile_json.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

const char* state_name(ValidationState s) {
  switch (s) {
    case ValidationState::kAgrees: return "agrees";
    case ValidationState::kDisagrees: return "DISAGREES";
    case ValidationState::kNotCompared: return "not compared";
  }
  return "";
}

std::string unit(const std::string& quantity) { return quantity == "FLOPs" ? "FLOPs" : "B"; }

void print_text(const Validation& v, const std::string& hw, const std::string& exact) {
  std::cout << "rprof validate: hardware counts (" << hw << ") against exact counts (" << exact
            << "), per region; FLOPs with FMA = 2, bytes are 64 x lines\n\n";
  for (const ValidationRow& r : v.rows) {
    char line[512];
    if (r.ratio) {
      std::snprintf(line, sizeof(line), "%-24s %-16s hw %.4g %s, exact %.4g %s, ratio %.3f "
                    "(expected %s): %s", r.region.c_str(), r.quantity.c_str(), r.hardware,
                    unit(r.quantity).c_str(), r.exact, unit(r.quantity).c_str(), *r.ratio,
                    r.relation.c_str(), state_name(r.state));
    } else {
      std::snprintf(line, sizeof(line), "%-24s %-16s %s: %s", r.region.c_str(),
                    r.quantity.c_str(), state_name(r.state), r.why.c_str());
    }
    std::cout << line << "\n";
  }
  std::cout << "\n" << v.agreements << " agree, " << v.disagreements << " disagree"
            << (v.disagreements ? ": do not trust the disagreeing counts on this CPU (rprof "
                                  "doctor prints the event table they come from)"
                                : "")
            << "\n";
}

nlohmann::json to_json(const Validation& v) {
  nlohmann::json j;
  j["agreements"] = v.agreements;
  j["disagreements"] = v.disagreements;
  j["rows"] = nlohmann::json::array();
  for (const ValidationRow& r : v.rows) {
    nlohmann::json row = {{"region", r.region},      {"quantity", r.quantity},
                          {"relation", r.relation},  {"low", r.low},
                          {"high", r.high},          {"state", state_name(r.state)},
                          {"why", r.why}};
    if (r.ratio) {
      row["hardware"] = r.hardware;
      row["exact"] = r.exact;
      row["ratio"] = *r.ratio;
    }
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace

int cmd_validate(const Args& args) {
  CLI::App app("Check the hardware counters against exact counts (sim) on one program: "
               "per region, FLOPs equal, bytes within stated tolerances.",
               "rprof validate");
  std::string hw_path, exact_path, backend = "perf";
  bool json = false;
  std::vector<std::string> command;
  app.add_option("--hardware", hw_path, "a saved hardware-counter profile (instead of running)");
  app.add_option("--exact", exact_path, "a saved exact profile (sim) to compare it with");
  app.add_option("--backend", backend, "the hardware backend to check (perf, papi, likwid)")
      ->check(CLI::IsMember({"perf", "papi", "likwid"}));
  app.add_flag("--json", json, "print the comparison as JSON");
  app.add_option("command", command, "the program and its arguments");
  if (!parse_cli(app, args)) return 0;
  if (hw_path.empty() != exact_path.empty()) {
    throw Error("validate: --hardware and --exact go together", 2);
  }
  std::string hw_label = hw_path, exact_label = exact_path;
  if (hw_path.empty()) {
    if (command.empty()) throw Error("validate: no program to run (rprof validate ./app)", 2);
    const HardwareProbe probe = probe_perf_hardware();
    if (!probe.ok || !probe.table_works || probe.table_id == "generic") {
      const std::string why =
          !probe.ok ? probe.line()
                    : probe.table_id == "generic"
                          ? "no event table for " + probe.cpu + ": nothing to validate"
                          : probe.reason + ". " + probe.fix;
      std::cerr << "rprof validate: cannot check hardware counters here: " << why << "\n";
      return 2;
    }
    char tmpl[] = "/tmp/rprof-validate-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) throw Error("validate: cannot make a temporary directory");
    const std::string dir = tmpl;
    hw_path = dir + "/hardware";
    exact_path = dir + "/exact";
    for (const auto& [b, out] : {std::pair<std::string, std::string>{backend, hw_path},
                                 std::pair<std::string, std::string>{"sim", exact_path}}) {
      Args run = {"rprof", "--backend=" + b, "-o", out, "--"};
      run.insert(run.end(), command.begin(), command.end());
      const int rc = cmd_run(run);
      if (rc != 0) throw Error("validate: the --backend=" + b + " run failed", rc);
    }
    hw_label = backend + ", " + probe.table_name;
    exact_label = "sim";
    hw_path += "/profile.json";
    exact_path += "/profile.json";
  }
  const Profile hw = load_profile(hw_path);
  const Profile exact = load_profile(exact_path);
  const Validation v = validate_profiles(hw, exact);
  if (json) {
    std::cout << to_json(v).dump(2) << "\n";
  } else {
    print_text(v, hw_label, exact_label);
  }
  return v.disagreements == 0 ? 0 : 1;
}

}  // namespace rprof
