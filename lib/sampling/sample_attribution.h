// From the sampler's records to times per function. The records are fed in
// the order the kernel wrote them while the app runs (mmap, fork, exec,
// sample, lost); each sample is reduced at once to locations (object, file
// offset), so memory grows with the number of distinct call stacks, not with
// the run's length. Symbols are looked up in finish(), after the app is gone:
// the ELF files are read once each.
#ifndef RPROF_SAMPLING_SAMPLE_ATTRIBUTION_H_
#define RPROF_SAMPLING_SAMPLE_ATTRIBUTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profile/function_times.h"

namespace rprof {

class SampleAttribution {
 public:
  // An executable mapping of process `pid` (PERF_RECORD_MMAP/MMAP2).
  void on_mmap(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
               const std::string& filename);
  // A new process `pid` forked from `ppid` (threads, pid == ppid, change
  // nothing): it starts with the parent's mappings.
  void on_fork(uint32_t pid, uint32_t ppid);
  // Process `pid` called exec: its old mappings are gone.
  void on_exec(uint32_t pid);
  // One sample: the interrupted user-space address and the user part of the
  // call chain, innermost first (chain[0] is normally ip itself).
  void on_sample(uint32_t pid, uint32_t tid, uint64_t ip, const uint64_t* chain, size_t chain_len,
                 uint64_t period);
  void on_lost(uint64_t n) { lost_ += n; }

  // Times per function; `period_ns` is the configured period, used when no
  // sample carried one.
  FunctionTimes finish(uint64_t period_ns) const;

 private:
  struct Mapping {
    uint64_t addr = 0, len = 0, pgoff = 0;
    uint32_t object = 0;
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t intern_object(const std::string& name);
  uint32_t location(uint32_t pid, uint64_t ip);

  struct VecHash {
    size_t operator()(const std::vector<uint32_t>& v) const;
  };
  std::vector<std::string> objects_;  // interned names: path, "[vdso]", "[anon]"
  std::unordered_map<std::string, uint32_t> object_index_;
  std::map<uint32_t, std::map<uint64_t, Mapping>> maps_;  // pid -> start -> mapping
  std::vector<std::pair<uint32_t, uint64_t>> locations_;  // (object, file offset)
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> location_index_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> thread_index_;  // (pid, tid)
  // [thread, self location (kNone: unattributed), chain locations...] -> samples
  std::unordered_map<std::vector<uint32_t>, uint64_t, VecHash> stacks_;
  uint64_t samples_ = 0;
  uint64_t lost_ = 0;
  uint64_t period_sum_ = 0;
  bool multi_frame_ = false;
};

}  // namespace rprof

#endif  // RPROF_SAMPLING_SAMPLE_ATTRIBUTION_H_
