// Page-aligned memory for calibration kernels: 2 MiB aligned, released with
// the object. By default pages are what the system gives any program
// (transparent huge pages only where its policy is "always"), so ceilings are
// what an ordinary malloc'd array can reach; `huge` asks for huge pages
// (MADV_HUGEPAGE: fewer TLB misses, higher DRAM bandwidth in VMs). Pages are touched by whoever writes
// first: workers initialise their own buffers so memory lands on their node.
#ifndef RPROF_MACHINE_BUFFER_H_
#define RPROF_MACHINE_BUFFER_H_

#include <cstddef>

namespace rprof {

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes, bool huge = false);  // throws Error when memory is short
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  double* doubles() const { return static_cast<double*>(data_); }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t mapped_ = 0;
};

}  // namespace rprof

#endif  // RPROF_MACHINE_BUFFER_H_
