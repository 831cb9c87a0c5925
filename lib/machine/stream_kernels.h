// Streaming kernels for bandwidth ceilings: read-only (load), copy and triad
// over arrays of doubles, compiled for the widest vector ISA the CPU runs
// (chosen at run time) and unrolled by four vectors.
//
// Byte conventions (also in docs/machine-file.md):
//   explicit bytes = 8 * (loads + stores) per element: what the kernel's
//     instructions move; this is the traffic at the L1 boundary (core<->L1)
//     and what likwid-bench and STREAM report.
//   traffic bytes = 8 * (loads + 2 * stores) per element: adds the
//     write-allocate read a store miss causes below L1 (a line is read before
//     it is written back), the bytes that cross L2, LLC and DRAM boundaries.
#ifndef RPROF_MACHINE_STREAM_KERNELS_H_
#define RPROF_MACHINE_STREAM_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rprof {

enum class StreamMix {
  kLoad = 0,   // s |= a[i]            1 load
  kCopy = 1,   // b[i] = a[i]          1 load, 1 store
  kTriad = 2,  // a[i] = b[i]*c[i] + d[i]  3 loads, 1 store (likwid-bench triad)
};
inline constexpr StreamMix kStreamMixes[] = {StreamMix::kLoad, StreamMix::kCopy,
                                             StreamMix::kTriad};

const char* stream_key(StreamMix m);  // "load", "copy", "triad"
bool parse_stream_mix(const std::string& s, StreamMix& out);

struct StreamKernel {
  StreamMix mix;
  const char* isa;
  const char* description;
  int arrays;  // arrays of n doubles the kernel touches
  int loads;   // per element
  int stores;  // per element
  // Elements per array must be a multiple of this (four vectors).
  size_t granule;
  // `passes` passes over `arrays` arrays of n doubles, each 64-byte aligned.
  double (*run)(double* const* arrays, size_t n, uint64_t passes);

  double explicit_bytes_per_elem() const { return 8.0 * (loads + stores); }
  double traffic_bytes_per_elem() const { return 8.0 * (loads + 2 * stores); }
};

// The kernel for a mix at the widest vector ISA this CPU runs.
StreamKernel stream_kernel(StreamMix mix);

// The kernel for a mix at every vector ISA this CPU runs, widest first (for
// tests: each variant must compute what it claims).
std::vector<StreamKernel> stream_kernel_variants(StreamMix mix);

}  // namespace rprof

#endif  // RPROF_MACHINE_STREAM_KERNELS_H_
