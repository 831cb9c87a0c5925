#include "hwcounters/perf_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rprof {
namespace {

long page_size() {
  static const long size = sysconf(_SC_PAGESIZE);
  return size;
}

#if defined(__x86_64__)
inline uint64_t rdpmc(uint32_t counter) {
  uint32_t lo, hi;
  __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
inline uint64_t rdtsc() {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
#endif

inline void compiler_barrier() { __asm__ volatile("" ::: "memory"); }

// read(2) with EINTR retry; true when exactly n bytes came back.
bool read_exact(int fd, void* buf, size_t n) {
  while (true) {
    const ssize_t got = ::read(fd, buf, n);
    if (got < 0 && errno == EINTR) continue;
    return got == static_cast<ssize_t>(n);
  }
}

}  // namespace

int perf_event_open_fd(const PerfEventSpec& e, int group_fd, bool leader, bool group_read) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = e.type;
  attr.config = e.config;
  attr.config1 = e.config1;
  attr.config2 = e.config2;
  // Members follow their leader: only the leader starts disabled, so one
  // ioctl enables the whole group at the same instant.
  attr.disabled = leader ? 1 : 0;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  if (group_read) attr.read_format |= PERF_FORMAT_GROUP;
  // Uncore PMUs reject the exclude_* bits (EINVAL); they count everything.
  attr.exclude_kernel = e.user_only ? 1 : 0;
  attr.exclude_hv = e.user_only ? 1 : 0;
  const pid_t pid = e.system_wide ? -1 : 0;
  const int cpu = e.system_wide ? e.cpu : -1;
  const long fd = syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd,
                          static_cast<unsigned long>(PERF_FLAG_FD_CLOEXEC));
  return static_cast<int>(fd);
}

PerfGroupCounters::~PerfGroupCounters() { reset(); }

PerfGroupCounters::PerfGroupCounters(PerfGroupCounters&& o) noexcept { *this = std::move(o); }

PerfGroupCounters& PerfGroupCounters::operator=(PerfGroupCounters&& o) noexcept {
  if (this != &o) {
    reset();
    fds_ = std::move(o.fds_);
    slot_ = std::move(o.slot_);
    pages_ = std::move(o.pages_);
    num_keys_ = o.num_keys_;
    system_wide_ = o.system_wide_;
    rdpmc_ = o.rdpmc_;
    o.fds_.clear();
    o.pages_.clear();
    o.rdpmc_ = false;
  }
  return *this;
}

void PerfGroupCounters::reset() {
  for (void* p : pages_) {
    if (p != nullptr) munmap(p, static_cast<size_t>(page_size()));
  }
  pages_.clear();
  for (int fd : fds_) close(fd);
  fds_.clear();
  rdpmc_ = false;
}

PerfGroupCounters PerfGroupCounters::Create(const PerfGroupSpec& spec, bool allow_rdpmc,
                                            PerfOpenStatus* status) {
  PerfGroupCounters g;
  *status = {};
  const std::vector<std::string> keys = spec.output_keys();
  g.num_keys_ = static_cast<int>(keys.size());
  g.system_wide_ = spec.system_wide();
  for (const PerfEventSpec& e : spec.events) {
    const bool leader = g.system_wide_ || g.fds_.empty();
    const int group_fd = leader ? -1 : g.fds_.front();
    const int fd = perf_event_open_fd(e, group_fd, leader, !g.system_wide_);
    if (fd < 0) {
      status->err = errno;
      status->event = e.key;
      g.reset();
      return g;
    }
    g.fds_.push_back(fd);
    int slot = 0;
    while (keys[static_cast<size_t>(slot)] != e.key) ++slot;
    g.slot_.push_back(slot);
  }
#if defined(__x86_64__)
  if (allow_rdpmc && !g.system_wide_) {
    bool all = true;
    for (int fd : g.fds_) {
      void* p = mmap(nullptr, static_cast<size_t>(page_size()), PROT_READ, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) {
        all = false;
        break;
      }
      g.pages_.push_back(p);
      const auto* pc = static_cast<const perf_event_mmap_page*>(p);
      all &= pc->cap_user_rdpmc != 0 && pc->cap_user_time != 0;
    }
    g.rdpmc_ = all;
    if (!all) {
      for (void* p : g.pages_) munmap(p, static_cast<size_t>(page_size()));
      g.pages_.clear();
    }
  }
#else
  (void)allow_rdpmc;
#endif
  for (int fd : g.fds_) {
    if (g.system_wide_ || fd == g.fds_.front()) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
  }
  return g;
}

