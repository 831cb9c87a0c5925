// Samples a process, its threads and its children with the cpu-clock
// software event (perf_event_open; no PMU needed) and turns the samples into
// times per function (FunctionTimes).
//
// Use: fork the app so that it waits (on a pipe) before exec; construct the
// sampler on it; start(); let it exec; wait for the app; finish(). The event
// is enabled by the exec (enable_on_exec), so nothing of rprof is sampled.
//
// For tests only: RPROF_TEST_SAMPLING_ERRNO=<EACCES|EPERM|ENOSYS|ENOENT|n> in
// rprof's environment makes the sampler fail as if perf_event_open returned
// that errno (the refusal path, without changing the machine).
#ifndef RPROF_SAMPLING_CPU_CLOCK_SAMPLER_H_
#define RPROF_SAMPLING_CPU_CLOCK_SAMPLER_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "profile/function_times.h"
#include "sampling/perf_ring.h"
#include "sampling/sample_attribution.h"
#include "sampling/sampling_period.h"

namespace rprof {

inline constexpr const char* kSamplingErrnoEnv = "RPROF_TEST_SAMPLING_ERRNO";

// Why perf_event_open failed with `err`, and the fix: one line.
std::string sampling_refused_why(int err, int paranoid, bool privileged);

// A record of the ring buffers, decoded, waiting to be put in time order.
struct SamplerRecord {
  uint64_t time = 0;                      // CLOCK_MONOTONIC ns
  uint32_t type = 0;                      // PERF_RECORD_*
  uint32_t pid = 0, tid = 0;              // FORK: tid is the parent's pid
  uint64_t addr = 0, len = 0, pgoff = 0;  // MMAP; SAMPLE: addr is the ip
  uint64_t period = 0;
  bool user = true;             // SAMPLE: taken in user space
  std::string name;             // MMAP: the file
  std::vector<uint64_t> chain;  // SAMPLE: user call chain, innermost first
};

// Decodes one record of a sampler's buffer (sample_type IP | TID | TIME |
// PERIOD | CALLCHAIN, sample_id_all): false for records it does not use or
// cannot read; `lost` grows by the samples a LOST record reports.
bool decode_sampler_record(const char* rec, size_t size, SamplerRecord* out, uint64_t* lost);

class CpuClockSampler {
 public:
  // Opens the event on `pid` (a forked child that has not exec'ed yet) with
  // the period the kernel grants (grant_sample_period), one per CPU (the kernel maps no buffer of a per-task event that is inherited)
  // and maps their ring buffers. Never throws: on failure, active() is false
  // and why() says why in one line.
  explicit CpuClockSampler(pid_t pid, uint64_t period_ns = kSamplingPeriodNs);
  ~CpuClockSampler();
  CpuClockSampler(const CpuClockSampler&) = delete;
  CpuClockSampler& operator=(const CpuClockSampler&) = delete;

  bool active() const { return !fds_.empty(); }
  const std::string& why() const { return why_; }

  // Starts reading the ring buffer in a thread of its own (every signal
  // blocked there, so the launcher's handlers run where they always did).
  void start();
  // Stops the reader, reads what is left, closes the event and attributes:
  // call after the app has ended. sampled = false with why when not active.
  FunctionTimes finish();

 private:
  void read_loop();
  // Reads every buffer, then attributes the records older than `horizon`
  // (CLOCK_MONOTONIC ns) in time order; the others wait for the next round.
  void drain(uint64_t horizon);
  void stop();
  void close_events();

  std::vector<int> fds_;  // one per CPU
  std::vector<PerfRing> rings_;
  int wake_fd_ = -1;  // eventfd: finish() wakes the reader
  uint64_t period_ns_;
  bool monotonic_ = true;  // timestamps are CLOCK_MONOTONIC (else order at the end)
  std::vector<SamplerRecord> pending_;
  uint64_t lost_ = 0;
  uint64_t throttled_ = 0;  // PERF_RECORD_THROTTLE: the kernel stopped the event
  std::string period_note_;
  std::string why_;
  std::thread reader_;
  std::atomic<bool> stopping_{false};
  SampleAttribution attribution_;
};

}  // namespace rprof

#endif  // RPROF_SAMPLING_CPU_CLOCK_SAMPLER_H_
