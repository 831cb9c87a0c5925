#include "sampling/cpu_clock_sampler.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "hwcounters/perf_errors.h"

namespace rprof {
namespace {

// PERF_RECORD_MISC_COMM_EXEC: a COMM record written by exec.
constexpr uint16_t kCommExec = 1u << 13;

// The errno a test asks open() to fail with (kSamplingErrnoEnv), or 0.
int injected_errno() {
  const char* v = std::getenv(kSamplingErrnoEnv);
  if (v == nullptr || *v == '\0') return 0;
  for (const int e : {EACCES, EPERM, ENOSYS, ENOENT, EINVAL, EMFILE}) {
    if (errno_name(e) == v) return e;
  }
  const int n = std::atoi(v);
  return n > 0 ? n : EINVAL;
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Records are attributed once every buffer has been read past them: a record
// becomes visible microseconds after its timestamp, so this margin is ample.
constexpr uint64_t kOrderMarginNs = 100000000;  // 100 ms

// Ring buffer pages (data, a power of two) per CPU: 512 KiB when privileged
// (at most 64 MiB in all), else a share of the locked-memory allowance
// kernel.perf_event_mlock_kb (516 KiB by default) for each CPU.
size_t data_pages_per_cpu(size_t cpus, bool privileged) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t budget = 64u << 20;
  if (!privileged) {
    budget = 516u << 10;
    const int fd = open("/proc/sys/kernel/perf_event_mlock_kb", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[32] = {};
      if (read(fd, buf, sizeof(buf) - 1) > 0 && std::atol(buf) > 0) {
        budget = static_cast<size_t>(std::atol(buf)) << 10;
      }
      close(fd);
    }
  }
  const size_t share = budget / page / std::max<size_t>(cpus, 1);
  size_t pages = 1;
  while (pages * 2 + 1 <= share && pages * 2 * page <= (512u << 10)) pages *= 2;
  return pages;
}

}  // namespace

std::string sampling_refused_why(int err, int paranoid, bool privileged) {
  const std::string tag = "(perf_event_open: " + errno_name(err) + ", " + std::strerror(err) + ")";
  switch (err) {
    case EACCES:
    case EPERM:
      if (paranoid > 2 && !privileged) {
        return "cpu-clock sampling not permitted: kernel.perf_event_paranoid is " +
               std::to_string(paranoid) + " " + tag +
               "; run `sudo sysctl kernel.perf_event_paranoid=2` (user-space sampling of "
               "your own processes)";
      }
      return "cpu-clock sampling denied by a security policy " + tag +
             "; a container's seccomp profile or a security module forbids perf_event_open: "
             "allow it (e.g. docker --cap-add PERFMON, or a seccomp profile with "
             "perf_event_open)";
    case ENOSYS:
      return "cpu-clock sampling unavailable: no perf_event_open system call " + tag +
             "; the kernel lacks CONFIG_PERF_EVENTS or a container's seccomp filter hides "
             "it: allow perf_event_open or run outside the container";
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      return "cpu-clock sampling unavailable: the kernel has no cpu-clock software event " + tag +
             "; use a kernel with CONFIG_PERF_EVENTS";
    case EMFILE:
    case ENFILE:
      return "cpu-clock sampling failed: out of file descriptors " + tag +
             "; raise the limit (ulimit -n)";
    default:
      return "cpu-clock sampling failed " + tag + "; run `rprof doctor`";
  }
}

bool decode_sampler_record(const char* rec, size_t size, SamplerRecord* out, uint64_t* lost) {
  if (size < sizeof(perf_event_header)) return false;
  const auto h = load<perf_event_header>(rec);
  const char* p = rec + sizeof(h);
  const char* end = rec + size;
  auto has = [&](size_t n) { return static_cast<size_t>(end - p) >= n; };
  *out = SamplerRecord{};
  out->type = h.type;
  if (h.type == PERF_RECORD_SAMPLE) {
    // IP, TID, TIME, PERIOD, CALLCHAIN: the order of sample_type's bits.
    if (!has(40)) return false;
    out->addr = load<uint64_t>(p);
    out->pid = load<uint32_t>(p + 8);
    out->tid = load<uint32_t>(p + 12);
    out->time = load<uint64_t>(p + 16);
    out->period = load<uint64_t>(p + 24);
    const auto nr = load<uint64_t>(p + 32);
    p += 40;
    if (nr > static_cast<uint64_t>(end - p) / 8) return false;
    out->user = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
    // The user part of the chain: the entries after PERF_CONTEXT_USER.
    bool user = false;
    for (uint64_t i = 0; i < nr; ++i) {
      const auto a = load<uint64_t>(p + 8 * i);
      if (a >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
        user = a == static_cast<uint64_t>(PERF_CONTEXT_USER);
      } else if (user) {
        out->chain.push_back(a);
      }
    }
    return true;
  }
  // Every other record ends with sample_id (sample_id_all): pid, tid, time.
  if (size < sizeof(h) + 16) return false;
  out->time = load<uint64_t>(end - 8);
  end -= 16;
  // The file name that ends an mmap record, NUL-padded.
  auto name_at = [&](const char* q) {
    return q < end ? std::string(q, strnlen(q, static_cast<size_t>(end - q))) : std::string();
  };
  switch (h.type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      // pid, tid, addr, len, pgoff; MMAP2 then has 24 bytes of device and
      // inode (or build id), prot and flags before the file name.
      if (!has(h.type == PERF_RECORD_MMAP ? 32 : 64)) return false;
      out->pid = load<uint32_t>(p);
      out->addr = load<uint64_t>(p + 8);
      out->len = load<uint64_t>(p + 16);
      out->pgoff = load<uint64_t>(p + 24);
      out->name = name_at(p + (h.type == PERF_RECORD_MMAP ? 32 : 64));
      out->type = PERF_RECORD_MMAP;
      return true;
    case PERF_RECORD_COMM:
      if (!has(8) || (h.misc & kCommExec) == 0) return false;
      out->pid = load<uint32_t>(p);
      return true;
    case PERF_RECORD_FORK:
      if (!has(8)) return false;
      out->pid = load<uint32_t>(p);
      out->tid = load<uint32_t>(p + 4);  // the parent
      return true;
    case PERF_RECORD_LOST:
      if (has(16)) *lost += load<uint64_t>(p + 8);
      return false;
    case PERF_RECORD_LOST_SAMPLES:
      if (has(8)) *lost += load<uint64_t>(p);
      return false;
    case PERF_RECORD_THROTTLE:
      return true;
    default:
      return false;
  }
}

CpuClockSampler::CpuClockSampler(pid_t pid, uint64_t period_ns) : period_ns_(period_ns) {
  const GrantedPeriod granted = grant_sample_period(period_ns, kernel_max_sample_rate());
  period_ns_ = granted.period_ns;
  period_note_ = granted.note;
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = period_ns_;  // cpu-clock counts nanoseconds of CPU time
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
                     PERF_SAMPLE_CALLCHAIN;
  attr.disabled = 1;
  attr.enable_on_exec = 1;  // the exec turns it on: nothing of rprof is sampled
  attr.inherit = 1;         // every thread and child process
  attr.exclude_kernel = 1;  // user space only: allowed with perf_event_paranoid 2
  attr.exclude_hv = 1;
  attr.exclude_callchain_kernel = 1;
  attr.mmap = 1;  // executable mappings: addresses to objects
  attr.mmap2 = 1;
  attr.comm = 1;  // with comm_exec: exec drops a process's old mappings
  attr.comm_exec = 1;
  attr.task = 1;           // fork: a child process starts with its parent's mappings
  attr.sample_id_all = 1;  // every record has a time: one order over all CPUs
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  const PerfHost host = detect_perf_host();
  const int cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_CONF)));
  const size_t pages = data_pages_per_cpu(static_cast<size_t>(cpus), host.privileged);
  attr.watermark = 1;  // wake the reader when a buffer is a quarter full
  attr.wakeup_watermark =
      static_cast<uint32_t>(pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) / 4);
  int err = injected_errno();
  for (int cpu = 0; err == 0 && cpu < cpus; ++cpu) {
    int fd =
        static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0 && errno == EINVAL && attr.use_clockid) {  // kernels before 4.1
      attr.use_clockid = 0;
      monotonic_ = false;
      fd =
          static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    }
    if (fd >= 0) {
      fds_.push_back(fd);
    } else if (errno != ENODEV && errno != EINVAL) {
      err = errno;  // offline CPUs (ENODEV) are skipped, anything else refuses
    } else if (cpu == cpus - 1 && fds_.empty()) {
      err = errno;
    }
  }
  if (err != 0) {
    close_events();
    why_ = sampling_refused_why(err, host.paranoid, host.privileged);
    return;
  }
  // The buffers; smaller ones when the locked-memory allowance is used up.
  for (const int fd : fds_) {
    for (size_t p = pages; p >= 1; p /= 2) {
      PerfRing ring(fd, p);
      if (ring.ok() || p == 1) {
        err = ring.ok() ? 0 : ring.error();
        if (ring.ok()) rings_.push_back(std::move(ring));
        break;
      }
    }
    if (err != 0) break;
  }
  if (err != 0) {
    close_events();
    why_ = "cpu-clock sampling failed: cannot map the sample buffers (mmap: " + errno_name(err) +
           ", " + std::strerror(err) + "); raise kernel.perf_event_mlock_kb or `ulimit -l`";
    return;
  }
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void CpuClockSampler::close_events() {
  rings_.clear();
  for (const int fd : fds_) close(fd);
  fds_.clear();
}

