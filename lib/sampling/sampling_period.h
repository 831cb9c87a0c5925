// The cpu-clock sampling period of the function view (--sample-period): what
// the user may ask for, and what the kernel grants.
#ifndef RPROF_SAMPLING_SAMPLING_PERIOD_H_
#define RPROF_SAMPLING_SAMPLING_PERIOD_H_

#include <cstdint>
#include <string>

namespace rprof {

// The default: 250 us of CPU time per sample and thread (4 kHz per busy
// thread), so a 50 ms function gets about 200 samples (relative error 7%).
// cpu-clock is an hrtimer: each sample is an interrupt of 1-3 us, under 1% of
// the app's time at this rate, and 4 kHz is far below the kernel's default
// limit (kernel.perf_event_max_sample_rate, 100 kHz).
inline constexpr uint64_t kSamplingPeriodNs = 250000;
// The kernel raises a cpu-clock period below 10 us to 10 us; above 1 s a
// function would need minutes of CPU time for any statistics.
inline constexpr uint64_t kMinSamplingPeriodNs = 10000;
inline constexpr uint64_t kMaxSamplingPeriodNs = 1000000000;

// "--sample-period" text to nanoseconds: a time (250us, 0.5ms, 100000ns, 1s;
// units ns, us, ms, s) or a rate (4000Hz, 4kHz: the period is 1 / rate).
// Throws Error (exit code 2), one line, naming the accepted forms and range.
uint64_t parse_sample_period(const std::string& text);

// What the kernel grants: a rate above kernel.perf_event_max_sample_rate is
// throttled (the event stops for the rest of the tick), so the period is
// raised to 1 / that rate; `note` then says so ("" when granted as asked).
struct GrantedPeriod {
  uint64_t period_ns = kSamplingPeriodNs;
  std::string note;
};
// max_rate_hz: the sysctl's value, 0 when unreadable (no limit applied).
GrantedPeriod grant_sample_period(uint64_t requested_ns, uint64_t max_rate_hz);
// kernel.perf_event_max_sample_rate from /proc/sys/kernel, 0 when unreadable.
uint64_t kernel_max_sample_rate();

// "250 us", "1 ms", "2.5 ms".
std::string format_period(uint64_t ns);

}  // namespace rprof

#endif  // RPROF_SAMPLING_SAMPLING_PERIOD_H_
