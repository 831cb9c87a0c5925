// The machine model: CPU identity, caches (reported and effective sizes) and
// the ceilings `rprof machine` measured, per thread count, each with how it
// was measured. Stored as the machine file (docs/machine-file.md).
//
// Units: GFLOP/s with FMA = 2 FLOPs; GB/s with GB = 1e9 bytes; ns.
#ifndef RPROF_MACHINE_MACHINE_H_
#define RPROF_MACHINE_MACHINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "machine/flop_kernels.h"
#include "machine/fp_latency.h"
#include "machine/stream_kernels.h"
#include "machine/topology.h"
#include "common/kinds.h"

namespace rprof {

inline constexpr int kMachineSchemaVersion = 1;

// How one figure was measured. best/median/worst are in the figure's unit;
// spread = (best - worst) / best over the repetitions.
struct Provenance {
  std::string kernel;
  uint64_t working_set_bytes = 0;  // all threads together; 0 = registers only
  int threads = 1;
  int repetitions = 0;
  double seconds_per_rep = 0;
  double best = 0, median = 0, worst = 0;
  double spread = 0;
  int disturbed = 0;  // repetitions discarded because another process ran
};

struct PeakCeiling {
  Precision precision = Precision::kDP;
  Width width = Width::kScalar;
  FlopMix mix = FlopMix::kFma;
  std::string isa;
  double gflops = 0;  // best of the repetitions
  Provenance how;
};

// Bandwidth with the working set resident at a level, i.e. across a boundary:
// L1 = core<->L1, L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM.
struct BandwidthCeiling {
  Boundary boundary = Boundary::kL1;
  StreamMix mix = StreamMix::kLoad;
  double gbs = 0;          // explicit bytes (loads + stores), no write-allocate
  double traffic_gbs = 0;  // with the write-allocate read of each store
  Provenance how;
  std::string pages{};  // "4 KiB", "2 MiB", ...; empty: not recorded (older files)
  // The bytes that cross this boundary: explicit at L1, with write-allocate below.
  double boundary_gbs() const { return boundary == Boundary::kL1 ? gbs : traffic_gbs; }
  // Of those, the bytes per second that moved toward the core.
  double read_gbs() const {
    return boundary_gbs() * read_share(mix, boundary == Boundary::kL1);
  }
};

// The bandwidth roof of a boundary for a region's mix of reads and writes.
// One core's bandwidth below L1 depends on the mix: its reads are limited by
// the misses it keeps in flight, while write-backs leave without holding one
// (a Zen 4 core: read-only 25 GB/s from DRAM, read-modify-write 49). So the
// roof for a mix whose share of writes is w is
//   min(best of any kernel, best read rate of any kernel / (1 - w)),
// both over every kernel and page size measured: a read-only region is held
// against the best read-only rate, a read-modify-write one against twice it,
// and nothing against more than the best any kernel reached.
struct MixRoof {
  double gbs = 0;                           // the roof for this mix (0 = none)
  double write_share = 0;                   // w: written / all bytes at the boundary
  const BandwidthCeiling* best = nullptr;   // the best of any kernel (the any-mix roof)
  const BandwidthCeiling* reads = nullptr;  // the kernel with the best read rate
  bool read_limited = false;                // gbs = reads->read_gbs() / (1 - w) < best
  // The kernel that sets gbs.
  const BandwidthCeiling* kernel() const { return read_limited ? reads : best; }
};

struct LatencyCeiling {
  std::string level;  // "L1", "L2", "L3", "DRAM"
  double ns = 0;
  double cycles = 0;  // ns * estimated clock; 0 when the clock is unknown
  Provenance how;
  std::string pages{};  // the chase's pages ("2 MiB": no page walk in it); empty: not recorded
};

// One dependent floating-point operation's latency (fp_latency.h), measured
// with one thread: a chain of N accumulators per thread runs at most N
// operations per latency.
struct FpLatency {
  Precision precision = Precision::kDP;
  FpOp op = FpOp::kAdd;
  double ns = 0;
  double cycles = 0;  // ns * estimated clock; 0 when the clock is unknown
  Provenance how;
};

struct CacheInfo {
  int level = 0;
  uint64_t reported_bytes = 0;   // sysfs, per instance
  uint64_t effective_bytes = 0;  // from the sweep (0 = not measured)
  int associativity = 0;
  int line_bytes = 64;
  int shared_cpus = 1;
};

// A measured effective size replaces the reported (sysfs/CPUID) one only
// where the two differ by more than this factor either way. Sweeps on
// machines whose sysfs tells the truth find 0.5-0.95x the reported size
// (replacement, prefetchers, pages that collide), and two calibrations of one
// machine can differ by 1.5x; a virtual machine that shows its host's cache
// is off by 10x or more (480 MiB reported, 24 MiB effective).
inline constexpr double kCacheContradictionFactor = 4.0;

// The size a cache is taken to have (calibration working sets, the sim
// backend's simulated caches): the reported size, or, for a shared cache
// (the LLC, or an L2 shared by several CPUs), the effective one where it
// contradicts the report (`replaced`, with `why`: one clause, the level, both
// sizes and the factor). Private L1 and L2 always keep the reported size.
struct CacheSizeChoice {
  uint64_t bytes = 0;
  bool replaced = false;
  std::string why;
};
CacheSizeChoice chosen_cache_size(const CacheInfo& c);

struct SweepPoint {
  uint64_t bytes = 0;  // total working set
  double gbs = 0;      // explicit bytes, best of the repetitions
  double spread = 0;
};

struct Sweep {
  StreamMix mix = StreamMix::kLoad;
  int threads = 1;
  // "capacity": the sweep that finds effective cache sizes; "sizes": the
  // working sets asked for with --sizes.
  std::string purpose = "capacity";
  std::vector<SweepPoint> points;
};

struct CeilingSet {
  int threads = 1;
  std::vector<int> cpus;
  bool pinned = true;
  std::vector<PeakCeiling> peaks;
  std::vector<BandwidthCeiling> bandwidth;
  std::vector<LatencyCeiling> latency;

