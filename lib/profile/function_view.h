// The function view (rprof --functions, docs/functions.md): the simulated
// run's counts per function, and the sampled native run's times per function,
// become regions of the profile, so that analyze() gives each its roofline and
// verdict like any marked region and every writer shows them.
//
// A function's region path is `[program]/<function>` for what ran outside
// every marked region and `<marked region path>/<function>` under a marker
// (the innermost region open when it ran). Its counters are self counts: what
// its own instructions did (FLOPs, bytes at every boundary), not its callees'.
#ifndef RPROF_PROFILE_FUNCTION_VIEW_H_
#define RPROF_PROFILE_FUNCTION_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "profile/function_times.h"

namespace rprof {

// One (context, function) row of the Valgrind tool's table.
struct FunctionCounts {
  std::vector<std::string> context;  // marked region path, empty: outside all
  std::string object;                // ELF file the code lies in ("" unknown)
  std::string symbol;                // raw (mangled) name; "" when no symbol
  uint64_t start = 0;                // entry (file-relative without symbol: 4 KiB range)
  std::string file;                  // source of the entry, "" without debug info
  unsigned line = 0;
  CounterMap counters;               // self counts, canonical names
  // Inclusive: from entry to return of its outermost activation (callees
  // included, once under recursion), in the context it was entered in.
  CounterMap inclusive;
};

struct FunctionTable {
  std::vector<FunctionCounts> rows;  // summed over processes
  bool context_overflow = false;     // too many marked regions to tell apart
  // Non-zero: the tool's calling-context tree reached this many call paths;
  // deeper calls were counted without their callers (inclusive counts are
  // then lower bounds).
  uint64_t call_paths_cap = 0;
};

struct FunctionViewOptions {
  size_t top = 20;  // the hottest N functions become regions
};

// A C++ symbol demangled (`_Z...`), a gfortran module procedure
// (`__<module>_MOD_<procedure>`) as `<module>::<procedure>` (gdb's form), any
// other name as it is.
std::string demangle_symbol(const std::string& symbol);

// Display name: the demangled symbol, or "<object basename>+0x<range>" when
// no symbol covers the code.
std::string function_display_name(const FunctionCounts& f);

// Adds the hottest functions to p as regions (under [program] or their
// marked region) with their self counts and times: sampled self CPU time
// when `times.sampled` (split over marked regions by each one's share of the
// function's simulated work), else an estimate from the simulated work (its
// region's exclusive time split by share of FP instructions and bytes
// loaded/stored),
// with a note saying so. The rest are left out, with a note of how many and
// what share. Call after the [program] region has its counters and time.
void add_function_regions(Profile& p, const FunctionTable& table, const FunctionTimes& times,
                          const FunctionViewOptions& options);

}  // namespace rprof

#endif  // RPROF_PROFILE_FUNCTION_VIEW_H_
