// The sizes the tool's readers accept (profile.json, raw profiles, machine
// files): each is checked before the data is used, and an input beyond one is
// refused with one line naming the file, the field and the limit, so that no
// input makes the tool hang or grow without bound. They are generous for real
// use (documented in docs/profile-schema.md and docs/machine-file.md); the
// runtime's own limits (lib/runtime/region_table.h, thread_state.h) are far
// below them.
#ifndef RPROF_COMMON_LIMITS_H_
#define RPROF_COMMON_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace rprof::limits {

// Whole files: a profile.json of 100,000 region paths is 103 MB, a raw
// profile of 100,000 paths with 32 counters (the runtime's most) about 50 MB.
// Both are read from the file as they are parsed (common/json_reader.h,
// JsonText: 1 MiB at a time), so their size does not bound the reader's
// memory (kJsonKeptBytes does); the machine file is read whole.
inline constexpr uint64_t kProfileFileBytes = 256ull << 20;  // 256 MiB
inline constexpr uint64_t kRawFileBytes = 256ull << 20;      // 256 MiB
inline constexpr uint64_t kMachineFileBytes = 16ull << 20;  // 16 MiB

// Any JSON the tool reads: nesting of arrays and objects (the formats need
// 6), one string (a command-line argument is at most 128 KiB on Linux), and
// the number of values in one file (memory: 16 to 32 bytes each; a profile
// of 100,000 region paths of 2 threads holds about 12 million).
inline constexpr size_t kJsonDepth = 64;
inline constexpr size_t kJsonStringBytes = 1u << 20;       // 1 MiB
inline constexpr uint64_t kJsonValues = 32ull << 20;       // 33,554,432
inline constexpr uint64_t kMachineJsonValues = 1u << 20;   // 1,048,576
// What a file read piece by piece (profile.json region by region, a raw
// profile node by node) holds as JSON at once, counted as it is allocated:
// an array's storage by its capacity, 16 bytes an element (while it doubles,
// old and new), 64 an array or object, 96 a member, 48 a string, plus the
// characters of a name or string longer than 15. The largest legitimate
// piece is one region of an MPI run: 65,536 thread rows of 40 columns take
// 42 MB; the file's header (1,048,576 missing ranks at most) 24 MB while its
// array grows. A hostile file is refused at this point, whatever it holds,
// before the parser allocates past it.
inline constexpr uint64_t kJsonKeptBytes = 64ull << 20;     // 64 MiB

// The profile model.
inline constexpr size_t kNameBytes = 4096;          // a region name (the runtime keeps 1024)
// Region paths in a profile, region names in a raw profile.
inline constexpr size_t kRegions = 1u << 20;
// Region instances (nodes) of one thread in a raw profile.
inline constexpr size_t kNodes = 1u << 22;
inline constexpr size_t kPathDepth = 4096;          // regions in one path (nesting)
inline constexpr size_t kThreads = 1u << 16;        // threads of one process
inline constexpr size_t kCounters = 1024;           // counters of one profile
inline constexpr size_t kCounterNameBytes = 256;
inline constexpr int64_t kWorldSize = 1 << 20;      // ranks of one MPI job (1,048,576)
inline constexpr size_t kErrors = 1u << 16;         // marker errors of one thread or profile

// The machine file.
inline constexpr size_t kCeilingSets = 1024;
inline constexpr size_t kCeilings = 4096;           // peaks, bandwidths or latencies of one set
inline constexpr int kLogicalCpus = 1 << 16;

}  // namespace rprof::limits

#endif  // RPROF_COMMON_LIMITS_H_
