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

WarmUp::Step WarmUp::add(double seconds) {
  spent_ += seconds;
  const bool agree = last_ > 0 && std::abs(seconds - last_) <= kSettled * last_;
  last_ = seconds;
  if (spent_ >= min_s_ && agree) return Step::kAgreed;
  if (spent_ >= max_s_ || seconds <= 0) return Step::kGaveUp;
  return Step::kMore;
}

bool settle(ThreadTeam& team, const std::function<void(int)>& task, double min_s, double max_s) {
  WarmUp rule(min_s, max_s);
  for (;;) {
    switch (rule.add(team.run(task))) {
      case WarmUp::Step::kAgreed:
        return true;
      case WarmUp::Step::kGaveUp:
        return false;
      case WarmUp::Step::kMore:
        break;
    }
  }
}

void sample_rate(ThreadTeam& team, const std::function<void(int, uint64_t)>& body,
                 double work_per_unit, const RepeatPlan& plan, Samples& into) {
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
  if (plan.warm_s > 0) settle(team, task, plan.warm_s, 4 * plan.warm_s);
  const double work = work_per_unit * static_cast<double>(units) * team.size();
  const int want = std::max(1, plan.reps);
  const int tries = plan.max_tries > 0 ? plan.max_tries : 3 * want;
  int good = 0;
  for (int ran = 0; ran < tries && good < want; ++ran) {
    const double t = team.run(task);
    into.seconds += t;
    ++into.ran;
    const double rate = t > 0 ? work / t : 0;
    const bool undisturbed = team.last_on_cpu() >= kMinOnCpu;
    good += undisturbed;
    (undisturbed ? into.rates : into.disturbed).push_back(rate);
  }
}

Stat summarize(const Samples& s) {
  Stat out = summarize(s.rates.empty() ? s.disturbed : s.rates,
                       s.seconds / std::max(1, s.ran));
  out.disturbed = static_cast<int>(s.disturbed.size());
  return out;
}

Stat measure_rate(ThreadTeam& team, const std::function<void(int, uint64_t)>& body,
                  double work_per_unit, const RepeatPlan& plan) {
  Samples s;
  sample_rate(team, body, work_per_unit, plan, s);
  return summarize(s);
}

}  // namespace rprof
