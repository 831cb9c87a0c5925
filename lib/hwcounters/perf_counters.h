// perf_event counters of one thread (or, for uncore, of one socket), in the
// shape of Google Benchmark's perf_counters: a move-only owner of the file
// descriptors whose Create() reports failure instead of throwing, and a
// Read() of raw counts with the times needed to scale multiplexed ones.
//
// Per-thread groups are real perf groups (one leader, members scheduled
// together), opened disabled on the calling thread, then enabled at once.
// System-wide (uncore) events each lead their own group: every memory
// controller is a separate PMU. Counts are raw; the tool scales them by
// enabled/running per region (lib/hwcounters/hw_metrics.h).
//
// Fast path: when the kernel lets user space read the counters
// (cap_user_rdpmc in the event's mmap page, x86), Read() uses rdpmc and the
// page's time fields instead of a read() system call. RPROF_PERF_RDPMC=0
// turns it off.
#ifndef RPROF_HWCOUNTERS_PERF_COUNTERS_H_
#define RPROF_HWCOUNTERS_PERF_COUNTERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hwcounters/perf_spec.h"

namespace rprof {

// The outcome of opening: 0, or the errno of the first event that failed.
struct PerfOpenStatus {
  int err = 0;
  std::string event;  // key of the event that failed
  bool ok() const { return err == 0; }
};

class PerfGroupCounters {
 public:
  PerfGroupCounters() = default;
  ~PerfGroupCounters();
  PerfGroupCounters(PerfGroupCounters&& other) noexcept;
  PerfGroupCounters& operator=(PerfGroupCounters&& other) noexcept;
  PerfGroupCounters(const PerfGroupCounters&) = delete;
  PerfGroupCounters& operator=(const PerfGroupCounters&) = delete;

  // Opens, and enables, the group on the calling thread (or on spec's cpu for
  // a system-wide group). Invalid (and *status says why) on failure.
  static PerfGroupCounters Create(const PerfGroupSpec& spec, bool allow_rdpmc,
                                  PerfOpenStatus* status);

  bool valid() const { return !fds_.empty(); }
  // Output slots: one per output key, then enabled_ns and running_ns.
  int num_outputs() const { return num_keys_ + 2; }
  bool uses_rdpmc() const { return rdpmc_; }
  // Reads raw counts into out[0..num_outputs()); false (and zeros) on error.
  bool Read(uint64_t* out) const;

 private:
  void reset();
  bool read_rdpmc(uint64_t* out) const;
  bool read_group(uint64_t* out) const;
  bool read_each(uint64_t* out) const;

  std::vector<int> fds_;
  std::vector<int> slot_;      // output slot of each fd (system-wide: summed)
  std::vector<void*> pages_;   // mmap'ed perf_event_mmap_page per fd (rdpmc)
  int num_keys_ = 0;
  bool system_wide_ = false;
  bool rdpmc_ = false;
};

// Thin wrapper over perf_event_open(2); -1 and errno on failure.
int perf_event_open_fd(const PerfEventSpec& e, int group_fd, bool leader, bool group_read);

}  // namespace rprof

#endif  // RPROF_HWCOUNTERS_PERF_COUNTERS_H_
