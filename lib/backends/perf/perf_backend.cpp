#include "backends/perf/perf_backend.h"

#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/inst/inst_counters.h"
#include "backends/inst/inst_sample.h"
#include "hwcounters/perf_counters.h"
#include "hwcounters/perf_errors.h"
#include "hwcounters/perf_spec.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

// Bumped in a forked child: the inherited fds count the parent's threads, so
// every thread state reopens its groups at its next read.
std::atomic<unsigned> g_fork_generation{0};
void on_fork_child() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

PerfEventClass event_class(const PerfEventSpec& e) {
  if (e.system_wide) return PerfEventClass::kUncore;
  return e.type == 1 ? PerfEventClass::kSoftware : PerfEventClass::kHardware;  // PERF_TYPE_SOFTWARE
}

std::string open_error(const PerfGroupSpec& g, const PerfOpenStatus& st) {
  PerfEventClass cls = PerfEventClass::kHardware;
  for (const PerfEventSpec& e : g.events) {
    if (e.key == st.event) cls = event_class(e);
  }
  return "perf event " + st.event + ": " + perf_open_error(st.err, cls, detect_perf_host());
}

class PerfBackend;

struct ThreadCounters {
  const PerfBackend* owner = nullptr;
  unsigned generation = 0;
  bool uncore_reader = false;
  std::vector<PerfGroupCounters> groups;  // per-thread groups, spec order
};

thread_local ThreadCounters t_counters;

class PerfBackend final : public Backend {
 public:
  PerfBackend(std::vector<PerfGroupSpec> groups, bool rdpmc)
      : specs_(std::move(groups)), rdpmc_(rdpmc) {
    for (const PerfGroupSpec& g : specs_) {
      for (const std::string& n : perf_counter_names(g)) names_.push_back(n);
      outputs_.push_back(static_cast<int>(g.output_keys().size()) + 2);
    }
    hw_counters_ = static_cast<int>(names_.size());
  }

  // rprof's cache model (inst_sample.h) for an instrumented program, where
  // the driver set it up (the PMU counts no traffic at some boundary): its
  // counters after the hardware's, named "model.*" so the hardware's win
  // where they measure a boundary (profile/metrics.cpp). In sampled mode the
  // program's exact L1 bytes scale the estimate: model.bytes.l1.*. The
  // hardware counts come first: a model that does not fit the runtime's
  // counter slots is dropped, saying so.
  void add_model() {
    const int n = inst::sample_num_counters();
    if (n == 0) return;
    const bool sampled = std::strncmp(inst::sample_counter_name(0), "sample.", 7) == 0;
    const int extra = n + (sampled ? 2 : 0);
    if (hw_counters_ + extra > kMaxCounters) {
      std::fprintf(stderr,
                   "rprof: cache model off: its %d counters and the %d hardware counters exceed "
                   "the runtime's %d (fewer events per run: drop --perf-multiplex)\n",
                   extra, hw_counters_, kMaxCounters);
      return;
    }
    if (sampled) {
      names_.push_back("model.bytes.l1.read");
      names_.push_back("model.bytes.l1.write");
    }
    for (int i = 0; i < n; ++i) names_.push_back(std::string("model.") + inst::sample_counter_name(i));
    model_sampled_ = sampled;
    model_counters_ = n;
  }

  // Opens the system-wide groups and the calling thread's groups; the
  // caller (the runtime's init, on the main thread) becomes the uncore
  // reader. "" or the reason.
  std::string open_initial() {
    for (const PerfGroupSpec& g : specs_) {
      if (!g.system_wide()) continue;
      PerfOpenStatus st;
      uncore_.push_back(PerfGroupCounters::Create(g, false, &st));
      if (!st.ok()) return open_error(g, st);
    }
    std::string why;
    if (!open_thread_groups(&why)) return why;
    t_counters.uncore_reader = true;  // the main thread: init runs there
    pthread_atfork(nullptr, nullptr, on_fork_child);
    return "";
  }

  const char* name() const override { return "perf"; }
  int num_counters() const override { return static_cast<int>(names_.size()); }
  const char* counter_name(int i) const override { return names_[static_cast<size_t>(i)].c_str(); }

