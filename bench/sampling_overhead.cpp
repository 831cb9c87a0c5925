// What cpu-clock sampling (LaunchSpec::sample_functions, the function view's
// times) costs a native run: each program is launched REPS times without and
// REPS times with sampling, alternately, and the medians are printed side by
// side: wall-clock seconds, CPU seconds of the app (user + system, all its
// threads and children: steadier on a shared machine), and the samples taken
// and lost. Target: sampled / plain <= 1.05 in CPU time.
//
// Usage: sampling_overhead [REPS] [-- PROGRAM ARGS...]
//   (default REPS = 5; default programs: samples matmul 512, triad 4000000 20,
//   omp_sum 40000000 64 when built)
// Not a test: its numbers depend on the machine and its load.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "run/launcher.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Runs {
  std::vector<double> wall, cpu;
  std::vector<double> samples, lost;
};

void one(const std::vector<std::string>& argv, bool sample, Runs* runs) {
  rprof::LaunchSpec spec;
  spec.argv = argv;
  spec.stdout_path = "/dev/null";
  spec.sample_functions = sample;
  const rprof::LaunchResult r = rprof::launch(spec);
  if (r.shell_status() != 0) {
    std::fprintf(stderr, "sampling_overhead: %s exited with status %d\n", argv[0].c_str(),
                 r.shell_status());
    std::exit(1);
  }
  if (sample && !r.functions.sampled) {
    std::fprintf(stderr, "sampling_overhead: sampling refused: %s\n", r.functions.why.c_str());
    std::exit(77);
  }
  runs->wall.push_back(r.wall_time_s);
  runs->cpu.push_back(r.user_time_s + r.system_time_s);
  runs->samples.push_back(static_cast<double>(r.functions.samples));
  runs->lost.push_back(static_cast<double>(r.functions.lost));
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<std::vector<std::string>> programs;
  int i = 1;
  if (i < argc && std::string(argv[i]) != "--") reps = std::max(1, std::atoi(argv[i++]));
  if (i < argc && std::string(argv[i]) == "--") {
    programs.push_back(std::vector<std::string>(argv + i + 1, argv + argc));
  } else {
    const std::string dir = RPROF_SAMPLES_DIR;
    for (const std::vector<std::string>& p :
         {std::vector<std::string>{dir + "/matmul", "512"},
          std::vector<std::string>{dir + "/triad", "4000000", "20"},
          std::vector<std::string>{dir + "/omp_sum", "40000000", "64"}}) {
      if (access(p[0].c_str(), X_OK) == 0) programs.push_back(p);
    }
  }
  if (programs.empty() || programs[0].empty()) {
    std::fprintf(stderr, "usage: sampling_overhead [REPS] [-- PROGRAM ARGS...]\n");
    return 2;
  }
  std::printf(
      "cpu-clock sampling overhead: median of %d runs each, alternating; "
      "seconds wall (CPU = user + system of the app)\n",
      reps);
  std::printf("%-34s %-18s %-18s %-16s %9s %6s\n", "program (args)", "plain s", "sampled s",
              "sampled/plain", "samples", "lost");
  try {
    for (const std::vector<std::string>& p : programs) {
      Runs plain, sampled;
      for (int r = 0; r < reps; ++r) {
        one(p, false, &plain);
        one(p, true, &sampled);
      }
      std::string name = p[0].substr(p[0].rfind('/') + 1);
      for (size_t a = 1; a < p.size(); ++a) name += " " + p[a];
      char pl[32], sa[32], ra[32];
      std::snprintf(pl, sizeof(pl), "%.3f (%.3f)", median(plain.wall), median(plain.cpu));
      std::snprintf(sa, sizeof(sa), "%.3f (%.3f)", median(sampled.wall), median(sampled.cpu));
      std::snprintf(ra, sizeof(ra), "%.3f (%.3f)", median(sampled.wall) / median(plain.wall),
                    median(sampled.cpu) / median(plain.cpu));
      std::printf("%-34s %-18s %-18s %-16s %9.0f %6.0f\n", name.c_str(), pl, sa, ra,
                  median(sampled.samples), median(sampled.lost));
    }
  } catch (const rprof::Error& e) {
    std::fprintf(stderr, "sampling_overhead: %s\n", e.what());
    return 1;
  }
  return 0;
}
