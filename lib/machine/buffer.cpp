#include "machine/buffer.h"

#include <sys/mman.h>

#include <string>
#include <utility>

#include "common/error.h"

namespace rprof {

Buffer::Buffer(size_t bytes, bool huge) : bytes_(bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  mapped_ = (bytes + kHuge - 1) / kHuge * kHuge + kHuge;  // room to align
  void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    mapped_ = 0;
    throw Error("cannot allocate " + std::to_string(bytes >> 20) +
                " MiB for a calibration buffer (mmap failed); free memory or use --quick");
  }
  const auto base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + kHuge - 1) / kHuge * kHuge;
  data_ = reinterpret_cast<void*>(aligned);
  // Unused head and tail are returned.
  if (aligned > base) munmap(p, aligned - base);
  const size_t keep = mapped_ - (aligned - base);
  const size_t used = (bytes + kHuge - 1) / kHuge * kHuge;
  if (keep > used) munmap(reinterpret_cast<void*>(aligned + used), keep - used);
  mapped_ = used;
  if (huge) madvise(data_, mapped_, MADV_HUGEPAGE);
}

Buffer::~Buffer() {
  if (data_ != nullptr) munmap(data_, mapped_);
}

Buffer::Buffer(Buffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      mapped_(std::exchange(o.mapped_, 0)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    mapped_ = std::exchange(o.mapped_, 0);
  }
  return *this;
}

}  // namespace rprof