CpuClockSampler::~CpuClockSampler() {
  stop();
  close_events();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void CpuClockSampler::start() {
  if (!active() || reader_.joinable()) return;
  // The reader inherits a mask with every signal blocked: SIGTERM and the
  // others keep going to the launcher's waiting thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  reader_ = std::thread([this] { read_loop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void CpuClockSampler::stop() {
  if (!reader_.joinable()) return;
  stopping_.store(true);
  const uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof(one));
  reader_.join();
}

void CpuClockSampler::read_loop() {
  std::vector<pollfd> fds;
  for (const int fd : fds_) fds.push_back({fd, POLLIN, 0});
  if (wake_fd_ >= 0) fds.push_back({wake_fd_, POLLIN, 0});
  while (!stopping_.load()) {
    // The timeout bounds the delay when no watermark is reached.
    (void)poll(fds.data(), fds.size(), 50);
    const uint64_t now = monotonic_ns();
    drain(monotonic_ && now > kOrderMarginNs ? now - kOrderMarginNs : 0);
  }
}

void CpuClockSampler::drain(uint64_t horizon) {
  for (PerfRing& ring : rings_) {
    ring.drain([this](const char* rec, size_t size) {
      SamplerRecord r;
      if (!decode_sampler_record(rec, size, &r, &lost_)) return;
      pending_.push_back(std::move(r));
    });
  }
  // Time order over all CPUs; records of one buffer keep theirs.
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const SamplerRecord& a, const SamplerRecord& b) { return a.time < b.time; });
  size_t n = 0;
  for (; n < pending_.size() && pending_[n].time <= horizon; ++n) {
    const SamplerRecord& r = pending_[n];
    switch (r.type) {
      case PERF_RECORD_SAMPLE:
        if (r.user) {
          attribution_.on_sample(r.pid, r.tid, r.addr, r.chain.data(), r.chain.size(), r.period);
        } else {
          attribution_.on_sample(r.pid, r.tid, UINT64_MAX, nullptr, 0, r.period);
        }
        break;
      case PERF_RECORD_MMAP:
        attribution_.on_mmap(r.pid, r.addr, r.len, r.pgoff, r.name);
        break;
      case PERF_RECORD_COMM:
        attribution_.on_exec(r.pid);
        break;
      case PERF_RECORD_FORK:
        attribution_.on_fork(r.pid, r.tid);
        break;
      case PERF_RECORD_THROTTLE:
        ++throttled_;
        break;
      default:
        break;
    }
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
}

FunctionTimes CpuClockSampler::finish() {
  if (!active()) {
    FunctionTimes t;
    t.why = why_;
    return t;
  }
  stop();
  drain(UINT64_MAX);  // the app has ended: everything, in order
  close_events();
  attribution_.on_lost(lost_);
  FunctionTimes t = attribution_.finish(period_ns_);
  t.period_note = period_note_;
  t.throttled = throttled_;
  return t;
}

}  // namespace rprof
