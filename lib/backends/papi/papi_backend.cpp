// The `papi` runtime backend: one PAPI event set per thread, created at the
// thread's first marker, with the events the tool chose:
//   RPROF_PAPI_EVENTS = key '=' name (',' key '=' name)*   (PAPI preset or native names)
//   RPROF_PAPI_GROUP_BASE = G: counters are recorded as hw.g<G>.<key>
// PAPI scales nothing here (no multiplexing is requested): events that do
// not fit the counters fail PAPI_add_named_event, and the tool runs one pass
// per group instead, as for perf.
#include <papi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "backends/papi/papi_api.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

struct Event {
  std::string key;
  std::string name;
};

struct ThreadSet {
  const void* owner = nullptr;
  int set = PAPI_NULL;
  bool ok = false;
};
thread_local ThreadSet t_set;

class PapiBackend final : public Backend {
 public:
  PapiBackend(const PapiApi* api, std::vector<Event> events, int group)
      : api_(api), events_(std::move(events)) {
    for (const Event& e : events_) names_.push_back("hw.g" + std::to_string(group) + "." + e.key);
  }
  const char* name() const override { return "papi"; }
  int num_counters() const override { return static_cast<int>(names_.size()); }
  const char* counter_name(int i) const override { return names_[static_cast<size_t>(i)].c_str(); }

  // Creates and starts the calling thread's event set; "" or why not.
  std::string open_set() {
    t_set = ThreadSet{};
    t_set.owner = this;
    int rc = api_->create_eventset(&t_set.set);
    if (rc != PAPI_OK) return "PAPI_create_eventset: " + papi_error(*api_, rc);
    for (const Event& e : events_) {
      rc = api_->add_named_event(t_set.set, e.name.c_str());
      if (rc != PAPI_OK) {
        return "PAPI cannot add event " + e.name + ": " + papi_error(*api_, rc) +
               (rc == PAPI_ECNFLCT ? "; fewer events per run are needed" : "") +
               (rc == PAPI_ENOEVNT ? "; check `papi_native_avail` (no PMU in a VM?)" : "");
      }
    }
    rc = api_->start(t_set.set);
    if (rc != PAPI_OK) return "PAPI_start: " + papi_error(*api_, rc);
    t_set.ok = true;
    return "";
  }

  bool open_thread() override {
    if (t_set.owner == this) return t_set.ok;
    const std::string why = open_set();
    if (!why.empty() && !said_.exchange(true)) {
      std::fprintf(stderr, "rprof: counters off on a thread: %s\n", why.c_str());
    }
    return t_set.ok;
  }

  void read(uint64_t* out) override {
    long long v[kMaxCounters] = {};
    if (t_set.ok) api_->read(t_set.set, v);
    for (size_t i = 0; i < names_.size(); ++i) out[i] = v[i] > 0 ? static_cast<uint64_t>(v[i]) : 0;
  }

 private:
  const PapiApi* api_;
  std::vector<Event> events_;
  std::vector<std::string> names_;
  std::atomic<bool> said_{false};
};

}  // namespace

std::unique_ptr<Backend> make_papi_backend(std::string* why) {
  const char* spec = std::getenv(RPROF_ENV_PAPI_EVENTS);
  if (spec == nullptr || *spec == '\0') {
    *why = RPROF_ENV_PAPI_EVENTS " is not set (run the program under `rprof --backend=papi`)";
    return nullptr;
  }
  std::vector<Event> events;
  std::string s = spec;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    const std::string item = s.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      *why = RPROF_ENV_PAPI_EVENTS ": '" + item + "' is not key=name";
      return nullptr;
    }
    events.push_back({item.substr(0, eq), item.substr(eq + 1)});
    start = end + 1;
  }
  if (static_cast<int>(events.size()) > kMaxCounters) {
    *why = RPROF_ENV_PAPI_EVENTS ": more events than the runtime holds";
    return nullptr;
  }
  const PapiApi* api = papi_api(why);
  if (api == nullptr) return nullptr;
  const char* base = std::getenv(RPROF_ENV_PAPI_GROUP_BASE);
  auto b = std::make_unique<PapiBackend>(api, std::move(events), base ? std::atoi(base) : 0);
  const std::string problem = b->open_set();  // this thread: fail early with the reason
  if (!problem.empty()) {
    *why = problem;
    return nullptr;
  }
  return b;
}

}  // namespace rprof
