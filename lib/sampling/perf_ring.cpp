#include "sampling/perf_ring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rprof {

void drain_ring(perf_event_mmap_page* meta, const char* data, uint64_t data_size,
                const std::function<void(const char*, size_t)>& fn) {
  const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  // Copies n bytes from ring position `from` (any multiple of the size).
  auto copy = [&](uint64_t from, size_t n, char* to) {
    const uint64_t at = from % data_size;
    const size_t first = static_cast<size_t>(std::min<uint64_t>(n, data_size - at));
    std::memcpy(to, data + at, first);
    if (first < n) std::memcpy(to + first, data, n - first);
  };
  std::vector<char> rec;
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header h{};
    copy(tail, sizeof(h), reinterpret_cast<char*>(&h));
    if (h.size < sizeof(h) || h.size > head - tail || h.size > data_size) break;
    rec.resize(h.size);
    copy(tail, h.size, rec.data());
    fn(rec.data(), h.size);
    tail += h.size;
  }
  // What could not be read (a corrupt size) is given up: the kernel may write.
  __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

PerfRing::PerfRing(int fd, size_t data_pages) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = (data_pages + 1) * page;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    error_ = errno;
    return;
  }
  base_ = p;
  bytes_ = bytes;
}

PerfRing::PerfRing(PerfRing&& o) noexcept : base_(o.base_), bytes_(o.bytes_), error_(o.error_) {
  o.base_ = nullptr;
  o.bytes_ = 0;
}

PerfRing::~PerfRing() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

void PerfRing::drain(const std::function<void(const char*, size_t)>& fn) {
  if (base_ == nullptr) return;
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uint64_t offset = meta->data_offset != 0 ? meta->data_offset : page;
  const uint64_t size = meta->data_size != 0 ? meta->data_size : bytes_ - page;
  if (offset > bytes_ || size > bytes_ - offset || size == 0) return;
  drain_ring(meta, static_cast<const char*>(base_) + offset, size, fn);
}

}  // namespace rprof
