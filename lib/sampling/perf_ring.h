// One perf event's ring buffer: 1 + 2^n pages mapped read-write, so the
// kernel drops (and counts, PERF_RECORD_LOST) what does not fit rather than
// overwrite what was not read yet.
#ifndef RPROF_SAMPLING_PERF_RING_H_
#define RPROF_SAMPLING_PERF_RING_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace rprof {

// The records of a ring buffer, oldest first: calls fn(record, size) for each
// whole record between data_tail and data_head, copying the ones that wrap
// around the end of the buffer, then frees what it read (data_tail). A record
// whose size does not fit ends the reading (the rest is skipped).
void drain_ring(perf_event_mmap_page* meta, const char* data, uint64_t data_size,
                const std::function<void(const char*, size_t)>& fn);

class PerfRing {
 public:
  // Maps `data_pages` (a power of two) pages of data for `fd`.
  PerfRing(int fd, size_t data_pages);
  ~PerfRing();
  PerfRing(PerfRing&& o) noexcept;
  PerfRing& operator=(PerfRing&&) = delete;
  PerfRing(const PerfRing&) = delete;
  PerfRing& operator=(const PerfRing&) = delete;

  bool ok() const { return base_ != nullptr; }
  int error() const { return error_; }  // mmap's errno when !ok()
  void drain(const std::function<void(const char*, size_t)>& fn);

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
  int error_ = 0;
};

}  // namespace rprof

#endif  // RPROF_SAMPLING_PERF_RING_H_
