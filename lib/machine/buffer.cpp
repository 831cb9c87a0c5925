#include "machine/buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "common/error.h"

namespace rprof {

Buffer::Buffer(size_t bytes, Pages pages) : bytes_(bytes) {
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
  if (pages == Pages::kHuge) madvise(data_, mapped_, MADV_HUGEPAGE);
  if (pages == Pages::kSmall) madvise(data_, mapped_, MADV_NOHUGEPAGE);
}

double Buffer::huge_share() const {
  if (data_ == nullptr || mapped_ == 0) return -1;
  // smaps lists each mapping as "start-end perms ..." followed by its fields.
  // The kernel may have merged this mapping with neighbours of the same
  // policy: the share is that of the whole mapping holding data_.
  std::ifstream in("/proc/self/smaps");
  if (!in) return -1;
  const auto addr = reinterpret_cast<uintptr_t>(data_);
  std::string line;
  bool inside = false;
  uintptr_t lo = 0, hi = 0;
  while (std::getline(in, line)) {
    unsigned long a = 0, b = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> a >> dash >> b && dash == '-' && line.find(':') > line.find(' ')) {
      inside = addr >= a && addr < b;
      lo = a, hi = b;
      continue;
    }
    if (!inside || line.rfind("AnonHugePages:", 0) != 0) continue;
    std::istringstream field(line.substr(14));
    double kib = 0;
    field >> kib;
    return std::clamp(kib * 1024 / std::max(static_cast<double>(hi - lo), 1.0), 0.0, 1.0);
  }
  return -1;
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
