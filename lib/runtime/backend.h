// The counter-source interface of the runtime (linked into user programs).
//
// A backend reads 64-bit counters of the calling thread. The runtime reads the
// clock itself (every backend gets time), calls read() at region begin and end,
// and accumulates differences per region, inclusive and exclusive. Counter names
// are the contract with the tool: lib/profile maps them to metrics (FLOPs by
// precision and width, bytes per boundary), see docs/profile-schema.md.
#ifndef RPROF_RUNTIME_BACKEND_H_
#define RPROF_RUNTIME_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rprof {

// Counters one backend reads (the inst backend with its sampled cache model:
// 18 counts, 25 sampling sums, and the runtime's CPU time: 44).
inline constexpr int kMaxCounters = 44;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  // Number of counters read() fills (at most kMaxCounters) and their names.
  virtual int num_counters() const = 0;
  virtual const char* counter_name(int i) const = 0;
  // Called on a thread before its first read(); false disables counters on
  // that thread (its regions still get time).
  virtual bool open_thread() { return true; }
  // Whether the runtime reads each thread's CPU clock beside the counters
  // (the region's cpu_time_s). False for a run whose times are not used: the
  // simulator's counted run takes its times from the native run, and reading
  // the clock there would only add to the program's counts.
  virtual bool thread_cpu_time() const { return true; }
  // Reads the calling thread's counters into out[0..num_counters()).
  virtual void read(uint64_t* out) = 0;
  // Bracket the marker's own bookkeeping so that counting backends (sim) can
  // keep it out of the region's counts.
  virtual void enter_marker() {}
  virtual void leave_marker() {}
  // A region was opened (after a successful begin) or closed (after a
  // successful end) on the calling thread, inside the marker's bracket: the
  // sim backend tells its tool, which keeps per-function counts per region.
  virtual void region_opened(uint32_t /*id*/, const char* /*name*/) {}
  virtual void region_closed() {}
};

// Creates the backend named by the launcher (RPROF_BACKEND). On failure returns
// null and says why in *why (one line, for people).
std::unique_ptr<Backend> make_runtime_backend(std::string_view name,
                                              std::string* why);

}  // namespace rprof

#endif  // RPROF_RUNTIME_BACKEND_H_
