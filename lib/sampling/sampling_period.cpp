#include "sampling/sampling_period.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/error.h"

namespace rprof {
namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw Error("--sample-period=" + text + ": " + why +
                  " (a time with a unit, e.g. 250us, 1ms, or a rate, e.g. 4kHz; from " +
                  format_period(kMinSamplingPeriodNs) + " to " +
                  format_period(kMaxSamplingPeriodNs) + ")",
              2);
}

}  // namespace

std::string format_period(uint64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns >= 1000000000) {
    std::snprintf(buf, sizeof buf, "%.4g s", v / 1e9);
  } else if (ns >= 1000000) {
    std::snprintf(buf, sizeof buf, "%.4g ms", v / 1e6);
  } else if (ns >= 1000) {
    std::snprintf(buf, sizeof buf, "%.4g us", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g ns", v);
  }
  return buf;
}

uint64_t parse_sample_period(const std::string& text) {
  if (text.empty()) bad(text, "empty");
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || text[0] == '-' || text[0] == '+' || !std::isfinite(v)) {
    bad(text, "not a number");
  }
  const std::string unit(end);
  double ns = 0;
  if (unit == "ns") {
    ns = v;
  } else if (unit == "us") {
    ns = v * 1e3;
  } else if (unit == "ms") {
    ns = v * 1e6;
  } else if (unit == "s") {
    ns = v * 1e9;
  } else if (unit == "Hz" || unit == "hz" || unit == "kHz" || unit == "khz") {
    const double hz = unit[0] == 'k' ? v * 1e3 : v;
    if (!(hz > 0)) bad(text, "a rate must be above 0 Hz");
    ns = 1e9 / hz;
  } else if (unit.empty()) {
    bad(text, "no unit");
  } else {
    bad(text, "unknown unit '" + unit + "'");
  }
  if (!(ns >= static_cast<double>(kMinSamplingPeriodNs) - 0.5) ||
      !(ns <= static_cast<double>(kMaxSamplingPeriodNs) + 0.5)) {
    bad(text, "out of range");
  }
  return static_cast<uint64_t>(std::llround(ns));
}

GrantedPeriod grant_sample_period(uint64_t requested_ns, uint64_t max_rate_hz) {
  GrantedPeriod g;
  g.period_ns = requested_ns;
  if (max_rate_hz == 0) return g;
  const uint64_t floor_ns = (1000000000 + max_rate_hz - 1) / max_rate_hz;
  if (requested_ns >= floor_ns) return g;
  g.period_ns = floor_ns;
  g.note = "sampling period " + format_period(floor_ns) + " instead of the " +
           format_period(requested_ns) + " asked for: kernel.perf_event_max_sample_rate is " +
           std::to_string(max_rate_hz) +
           " Hz (the kernel lowers it when sampling interrupts take long), and faster "
           "sampling would be throttled";
  return g;
}

uint64_t kernel_max_sample_rate() {
  std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
  long long v = 0;
  if (!(in >> v) || v <= 0) return 0;
  return static_cast<uint64_t>(v);
}

}  // namespace rprof
