// Repetitions and their statistics. A ceiling is the best of N timed
// repetitions (the run least disturbed by other processes), the DRAM
// bandwidth their median (calibrate.cpp); the median and the worst are kept
// so the machine file shows how noisy the machine was.
#ifndef RPROF_MACHINE_MEASURE_H_
#define RPROF_MACHINE_MEASURE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "machine/thread_team.h"

namespace rprof {

// The spread a calibrated bandwidth is expected to stay within on a quiet
// machine ((best - worst) / best over its repetitions); beyond it the
// calibration notes the figure as unstable.
inline constexpr double kStableSpread = 0.05;

struct Stat {
  int reps = 0;
  double best = 0;    // highest rate
  double median = 0;
  double worst = 0;   // lowest rate
  double seconds_per_rep = 0;
  int disturbed = 0;  // repetitions discarded: another process took the CPU
  // (best - worst) / best: 0 on a quiet machine.
  double spread() const { return best > 0 ? (best - worst) / best : 0; }
};

// Rates (higher is better) into a Stat.
Stat summarize(std::vector<double> rates, double seconds_per_rep = 0);

struct RepeatPlan {
  double target_s = 0.02;  // length of one repetition
  int reps = 5;            // undisturbed repetitions wanted
  int max_tries = 0;       // repetitions at most (0 = 3 * reps)
  // Before the timed repetitions, run the kernel untimed for at least this
  // long and until two successive runs agree within kSettled (at most 4x
  // as long): a stream to DRAM after in-cache work ran 15-25 % slow for its
  // first 50-100 ms on a Zen 5 VM (fabric and memory clocks ramping up).
  double warm_s = 0;
};

// Two successive warm-up runs within this share of each other: settled.
inline constexpr double kSettled = 0.03;

// A warm-up's stopping rule, fed the length of each untimed run: go on until
// min_s has passed and two successive runs agree within kSettled (settled),
// or max_s has passed (gave up).
class WarmUp {
 public:
  enum class Step { kMore, kAgreed, kGaveUp };
  WarmUp(double min_s, double max_s) : min_s_(min_s), max_s_(max_s) {}
  Step add(double seconds);

 private:
  double min_s_, max_s_, spent_ = 0, last_ = 0;
};

// Runs task on the team, untimed for any ceiling, by WarmUp(min_s, max_s)'s
// rule. Returns whether it settled.
bool settle(ThreadTeam& team, const std::function<void(int)>& task, double min_s, double max_s);

// A repetition in which some worker had its CPU for less than this share of
// the time was disturbed by another process and is not used (unless every
// repetition was).
inline constexpr double kMinOnCpu = 0.97;

// Timed repetitions of one or more runs of a kernel (one per buffer placement,
// calibrate.cpp), summarised together.
struct Samples {
  std::vector<double> rates;      // undisturbed repetitions
  std::vector<double> disturbed;  // another process took a CPU while they ran
  double seconds = 0;             // all timed repetitions
  int ran = 0;
};

// Runs body(worker, units) on every worker of the team: first with growing
// `units` until one run lasts about plan.target_s (this also warms caches,
// pages and clocks), then timed repetitions until plan.reps of them ran
// undisturbed (ThreadTeam::last_on_cpu) or plan.max_tries ran; adds them to
// `into`. work_per_unit is the work one unit does on one worker; the rate is
// the whole team's work per second of elapsed time.
void sample_rate(ThreadTeam& team, const std::function<void(int, uint64_t)>& body,
                 double work_per_unit, const RepeatPlan& plan, Samples& into);

// The undisturbed repetitions' statistics (all of them when every one was
// disturbed), with the count of disturbed ones.
Stat summarize(const Samples& s);

// sample_rate and summarize in one.
Stat measure_rate(ThreadTeam& team, const std::function<void(int, uint64_t)>& body,
                  double work_per_unit, const RepeatPlan& plan);

}  // namespace rprof

#endif  // RPROF_MACHINE_MEASURE_H_
