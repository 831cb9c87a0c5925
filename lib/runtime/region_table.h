// Process-wide interning of region names into small integer ids.
//
// Lookups are lock-free (an open-addressing table of atomic ids); a name seen
// for the first time takes a mutex and copies the name once. Id 0 means "none".
#ifndef RPROF_RUNTIME_REGION_TABLE_H_
#define RPROF_RUNTIME_REGION_TABLE_H_

#include <cstddef>
#include <cstdint>

namespace rprof::runtime {

inline constexpr uint32_t kMaxRegions = 16384;
// Longest name kept (the tool's readers accept as much, common/limits.h);
// a longer name is refused, never cut (two cut names would merge).
inline constexpr size_t kMaxNameBytes = 4096;
// The whole-program row's name (profile/profile.h kProgramRegion): refused.
inline constexpr char kReservedRegionName[] = "[program]";

enum class InternResult { kOk, kFull, kTooLong, kReserved };

// Returns the id of `name` (interning it if new), or 0 when the table is
// full, the name is longer than kMaxNameBytes or reserved (*why says which).
uint32_t intern_region(const char* name, InternResult* why = nullptr);
// The id of `name` when it was interned before, else 0 (never inserts, never
// locks).
uint32_t find_region(const char* name);
// Name of an interned id (valid for the life of the process).
const char* region_name(uint32_t id);
// Number of ids handed out so far (ids are 1..count).
uint32_t region_count();
// In the child after fork(): the insert lock, which another thread of the
// parent may have held, is free again (the child has one thread).
void region_table_after_fork();

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_REGION_TABLE_H_
