// Time per function of a native run, from cpu-clock sampling (the perf
// software event: works without a PMU). The contract between the launcher,
// which samples the timed pass when LaunchSpec::sample_functions is set, and
// the function view (--functions), which joins these times with the
// simulated run's per-function counts.
//
// Join key: (object, symbol). `object` is the absolute path of the ELF file
// the address lies in (the program or a shared library), as the kernel's
// mmap records name it; `symbol` is the raw (mangled) name from the ELF
// symbol table (.symtab, else .dynsym) whose [start, start + size) covers the
// address; "" when no symbol covers it (then `start` is the start of the
// 4 KiB-aligned address range, file-relative, and the report groups by object
// and range).
#ifndef RPROF_PROFILE_FUNCTION_TIMES_H_
#define RPROF_PROFILE_FUNCTION_TIMES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rprof {

struct FunctionTime {
  std::string object;
  std::string symbol;
  uint64_t start = 0;  // the symbol's st_value (file-relative virtual address)
  uint64_t self_samples = 0;
  // Samples with this function anywhere in the call chain (frame pointers:
  // 0 for all functions when no chain could be walked).
  uint64_t inclusive_samples = 0;
  double self_s = 0;       // self_samples x period: CPU seconds, all threads
  double inclusive_s = 0;  // inclusive_samples x period
  unsigned threads = 0;    // distinct threads with a sample in it
};

struct FunctionTimes {
  bool sampled = false;  // false: not asked, or refused (why says why)
  std::string why;
  double period_s = 0;     // sampling period, CPU seconds per sample
  uint64_t samples = 0;    // every sample taken, attributed or not
  uint64_t lost = 0;       // samples the kernel dropped (PERF_RECORD_LOST)
  bool callchains = false; // inclusive_samples are meaningful
  unsigned threads = 0;    // distinct threads with any sample, all processes
  // The period granted differs from the one asked for (kernel limit): why.
  std::string period_note;
  // Times the kernel throttled the event (samples missing: times undercount).
  uint64_t throttled = 0;
  std::vector<FunctionTime> functions;
};

}  // namespace rprof

#endif  // RPROF_PROFILE_FUNCTION_TIMES_H_