  bool open_thread() override {
    if (t_counters.owner == this) return true;
    std::string why;
    if (!open_thread_groups(&why)) {
      if (!said_.exchange(true)) std::fprintf(stderr, "rprof: counters off on a thread: %s\n", why.c_str());
      return false;
    }
    return true;
  }

  void read(uint64_t* out) override {
    ThreadCounters& t = t_counters;
    if (t.generation != g_fork_generation.load(std::memory_order_relaxed)) {
      std::string why;
      open_thread_groups(&why);  // on failure the groups read as zeros
    }
    size_t pt = 0, sw = 0;
    int slot = 0;
    for (size_t gi = 0; gi < specs_.size(); ++gi) {
      const PerfGroupSpec& g = specs_[gi];
      const PerfGroupCounters* c = nullptr;
      if (g.system_wide()) {
        const size_t i = sw++;
        if (t.uncore_reader && i < uncore_.size()) c = &uncore_[i];
      } else {
        const size_t i = pt++;
        if (i < t.groups.size()) c = &t.groups[i];
      }
      const int n = outputs_[gi];
      if (c != nullptr && c->valid()) {
        c->Read(out + slot);
      } else {
        for (int k = 0; k < n; ++k) out[slot + k] = 0;
      }
      slot += n;
    }
    if (model_counters_ > 0) {
      unsigned long long* pc = inst::program_counters();
      if (model_sampled_) {
        out[slot++] = pc ? pc[RPROF_INST_BYTES_READ] : 0;
        out[slot++] = pc ? pc[RPROF_INST_BYTES_WRITE] : 0;
      }
      inst::sample_thread_start(pc);
      inst::sample_read(out + slot);
    }
  }

 private:
  bool open_thread_groups(std::string* why) {
    ThreadCounters& t = t_counters;
    t.groups.clear();
    t.owner = this;
    t.generation = g_fork_generation.load(std::memory_order_relaxed);
    for (const PerfGroupSpec& g : specs_) {
      if (g.system_wide()) continue;
      PerfOpenStatus st;
      t.groups.push_back(PerfGroupCounters::Create(g, rdpmc_, &st));
      if (!st.ok()) {
        *why = open_error(g, st);
        t.groups.clear();
        return false;
      }
    }
    return true;
  }

  std::vector<PerfGroupSpec> specs_;
  std::vector<std::string> names_;
  std::vector<int> outputs_;               // counter slots of each group
  int hw_counters_ = 0;                    // the groups' slots, before the model's
  int model_counters_ = 0;                 // the cache model's (0: no model)
  bool model_sampled_ = false;             // sampled: the L1 bytes precede them
  std::vector<PerfGroupCounters> uncore_;  // system-wide groups, spec order
  bool rdpmc_;
  std::atomic<bool> said_{false};
};

}  // namespace

std::unique_ptr<Backend> make_perf_backend(std::string* why) {
  const char* spec = std::getenv(RPROF_ENV_PERF_EVENTS);
  if (spec == nullptr || *spec == '\0') {
    *why = RPROF_ENV_PERF_EVENTS " is not set (run the program under `rprof --backend=perf`)";
    return nullptr;
  }
  const char* base = std::getenv(RPROF_ENV_PERF_GROUP_BASE);
  std::vector<PerfGroupSpec> groups;
  std::string err;
  if (!parse_perf_spec(spec, base ? std::atoi(base) : 0, &groups, &err)) {
    *why = RPROF_ENV_PERF_EVENTS ": " + err;
    return nullptr;
  }
  if (perf_counter_count(groups) > kMaxCounters) {
    *why = RPROF_ENV_PERF_EVENTS ": " + std::to_string(perf_counter_count(groups)) +
           " counters, the runtime holds " + std::to_string(kMaxCounters);
    return nullptr;
  }
  const char* rdpmc = std::getenv(RPROF_ENV_PERF_RDPMC);
  const bool allow_rdpmc = rdpmc == nullptr || std::strcmp(rdpmc, "0") != 0;
  auto backend = std::make_unique<PerfBackend>(std::move(groups), allow_rdpmc);
  backend->add_model();
  const std::string problem = backend->open_initial();
  if (!problem.empty()) {
    *why = problem;
    return nullptr;
  }
  return backend;
}

}  // namespace rprof
