// Streaming kernels for bandwidth ceilings over arrays of doubles, compiled
// for the widest vector ISA the CPU runs (chosen at run time) and unrolled by
// four vectors. The set spans the mixes of reads and writes plain loops have:
// read-only (load; streams: eight arrays at once), copy and triad (stores to
// lines not read: write-allocate), update and daxpy (read-modify-write: the
// stored line was just read) and non-temporal copy (stores that bypass the
// caches). On one core the bandwidth below L1 depends on that mix: reads are
// limited by the misses a core keeps in flight, write-backs leave without
// holding one, so a read-modify-write stream moves up to twice the bytes of a
// read-only one (likwid-bench update 49 GB/s against load 25 on a Zen 4 VM).
//
// Byte conventions (also in docs/machine-file.md):
//   explicit bytes = 8 * (loads + stores) per element: what the kernel's
//     instructions move; this is the traffic at the L1 boundary (core<->L1)
//     and what likwid-bench and STREAM report.
//   traffic bytes = explicit bytes + 8 * stores per element where a store
//     goes to a line the kernel did not read (write_allocate): the
//     write-allocate read a store miss causes below L1 (a line is read
//     before it is written back), the bytes that cross L2, LLC and DRAM.
//   read share = the share of traffic bytes that move toward the core.
#ifndef RPROF_MACHINE_STREAM_KERNELS_H_
#define RPROF_MACHINE_STREAM_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rprof {

enum class StreamMix {
  kLoad = 0,     // s |= a[i]                 1 load
  kCopy = 1,     // b[i] = a[i]               1 load, 1 store (write-allocate)
  kTriad = 2,    // a[i] = b[i]*c[i] + d[i]   3 loads, 1 store (likwid-bench triad)
  kUpdate = 3,   // a[i] = s * a[i]           1 load, 1 store to the line read
  kDaxpy = 4,    // y[i] = s * x[i] + y[i]    2 loads, 1 store to a line read
  kStreams = 5,  // s |= a0[i] | ... | a7[i]  8 loads from 8 arrays
  kNtCopy = 6,   // b[i] = a[i]               1 load, 1 non-temporal store
};
inline constexpr StreamMix kStreamMixes[] = {StreamMix::kLoad,   StreamMix::kCopy,
                                             StreamMix::kTriad,  StreamMix::kUpdate,
                                             StreamMix::kDaxpy,  StreamMix::kStreams,
                                             StreamMix::kNtCopy};

// "load", "copy", "triad", "update", "daxpy", "streams", "ntcopy"
const char* stream_key(StreamMix m);
bool parse_stream_mix(const std::string& s, StreamMix& out);
// Non-temporal stores bypass the caches: such a kernel measures memory, not
// a cache level, and is run at the DRAM boundary only.
inline bool bypasses_caches(StreamMix m) { return m == StreamMix::kNtCopy; }
// Stores to lines the kernel did not read first (a write-allocate read below
// L1); false for read-modify-write and non-temporal stores.
bool write_allocates(StreamMix m);
// Bytes per element of each kind (see the conventions above).
int stream_loads(StreamMix m);
int stream_stores(StreamMix m);
// The share of the bytes crossing boundary b that move toward the core.
double read_share(StreamMix m, bool l1_boundary);

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
  double traffic_bytes_per_elem() const {
    return 8.0 * (loads + stores + (write_allocates(mix) ? stores : 0));
  }
};

// The kernel for a mix at the widest vector ISA this CPU runs.
StreamKernel stream_kernel(StreamMix mix);

// The kernel for a mix at every vector ISA this CPU runs, widest first (for
// tests: each variant must compute what it claims).
std::vector<StreamKernel> stream_kernel_variants(StreamMix mix);

}  // namespace rprof

#endif  // RPROF_MACHINE_STREAM_KERNELS_H_
