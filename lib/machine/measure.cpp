#include "machine/measure.h"

#include <algorithm>
#include <cmath>

namespace rprof {

Stat summarize(std::vector<double> rates, double seconds_per_rep) {
  Stat s;
  s.reps = static_cast<int>(rates.size());
  s.seconds_per_rep = seconds_per_rep;
  if (rates.empty()) return s;
  std::sort(rates.begin(), rates.end());
  s.worst = rates.front();
  s.best = rates.back();
  const size_t n = rates.size();
  s.median = n % 2 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]);
  return s;
}

Stat measure_rate(ThreadTeam& team, const std::function<void(int, uint64_t)>& body,
                  double work_per_unit, const RepeatPlan& plan) {
  uint64_t units = 1;
  uint64_t current = 1;
  const std::function<void(int)> task = [&](int w) { body(w, current); };
  // Grow until a run is long enough to scale from (clock resolution and
  // start-up costs are then negligible), then aim at the target length.
  for (;;) {
    current = units;
    const double t = team.run(task);
    if (t >= plan.target_s / 4 || units >= (uint64_t{1} << 40)) {
      const double scale = t > 0 ? plan.target_s / t : 1;
      units = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(static_cast<double>(units) * scale)));
      break;
    }
    units *= t < plan.target_s / 64 ? 8 : 2;
  }
  current = units;
  std::vector<double> rates;
  double total = 0;
  const double work = work_per_unit * static_cast<double>(units) * team.size();
  for (int r = 0; r < std::max(1, plan.reps); ++r) {
    const double t = team.run(task);
    total += t;
    rates.push_back(t > 0 ? work / t : 0);
  }
  return summarize(std::move(rates), total / std::max(1, plan.reps));
}

}  // namespace rprof
