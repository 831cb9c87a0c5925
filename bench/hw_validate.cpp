// hw_validate: checks rprof's hardware counts against its simulator and the
// samples' declared work. Runs every sample under each counting backend that
// `rprof doctor` says works here (perf, papi, likwid, and sim as the
// reference), and prints per region and boundary the ratio hardware / sim
// and hardware / declared (rprof_work). Where no hardware backend works it
// says why and exits 77 (skipped).
//
// Usage: hw_validate [RPROF [SAMPLES_DIR [BACKENDS]]]   (defaults: the build
// tree's, and the backends doctor finds working; BACKENDS = e.g. perf,papi)
// Conventions: FLOPs with FMA = 2; GFLOP = 1e9 FLOPs; GB = 1e9 bytes;
// boundaries L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM; "~" = approximate.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hwcounters/hw_metrics.h"
#include "profile/metrics.h"

namespace fs = std::filesystem;
using rprof::Boundary;
using rprof::Metrics;

namespace {

struct Sample {
  std::string name;
  std::vector<std::string> args;
};

// Runs argv with stdout/stderr into `log`; exit status.
int run(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "w");
    if (f != nullptr) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> a;
    for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RegionCounts {
  Metrics m;
  double declared_flops = 0, declared_bytes = 0;
};

// region path -> metrics of one run, or empty when the run failed.
std::map<std::string, RegionCounts> measure(const std::string& rprof, const std::string& backend,
                                            const std::string& exe,
                                            const std::vector<std::string>& args,
                                            const std::string& work) {
  const std::string out = work + "/" + backend + "-" + fs::path(exe).filename().string();
  fs::remove_all(out);
  std::vector<std::string> argv = {rprof, "-q", "-o", out, "--backend=" + backend, exe};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, RegionCounts> regions;
  if (run(argv, out + ".log") != 0) {
    std::printf("  %-7s run failed: %s", backend.c_str(), slurp(out + ".log").c_str());
    return regions;
  }
  const auto p = nlohmann::json::parse(slurp(out + "/profile.json"));
  for (const auto& r : p["regions"]) {
    rprof::CounterMap c;
    for (const auto& [k, v] : r["counters"].items()) c[k] = v.get<uint64_t>();
    std::string path;
    for (const auto& part : r["path"]) path += (path.empty() ? "" : "/") + part.get<std::string>();
    RegionCounts rc;
    rc.m = rprof::metrics_from_counters(c, rprof::hardware_translation);
    if (r.contains("declared_work")) {
      rc.declared_flops = r["declared_work"]["flops"].get<double>();
      rc.declared_bytes = r["declared_work"]["bytes"].get<double>();
    }
    regions[path] = rc;
  }
  return regions;
}

std::string ratio(double a, double b) {
  if (b <= 0 || a < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", a / b);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string rprof = argc > 1 ? argv[1] : RPROF_BIN;
  const std::string samples = argc > 2 ? argv[2] : RPROF_SAMPLES_DIR;
  const std::string work = fs::temp_directory_path() / ("rprof-hw-validate-" + std::to_string(getpid()));
  fs::create_directories(work);
  if (run({rprof, "doctor", "--json"}, work + "/doctor.json") != 0) {
    std::fprintf(stderr, "hw_validate: `%s doctor` failed\n", rprof.c_str());
    return 1;
  }
  const auto doctor = nlohmann::json::parse(slurp(work + "/doctor.json"));
  std::vector<std::string> hw;
  bool sim = false;
  std::string why_not;
  for (const auto& b : doctor["backends"]) {
    const std::string name = b["backend"];
    if (name == "sim") sim = b["works"].get<bool>();
    if (name != "perf" && name != "papi" && name != "likwid") continue;
    if (b["works"].get<bool>()) hw.push_back(name);
    else if (name == "perf") why_not = b["why"].get<std::string>() + ". " + b["fix"].get<std::string>();
  }
  if (argc > 3) {  // chosen by hand: runs that fail say why
    hw.clear();
    std::stringstream ss(argv[3]);
    for (std::string b; std::getline(ss, b, ',');) hw.push_back(b);
  }
  if (hw.empty()) {
    std::printf("hw_validate: skipped: no hardware-counter backend works here (perf: %s)\n",
                why_not.c_str());
    fs::remove_all(work);
    return 77;
  }
  std::printf("hw_validate: %s; reference: %s and declared work (rprof_work)\n"
              "FLOPs: FMA = 2; bytes at L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM; "
              "GFLOP = 1e9, GB = 1e9 bytes; ~ = approximate count\n\n",
              doctor["cpu"].get<std::string>().c_str(), sim ? "sim" : "no simulator (sim not available)");
  const std::vector<Sample> list = {{"triad", {"4000000", "5"}}, {"daxpy", {"4000000", "5"}},
                                    {"omp_sum", {"4000000", "16"}}, {"nested", {"3"}}};
  for (const Sample& s : list) {
    const std::string exe = samples + "/" + s.name;
    if (!fs::exists(exe)) continue;
    std::printf("%s %s\n", s.name.c_str(), s.args.empty() ? "" : s.args[0].c_str());
    std::map<std::string, RegionCounts> ref;
    if (sim) ref = measure(rprof, "sim", exe, s.args, work);
    for (const std::string& b : hw) {
      const auto regions = measure(rprof, b, exe, s.args, work);
      for (const auto& [path, rc] : regions) {
        if (path == "[program]") continue;
        const Metrics& m = rc.m;
        const RegionCounts* r = ref.count(path) ? &ref.at(path) : nullptr;
        std::printf("  %-7s %-24s", b.c_str(), path.c_str());
        if (m.has_flops) {
          std::printf(" GFLOP %9.4f /sim %-6s /declared %-6s", m.flops_total() / 1e9,
                      r ? ratio(m.flops_total(), r->m.flops_total()).c_str() : "-",
                      ratio(m.flops_total(), rc.declared_flops).c_str());
        } else {
          std::printf(" no FLOP count");
        }
        if (m.precision_agnostic) std::printf(" (precision-agnostic)");
        for (Boundary bd : {Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
          const rprof::Traffic& t = m.at(bd);
          if (!t.measured) continue;
          const double ref_bytes = r ? r->m.at(bd).bytes() : 0;
          std::printf("  %s GB %.4f%s /sim %s", rprof::boundary_name(bd), t.bytes() / 1e9,
                      t.approximate ? "~" : "", ratio(t.bytes(), ref_bytes).c_str());
          if (bd == Boundary::kDRAM) {
            std::printf(" /declared %s", ratio(t.bytes(), rc.declared_bytes).c_str());
          }
        }
        if (m.multiplex_ratio && *m.multiplex_ratio < 1) {
          std::printf("  multiplexed %.0f%%", 100 * *m.multiplex_ratio);
        }
        std::printf("\n");
      }
    }
  }
  fs::remove_all(work);
  return 0;
}