bool PerfGroupCounters::Read(uint64_t* out) const {
  for (int i = 0; i < num_outputs(); ++i) out[i] = 0;
  if (fds_.empty()) return false;
  if (rdpmc_) {
    if (read_rdpmc(out)) return true;
    for (int i = 0; i < num_outputs(); ++i) out[i] = 0;  // partial: start over
  }
  return system_wide_ ? read_each(out) : read_group(out);
}

// PERF_FORMAT_GROUP layout: nr, time_enabled, time_running, value[nr].
bool PerfGroupCounters::read_group(uint64_t* out) const {
  uint64_t buf[3 + 64];
  const size_t n = fds_.size();
  if (n > 64) return false;
  if (!read_exact(fds_.front(), buf, (3 + n) * sizeof(uint64_t)) || buf[0] != n) return false;
  for (size_t i = 0; i < n; ++i) out[slot_[i]] += buf[3 + i];
  out[num_keys_] = buf[1];
  out[num_keys_ + 1] = buf[2];
  return true;
}

// System wide: one group per fd (layout value, time_enabled, time_running);
// values sharing a key are summed, the times are the first event's.
bool PerfGroupCounters::read_each(uint64_t* out) const {
  for (size_t i = 0; i < fds_.size(); ++i) {
    uint64_t buf[3];
    if (!read_exact(fds_[i], buf, sizeof(buf))) return false;
    out[slot_[i]] += buf[0];
    if (i == 0) {
      out[num_keys_] = buf[1];
      out[num_keys_ + 1] = buf[2];
    }
  }
  return true;
}

// The self-monitoring protocol of include/uapi/linux/perf_event.h: retry while
// the page's sequence lock moves; index 0 means the event is not on a counter
// right now (multiplexed out), and then the read() path is used.
bool PerfGroupCounters::read_rdpmc(uint64_t* out) const {
#if defined(__x86_64__)
  for (size_t i = 0; i < pages_.size(); ++i) {
    const auto* pc = static_cast<const volatile perf_event_mmap_page*>(pages_[i]);
    uint64_t count = 0, enabled = 0, running = 0;
    uint32_t seq;
    do {
      seq = pc->lock;
      compiler_barrier();
      const uint32_t idx = pc->index;
      if (idx == 0) return false;
      enabled = pc->time_enabled;
      running = pc->time_running;
      if (i == 0 && enabled != running) {
        // Times advance since the page was last updated (a context switch):
        // delta = time_offset + cycles * time_mult >> time_shift.
        const uint64_t cyc = rdtsc();
        const uint16_t shift = pc->time_shift;
        const uint32_t mult = pc->time_mult;
        const uint64_t quot = cyc >> shift;
        const uint64_t rem = cyc & ((uint64_t{1} << shift) - 1);
        const uint64_t delta = pc->time_offset + quot * mult + ((rem * mult) >> shift);
        enabled += delta;
        running += delta;
      }
      const uint16_t width = pc->pmc_width;
      int64_t pmc = static_cast<int64_t>(rdpmc(idx - 1));
      pmc = static_cast<int64_t>(static_cast<uint64_t>(pmc) << (64 - width)) >> (64 - width);
      count = static_cast<uint64_t>(static_cast<int64_t>(pc->offset) + pmc);
      compiler_barrier();
    } while (pc->lock != seq);
    out[slot_[i]] += count;
    if (i == 0) {
      out[num_keys_] = enabled;
      out[num_keys_ + 1] = running;
    }
  }
  return true;
#else
  (void)out;
  return false;
#endif
}

}  // namespace rprof
