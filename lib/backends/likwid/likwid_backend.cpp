// The `likwid` runtime backend: LIKWID's perfmon API, which counts per CPU,
// not per thread. The tool passes
//   RPROF_LIKWID_EVENTS = key '=' EVENT ':' COUNTER (',' ...)*   (key "_" = not recorded, e.g. MERGE)
//   RPROF_LIKWID_GROUP_BASE = G: counters are hw.g<G>.<key>
// A thread's read() reads the CPU it runs on: counts are right only when
// threads are pinned (likwid-pin, OMP_PROC_BIND=true) and nothing else runs
// on their CPUs. The counter likwid.cpu_changes counts reads that found the
// thread on another CPU than its previous read; the tool flags regions where
// it is non-zero.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "backends/likwid/likwid_api.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

thread_local int t_last_cpu = -1;
thread_local uint64_t t_cpu_changes = 0;

class LikwidBackend final : public Backend {
 public:
  LikwidBackend(const LikwidApi* api, std::vector<int> cpus, int group,
                std::vector<int> slots, std::vector<std::string> names)
      : api_(api), cpus_(std::move(cpus)), group_(group), slots_(std::move(slots)),
        names_(std::move(names)) {
    for (size_t i = 0; i < cpus_.size(); ++i) {
      if (cpus_[i] >= 0 && cpus_[i] < kMaxCpu) index_of_[cpus_[i]] = static_cast<int>(i);
    }
  }
  const char* name() const override { return "likwid"; }
  int num_counters() const override { return static_cast<int>(names_.size()); }
  const char* counter_name(int i) const override { return names_[static_cast<size_t>(i)].c_str(); }

  void read(uint64_t* out) override {
    const int cpu = sched_getcpu();
    if (t_last_cpu >= 0 && cpu != t_last_cpu) ++t_cpu_changes;
    t_last_cpu = cpu;
    const int idx = cpu >= 0 && cpu < kMaxCpu ? index_of_[cpu] : -1;
    const size_t n = names_.size() - 1;  // the last slot is likwid.cpu_changes
    {
      std::lock_guard<std::mutex> lock(mu_);  // perfmon state is process-wide
      if (idx >= 0) api_->perfmon_read_counters_cpu(cpu);
      for (size_t k = 0; k < n; ++k) {
        const double v = idx >= 0 ? api_->perfmon_get_result(group_, slots_[k], idx) : 0;
        out[k] = v > 0 ? static_cast<uint64_t>(v) : 0;
      }
    }
    out[n] = t_cpu_changes;
  }

 private:
  static constexpr int kMaxCpu = 4096;
  const LikwidApi* api_;
  std::vector<int> cpus_;
  int group_;
  std::vector<int> slots_;  // likwid event index of each recorded key
  std::vector<std::string> names_;
  int index_of_[kMaxCpu] = {};
  std::mutex mu_;
};

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace

std::unique_ptr<Backend> make_likwid_backend(std::string* why) {
  const char* spec = std::getenv(RPROF_ENV_LIKWID_EVENTS);
  if (spec == nullptr || *spec == '\0') {
    *why = RPROF_ENV_LIKWID_EVENTS " is not set (run the program under `rprof --backend=likwid`)";
    return nullptr;
  }
  const char* base = std::getenv(RPROF_ENV_LIKWID_GROUP_BASE);
  const std::string prefix = "hw.g" + std::to_string(base ? std::atoi(base) : 0) + ".";
  std::string events;
  std::vector<int> slots;
  std::vector<std::string> names;
  std::string s = spec;
  int index = 0;
  for (size_t start = 0; start <= s.size(); ++index) {
    const size_t end = s.find(',', start) == std::string::npos ? s.size() : s.find(',', start);
    const std::string item = s.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || item.find(':', eq) == std::string::npos) {
      *why = RPROF_ENV_LIKWID_EVENTS ": '" + item + "' is not key=EVENT:COUNTER";
      return nullptr;
    }
    events += (events.empty() ? "" : ",") + item.substr(eq + 1);
    if (item.substr(0, eq) != "_") {
      slots.push_back(index);
      names.push_back(prefix + item.substr(0, eq));
    }
    start = end + 1;
  }
  names.push_back("likwid.cpu_changes");
  if (static_cast<int>(names.size()) > kMaxCounters) {
    *why = RPROF_ENV_LIKWID_EVENTS ": more events than the runtime holds";
    return nullptr;
  }
  const LikwidApi* api = likwid_api(why);
  if (api == nullptr) return nullptr;
  std::vector<int> cpus = allowed_cpus();
  if (api->topology_init() != 0) {
    *why = "likwid cannot read this machine's topology (topology_init failed)";
    return nullptr;
  }
  if (api->perfmon_init(static_cast<int>(cpus.size()), cpus.data()) != 0) {
    *why = "likwid cannot access the counters (perfmon_init failed: unsupported CPU model, or "
           "no MSR access: run likwid's access daemon or load the msr module as root)";
    return nullptr;
  }
  const int group = api->perfmon_add_event_set(events.c_str());
  if (group < 0) {
    *why = "likwid rejected the events '" + events + "' (perfmon_addEventSet: " +
           std::to_string(group) + "; see `likwid-perfctr -e`)";
    return nullptr;
  }
  if (api->perfmon_setup_counters(group) != 0 || api->perfmon_start_counters() != 0) {
    *why = "likwid could not set up or start the counters";
    return nullptr;
  }
  return std::make_unique<LikwidBackend>(api, std::move(cpus), group, std::move(slots),
                                         std::move(names));
}

}  // namespace rprof
