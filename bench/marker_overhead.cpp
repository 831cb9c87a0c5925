// Cost of one begin/end pair with the `time` backend, beside the cost of the
// two clock_gettime(CLOCK_MONOTONIC) reads, measured in the same run.
// Target (issue 17): a pair costs at most 0.75x two clock reads (the runtime
// reads the invariant TSC where the CPU has one; RPROF_CLOCK=monotonic in the
// environment measures the clock_gettime fallback instead).
//
// The runtime activates from the environment before main(), so this program
// re-executes itself with RPROF_OUTPUT_DIR set to a private temporary
// directory (removed at the end).
#include <benchmark/benchmark.h>
#include <rprof/rprof.hpp>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

void BM_two_clock_reads(benchmark::State& state) {
  timespec a, b;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_two_clock_reads)->ThreadRange(1, 2);

void BM_c_function_pair(benchmark::State& state) {
  for (auto _ : state) {
    rprof_begin("bench_function");
    rprof_end("bench_function");
  }
}
BENCHMARK(BM_c_function_pair)->ThreadRange(1, 2);

void BM_macro_pair(benchmark::State& state) {
  for (auto _ : state) {
    RPROF_BEGIN("bench_macro");
    RPROF_END("bench_macro");
  }
}
BENCHMARK(BM_macro_pair)->ThreadRange(1, 2);

void BM_scoped_guard(benchmark::State& state) {
  for (auto _ : state) {
    RPROF_SCOPE("bench_scope");
  }
}
BENCHMARK(BM_scoped_guard)->ThreadRange(1, 2);

void BM_nested_macro_pair(benchmark::State& state) {
  RPROF_BEGIN("bench_parent");
  for (auto _ : state) {
    RPROF_BEGIN("bench_child");
    RPROF_END("bench_child");
  }
  RPROF_END("bench_parent");
}
BENCHMARK(BM_nested_macro_pair);

// Collects ns/iteration per benchmark to print the ratio at the end.
constexpr double kTarget = 0.75;

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      ns_[r.benchmark_name()] = r.GetAdjustedCPUTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Summary() const {
    const double clocks = ns_.count("BM_two_clock_reads/threads:1")
                              ? ns_.at("BM_two_clock_reads/threads:1")
                              : 0;
    if (clocks <= 0) return;
    const char* clock = getenv("RPROF_CLOCK");
    std::printf("\nPer begin/end pair, 1 thread, time backend (ns, CPU time), runtime clock: %s\n",
                clock != nullptr && std::string(clock) == "monotonic"
                    ? "clock_gettime (RPROF_CLOCK=monotonic)"
                    : "TSC where invariant, else clock_gettime");
    std::printf("  two clock reads (CLOCK_MONOTONIC): %.1f ns\n", clocks);
    for (const char* name : {"BM_c_function_pair/threads:1", "BM_macro_pair/threads:1",
                             "BM_scoped_guard/threads:1", "BM_nested_macro_pair"}) {
      if (!ns_.count(name)) continue;
      const double ns = ns_.at(name);
      std::printf("  %-30s %6.1f ns = %.2fx two clock reads (target <= 0.75x) %s\n",
                  name, ns, ns / clocks, ns / clocks <= kTarget ? "OK" : "OVER");
    }
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  if (getenv("RPROF_OUTPUT_DIR") == nullptr) {
    char dir[] = "/tmp/rprof-bench-XXXXXX";
    if (mkdtemp(dir) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    setenv("RPROF_OUTPUT_DIR", dir, 1);
    setenv("RPROF_BACKEND", "time", 1);
    const pid_t pid = fork();
    if (pid == 0) {
      execv("/proc/self/exe", argv);
      std::perror("execv");
      _exit(1);
    }
    int status = 1;
    waitpid(pid, &status, 0);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (!rprof_active()) {
    std::fprintf(stderr, "marker_overhead: the rprof runtime is not active\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.Summary();
  benchmark::Shutdown();
  return 0;
}
