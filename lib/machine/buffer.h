// Page-aligned memory for calibration kernels: 2 MiB aligned, released with
// the object. Pages: kSystem is what the system gives any program
// (transparent huge pages only where its policy is "always"); kSmall asks
// for 4 KiB pages (MADV_NOHUGEPAGE), kHuge for transparent huge pages
// (MADV_HUGEPAGE: fewer TLB misses, higher DRAM bandwidth in VMs; the kernel
// may still give fewer, see huge_share). Pages are touched by whoever writes
// first: workers initialise their own buffers so memory lands on their node.
#ifndef RPROF_MACHINE_BUFFER_H_
#define RPROF_MACHINE_BUFFER_H_

#include <cstddef>

namespace rprof {

enum class Pages { kSystem, kSmall, kHuge };

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes, Pages pages = Pages::kSystem);  // throws Error when memory is short
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  double* doubles() const { return static_cast<double*>(data_); }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // The share of the buffer on huge pages (from /proc/self/smaps' AnonHugePages
  // of its mapping), 0..1; -1 when unknown. Meaningful once it was touched.
  double huge_share() const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t mapped_ = 0;
};

}  // namespace rprof

#endif  // RPROF_MACHINE_BUFFER_H_