  // Best peak at this width over the operation mixes (FMA, add/mul, ...).
  const PeakCeiling* peak(Precision p, Width w) const;
  const PeakCeiling* peak(Precision p, Width w, FlopMix m) const;
  // The widest width with a measured peak.
  const PeakCeiling* top_peak(Precision p) const;
  // The best bandwidth of any kernel at a boundary, counting the bytes that
  // cross that boundary (BandwidthCeiling::boundary_gbs).
  const BandwidthCeiling* roof_bandwidth(Boundary b) const;
  // The roof for a mix with this share of written bytes (MixRoof).
  MixRoof roof_bandwidth(Boundary b, double write_share) const;
  // One kernel's figure at a boundary (the best of its page sizes).
  const BandwidthCeiling* bandwidth_of(Boundary b, StreamMix m) const;
};

struct Machine {
  int schema_version = kMachineSchemaVersion;
  std::string mode;  // tiny | quick | full
  std::string pages;  // which memory pages the kernels ran on
  std::string rprof_version;
  int64_t created_unix_s = 0;
  std::string host;
  CpuId cpu;
  int logical_cpus = 1;
  double clock_ghz = 0;  // estimated core clock while calibrating (0 = unknown)
  std::vector<CacheInfo> caches;
  std::vector<CeilingSet> ceilings;  // ascending thread counts
  std::vector<FpLatency> fp_latency;  // empty in files written before it was measured
  std::vector<Sweep> sweeps;
  std::vector<std::string> notes;

  // The set measured with the thread count nearest to `threads` (ties go to
  // the smaller count); nullptr when there is none.
  const CeilingSet* nearest(int threads) const;
  const FpLatency* fp_latency_of(Precision p, FpOp op) const;
  int max_threads() const;
};

}  // namespace rprof

#endif  // RPROF_MACHINE_MACHINE_H_
