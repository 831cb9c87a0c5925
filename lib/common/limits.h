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

// Whole files. profile.json and raw profiles are read from the file as they
// are parsed (common/json_reader.h, JsonText: 1 MiB at a time), so their size
// does not bound the reader's memory (kJsonKeptBytes does) and the writers'
// output has no cap of its own: a profile.json of 100,000 region paths is
// 103 MB with the time backend and about 300 MB with the sim backend's
// counters; a raw profile of one thread at the runtime's node limit (262,144
// paths) with 32 counters about 160 MB, and a process may have many threads.
// These caps only stop a file no run writes (a sparse 1 TB file), so that no
// input reads for hours. Several raw profiles are read at once within
// kRawInFlightBytes of files in all (memory: what each holds is its nodes).
inline constexpr uint64_t kProfileFileBytes = 64ull << 30;  // 64 GiB
inline constexpr uint64_t kRawFileBytes = 64ull << 30;      // 64 GiB
inline constexpr uint64_t kRawInFlightBytes = 256ull << 20; // 256 MiB
inline constexpr uint64_t kMachineFileBytes = 16ull << 20;  // 16 MiB

// Any JSON the tool reads: nesting of arrays and objects (the formats need
// 6), one string (a command-line argument is at most 128 KiB on Linux), and
// the number of values in one file. A file read piece by piece holds few of
// them at once (kJsonKeptBytes bounds that), so its count only follows the
// file caps (a value takes 2 bytes at least); a file read whole (the machine
// file) has its own, smaller count.
inline constexpr size_t kJsonDepth = 64;
inline constexpr size_t kJsonStringBytes = 1u << 20;       // 1 MiB
inline constexpr uint64_t kJsonValues = 32ull << 30;       // 34,359,738,368
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
inline constexpr size_t kNameBytes = 4096;  // a region name (the runtime refuses longer ones)
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
