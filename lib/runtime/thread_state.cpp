#include "runtime/thread_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "rprof/rprof.h"
#include "runtime/clock.h"
#include "runtime/region_table.h"
#include "runtime/shared_tables.h"

namespace rprof::runtime {

ThreadState::ThreadState(Backend* backend, int num_counters, uint32_t index,
                         int tid, ThreadShared* shared, bool cpu_time)
    : backend_(backend),
      nc_(cpu_time ? counters_with_cpu_time(num_counters) : num_counters),
      backend_nc_(num_counters),
      cpu_slot_(nc_ > num_counters ? num_counters : -1),
      delay_slot_(nc_ > num_counters + 1 ? num_counters + 1 : -1),
      nc_config_(nc_),
      backend_nc_config_(num_counters),
      sh_(shared != nullptr ? shared : new ThreadShared),
      own_shared_(shared == nullptr),
      frames_(sh_->frames) {
  if (shared != nullptr) new (shared) ThreadShared;  // zeroed storage: construct
  sh_->index = index;
  sh_->tid = tid;
  counting_ = backend_nc_ > 0 && backend_ != nullptr && backend_->open_thread();
  if (!counting_) backend_nc_ = 0;
  frame_counters_ = nc_ > 0 ? static_cast<uint64_t*>(std::calloc(
                                   static_cast<size_t>(2 * kMaxDepth * nc_), sizeof(uint64_t)))
                            : nullptr;
  if (frame_counters_ == nullptr) {
    counting_ = false;
    nc_ = backend_nc_ = 0;
    cpu_slot_ = delay_slot_ = -1;
  }
}

// See kCpuClockReuseNs; its cost per begin/end pair is measured by
// bench/marker_overhead (docs/openmp.md).
uint64_t ThreadState::cpu_time_ns(uint64_t now) {
  uint64_t v;
  if (cpu_read_ticks_ != 0 && now >= cpu_read_ticks_ &&
      ticks_to_ns(now - cpu_read_ticks_) < kCpuClockReuseNs) {
    v = cpu_read_ns_ + ticks_to_ns(now - cpu_read_ticks_);
  } else {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    v = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    cpu_read_ticks_ = now;
    cpu_read_ns_ = v;
    cpu_fresh_ = true;
  }
  if (v < cpu_last_ns_) v = cpu_last_ns_;
  cpu_last_ns_ = v;
  return v;
}

// One pread of a file opened once per thread (about 1.5 us, beside the CPU
// clock's 1 us, on a 2-core VM), only where the CPU clock is read (at most
// once per kCpuClockReuseNs): bench/marker_overhead measures the pair. The
// value never goes back (a later read below it is raised to it).
uint64_t ThreadState::run_delay_ns(bool fresh) {
  if (!fresh || schedstat_fd_ == -1) return delay_last_ns_;
  if (schedstat_fd_ == -2) {
    const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    // Above the descriptors a program numbers by hand (dup2 onto 3, 4...).
    const int high = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 512) : -1;
    if (high >= 0) {
      close(fd);
      schedstat_fd_ = high;
    } else {
      schedstat_fd_ = fd;
    }
    if (schedstat_fd_ < 0) {
      schedstat_fd_ = -1;
      return delay_last_ns_;
    }
  }
  // "<ns on a CPU> <ns runnable, waiting> <timeslices>\n".
  char buf[96];
  const ssize_t n = pread(schedstat_fd_, buf, sizeof(buf) - 1, 0);
  if (n <= 0) {
    // Closed by the program, or the thread is gone: no more reads.
    schedstat_fd_ = -1;
    return delay_last_ns_;
  }
  buf[n] = '\0';
  const char* p = buf;
  while (*p >= '0' && *p <= '9') ++p;
  if (*p != ' ') return delay_last_ns_;
  ++p;
  uint64_t v = 0;
  if (*p < '0' || *p > '9') return delay_last_ns_;
  while (*p >= '0' && *p <= '9') v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  if (v > delay_last_ns_) delay_last_ns_ = v;
  return delay_last_ns_;
}

void ThreadState::close_schedstat() {
  if (schedstat_fd_ >= 0) close(schedstat_fd_);
  schedstat_fd_ = -2;
  delay_last_ns_ = 0;
}

void ThreadState::read_counters(uint64_t* out, uint64_t now) {
  if (counting_) backend_->read(out);
  if (cpu_slot_ >= 0) {
    for (int k = backend_nc_; k < cpu_slot_; ++k) out[k] = 0;
    cpu_fresh_ = false;
    out[cpu_slot_] = cpu_time_ns(now);
    if (delay_slot_ >= 0) out[delay_slot_] = run_delay_ns(cpu_fresh_);
  }
}

// The runtime keeps thread states for the life of the process (the flush at
// exit reads them; an ended thread's state is reused, never freed); this runs
// only for states owned by tests.
ThreadState::~ThreadState() {
  for (Node* chunk : chunks_) {
    if (!tables_owns(chunk)) delete[] chunk;
  }
  std::free(frame_counters_);
  close_schedstat();
  std::free(child_slots_);
  if (own_shared_) delete sh_;
}

int32_t ThreadState::add_node(int32_t parent, uint32_t region) {
  const int32_t i = sh_->nodes.load(std::memory_order_relaxed);
  const int chunk = i / kNodesPerChunk;
  if (chunk >= kMaxChunks) return -1;
  if (chunks_[chunk] == nullptr) {
    // In the shared tables when they are open, so the chunk survives the
    // process; on the heap otherwise.
    void* mem = tables_alloc(RecordType::kChunk, sh_->index, static_cast<uint32_t>(chunk),
                             sizeof(Node) * kNodesPerChunk);
    if (mem != nullptr) {
      Node* nodes = static_cast<Node*>(mem);
      for (int k = 0; k < kNodesPerChunk; ++k) new (&nodes[k]) Node;
      chunks_[chunk] = nodes;
    } else {
      chunks_[chunk] = new (std::nothrow) Node[kNodesPerChunk];
    }
    if (chunks_[chunk] == nullptr) return -1;
  }
  tables_need_name(region);
  Node& n = node(i);
  n.region = region;
  n.parent = parent;
  sh_->nodes.store(i + 1, std::memory_order_release);  // publish before linking
  if (parent < 0) {
    if (root_last_child_ < 0) {
      root_first_child_.store(i, std::memory_order_release);
    } else {
      node(root_last_child_).next_sibling.store(i, std::memory_order_release);
    }
    root_last_child_ = i;
  } else {
    Node& p = node(parent);
    // Append at the head: order does not matter, readers use parent links.
    n.next_sibling.store(p.first_child.load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
    p.first_child.store(i, std::memory_order_release);
  }
  return i;
}

namespace {

// A 64-bit mix (the MurmurHash3 finalizer) of the key, so the low bits that
// pick a slot depend on every bit of the parent and the region.
uint32_t child_hash(int32_t parent, uint32_t region) {
  uint64_t k = (static_cast<uint64_t>(static_cast<uint32_t>(parent)) << 32) | region;
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return static_cast<uint32_t>(k);
}

constexpr uint32_t kFirstChildSlots = 64;

}  // namespace

int32_t ThreadState::find_child(int32_t parent, uint32_t region) const {
  if (child_mask_ == 0) return -1;
  for (uint32_t i = child_hash(parent, region) & child_mask_;; i = (i + 1) & child_mask_) {
    const ChildSlot& s = child_slots_[i];
    if (s.node == 0) return -1;
    if (s.parent == parent && s.region == region) return static_cast<int32_t>(s.node - 1);
  }
}

bool ThreadState::grow_child_index() {
  const uint32_t slots = child_mask_ == 0 ? kFirstChildSlots : 2 * (child_mask_ + 1);
  auto* fresh = static_cast<ChildSlot*>(std::calloc(slots, sizeof(ChildSlot)));
  if (fresh == nullptr) return false;
  const uint32_t mask = slots - 1;
  for (uint32_t k = 0; child_mask_ != 0 && k <= child_mask_; ++k) {
    const ChildSlot& s = child_slots_[k];
    if (s.node == 0) continue;
    uint32_t i = child_hash(s.parent, s.region) & mask;
    while (fresh[i].node != 0) i = (i + 1) & mask;
    fresh[i] = s;
  }
  std::free(child_slots_);
  child_slots_ = fresh;
  child_mask_ = mask;
  return true;
}

bool ThreadState::index_child(int32_t parent, uint32_t region, int32_t node) {
  const uint32_t slots = child_mask_ == 0 ? 0 : child_mask_ + 1;
  if (2 * (child_used_ + 1) > slots && !grow_child_index()) return false;
  uint32_t i = child_hash(parent, region) & child_mask_;
  while (child_slots_[i].node != 0) i = (i + 1) & child_mask_;
  child_slots_[i] = ChildSlot{parent, region, static_cast<uint32_t>(node) + 1};
  ++child_used_;
  return true;
}

void ThreadState::clear_child_index() {
  if (child_mask_ != 0) std::memset(child_slots_, 0, sizeof(ChildSlot) * (child_mask_ + 1));
  child_used_ = 0;
  child_index_off_ = false;
}

int32_t ThreadState::child_of(int32_t parent, uint32_t region) {
  if (parent >= 0) {
    const Node& p = node(parent);
    if (p.last_child >= 0 && node(p.last_child).region == region) return p.last_child;
  }
  int32_t c = -1;
  if (!child_index_off_) {
    c = find_child(parent, region);
  } else {
    for (int32_t k = parent >= 0 ? node(parent).first_child.load(std::memory_order_relaxed)
                                 : root_first_child_.load(std::memory_order_relaxed);
         k >= 0 && c < 0; k = node(k).next_sibling.load(std::memory_order_relaxed)) {
      if (node(k).region == region) c = k;
    }
  }
  if (c < 0) {
    c = add_node(parent, region);
    if (c < 0) return -1;
    if (!child_index_off_ && !index_child(parent, region, c)) {
      std::free(child_slots_);
      child_slots_ = nullptr;
      child_mask_ = child_used_ = 0;
      child_index_off_ = true;
    }
  }
  if (parent >= 0) node(parent).last_child = c;
  return c;
}

int ThreadState::begin(uint32_t region) {
  cont_region_ = 0;
  const int d = sh_->depth.load(std::memory_order_relaxed);
  if (d == kMaxDepth) {
    record_error(ErrorKind::kTooDeep, 0, region);
    ++refused_deep_;
    return RPROF_ERR_DEPTH;
  }
  int32_t n = -1;
  bool recursive = false;
  // Below a begin refused at the node limit, every path is refused too.
  const bool refused =
      d > 0 && frames_[d - 1].node.load(std::memory_order_relaxed) < 0;
  for (int i = d - 1; i >= 0 && !refused; --i) {
    if (frames_[i].region == region) {
      n = frames_[i].node.load(std::memory_order_relaxed);
      recursive = true;
      break;
    }
  }
  if (!recursive && !refused) {
    n = child_of(d > 0 ? frames_[d - 1].node.load(std::memory_order_relaxed) : -1,
                 region);
  }
  if (n < 0) {
    // A frame without a node: its end (and what nests in it) match it, its
    // time stays in the enclosing region's exclusive time.
    record_error(ErrorKind::kTooManyPaths, 0, 0);
    Frame& f = frames_[d];
    f.node.store(-1, std::memory_order_relaxed);
    f.region = region;
    f.recursive = false;
    f.borrowed = false;
    f.automatic = kNotAuto;
    f.continued = false;
    f.child_ticks = 0;
    f.t0.store(now_ticks(), std::memory_order_relaxed);
    sh_->depth.store(d + 1, std::memory_order_release);
    return RPROF_ERR_CAPACITY;
  }
  Frame& f = frames_[d];
  f.node.store(n, std::memory_order_relaxed);
  f.region = region;
  f.recursive = recursive;
  f.child_ticks = 0;
  f.borrowed = false;
  f.automatic = kNotAuto;
  f.continued = false;
  if (counting_) backend_->region_opened(region, region_name(region));
  const uint64_t t0 = now_ticks();
  if (nc_ > 0) {
    uint64_t* cc = child_counters(d);
    for (int k = 0; k < nc_; ++k) cc[k] = 0;
    read_counters(start_counters(d), t0);
  }
  f.t0.store(t0, std::memory_order_relaxed);
  sh_->depth.store(d + 1, std::memory_order_release);
  return RPROF_OK;
}

void ThreadState::close_frame(int d, uint64_t t1, const uint64_t* c1) {
  Frame& f = frames_[d - 1];
  Node& n = node(f.node.load(std::memory_order_relaxed));
  const uint64_t elapsed = t1 - f.t0.load(std::memory_order_relaxed);
  if (!f.borrowed && !f.continued) add_relaxed(n.calls, 1);
  if (!f.recursive) add_relaxed(n.incl_ticks, elapsed);
  add_relaxed(n.excl_ticks, elapsed > f.child_ticks ? elapsed - f.child_ticks : 0);
  if (d >= 2) frames_[d - 2].child_ticks += elapsed;
  if (nc_ > 0) {
    const uint64_t* c0 = start_counters(d - 1);
    const uint64_t* cc = child_counters(d - 1);
    uint64_t* parent_cc = d >= 2 ? child_counters(d - 2) : nullptr;
    for (int k = 0; k < nc_; ++k) {
      const uint64_t delta = c1[k] - c0[k];
      if (!f.recursive) add_relaxed(n.incl[k], delta);
      add_relaxed(n.excl[k], delta - cc[k]);
      if (parent_cc != nullptr) parent_cc[k] += delta;
    }
  }
  sh_->depth.store(d - 1, std::memory_order_release);
  if (counting_) backend_->region_closed();
}

int ThreadState::end(uint32_t region) {
  cont_region_ = 0;
  const uint64_t t1 = now_ticks();
  uint64_t c1[kMaxCounters];
  if (nc_ > 0) read_counters(c1, t1);
  const int d = sh_->depth.load(std::memory_order_relaxed);
  int status = RPROF_OK;
  int below_auto = -1;
  if (refused_deep_ > 0) {
    // The end of a begin refused beyond kMaxDepth (ends come in reverse
    // order, so the refused, innermost, begins end first): absorbed, the
    // too_deep error already says what happened.
    --refused_deep_;
    status = RPROF_ERR_DEPTH;
  } else if (d == 0) {
    record_error(ErrorKind::kEndWithoutBegin, 0, region);
    status = RPROF_ERR_NESTING;
  } else if (d > 0 && frames_[d - 1].automatic != kNotAuto &&
             (below_auto = auto_reachable(region, false)) >= 0) {
    // A marker's end inside functions or loops of an instrumented program
    // (its begin was outside them): they end here too.
    close_down_to(d, below_auto, t1, c1);
  } else if (frames_[d - 1].region != region || frames_[d - 1].borrowed) {
    // A borrowed frame is closed by unborrow() only: an end of its name on
    // this thread has no begin here.
    if (frames_[d - 1].borrowed) {
      record_error(ErrorKind::kEndWithoutBegin, 0, region);
    } else {
      record_error(ErrorKind::kMismatchedEnd, frames_[d - 1].region, region);
    }
    status = RPROF_ERR_NESTING;
  } else if (frames_[d - 1].node.load(std::memory_order_relaxed) < 0) {
    sh_->depth.store(d - 1, std::memory_order_release);  // refused at the node limit
    status = RPROF_ERR_CAPACITY;
  } else {
    close_frame(d, t1, c1);
  }
  return status;
}

int ThreadState::auto_reachable(uint32_t region, bool automatic) const {
  for (int i = sh_->depth.load(std::memory_order_relaxed) - 1; i >= 0; --i) {
    const Frame& f = frames_[i];
    if (f.region == region && !f.borrowed && (f.automatic != kNotAuto) == automatic) return i;
    if (f.automatic == kNotAuto) return -1;  // a marker's frame is never closed from above
  }
  return -1;
}

void ThreadState::close_down_to(int d, int target, uint64_t t1, const uint64_t* c1) {
  for (int top = d; top > target; --top) {
    if (frames_[top - 1].node.load(std::memory_order_relaxed) < 0) {
      sh_->depth.store(top - 1, std::memory_order_release);  // refused at the node limit
    } else {
      close_frame(top, t1, c1);
    }
  }
}

int ThreadState::begin_auto(uint32_t region, AutoKind kind, bool only_in_marked,
                            uintptr_t frame) {
  int d = sh_->depth.load(std::memory_order_relaxed);
  // A function's entry is deeper than every function still running (a
  // sibling that returned had the same position); a loop nest's is its own
  // function's.
  int live = d;
  const bool function = kind == kAutoFunction;
  while (live > 0 && frames_[live - 1].automatic != kNotAuto &&
         (function ? auto_frame_[live - 1] <= frame : auto_frame_[live - 1] < frame)) {
    --live;
  }
  if (live < d) {  // left by a longjmp or an exception: they end now
    const uint64_t t1 = now_ticks();
    uint64_t c1[kMaxCounters];
    if (nc_ > 0) read_counters(c1, t1);
    close_down_to(d, live, t1, c1);
    d = live;
    cont_region_ = 0;
  }
  if (only_in_marked) {
    int i = d - 1;
    while (i >= 0 && frames_[i].automatic != kNotAuto) --i;
    if (i < 0) return RPROF_OK;  // no marker's region open: not a region
  }
  const bool continues = kind == kAutoLoop && cont_region_ == region && cont_depth_ == d;
  const int status = begin(region);
  if (sh_->depth.load(std::memory_order_relaxed) == d + 1) {
    frames_[d].automatic = kind;
    frames_[d].continued = continues;
    auto_frame_[d] = frame;
  }
  return status;
}

int ThreadState::end_auto(uint32_t region) {
  if (refused_deep_ > 0) {  // as in end(): the innermost refused begin ends first
    --refused_deep_;
    return RPROF_ERR_DEPTH;
  }
  const int target = auto_reachable(region, true);
  if (target < 0) return RPROF_OK;  // never opened (outside markers), or closed by a marker's end
  const uint64_t t1 = now_ticks();
  uint64_t c1[kMaxCounters];
  if (nc_ > 0) read_counters(c1, t1);
  const bool loop = frames_[target].automatic == kAutoLoop;
  const int32_t at = frames_[target].node.load(std::memory_order_relaxed);
  close_down_to(sh_->depth.load(std::memory_order_relaxed), target, t1, c1);
  cont_region_ = loop ? region : 0;
  cont_depth_ = target;
  if (at >= 0) {
    const Node& n = node(at);
    const uint64_t calls = get(n.calls);
    if (calls == kThrottleCalls && ticks_to_ns(get(n.incl_ticks)) < kThrottleCalls * kThrottleMeanNs) {
      record_error(ErrorKind::kThrottled, 0, region, calls);
      return kAutoThrottle;
    }
  }
  return RPROF_OK;
}

int ThreadState::open_path(uint32_t* out, int cap) const {
  const int d = depth();
  if (d == 0) return 0;
  int n = 0;
  for (int32_t i = sh_->frames[d - 1].node.load(std::memory_order_relaxed);
       i >= 0 && n < cap; i = node(i).parent) {
    out[n++] = node(i).region;
  }
  for (int a = 0, b = n - 1; a < b; ++a, --b) {
    const uint32_t x = out[a];
    out[a] = out[b];
    out[b] = x;
  }
  return n;
}

int ThreadState::borrow(const uint32_t* path, int n) {
  cont_region_ = 0;
  const int d0 = sh_->depth.load(std::memory_order_relaxed);
  if (n > kMaxDepth - d0) n = kMaxDepth - d0;
  uint64_t c0[kMaxCounters];
  const uint64_t t0 = now_ticks();
  if (nc_ > 0) read_counters(c0, t0);
  int32_t parent = -1;
  int opened = 0;
  for (; opened < n; ++opened) {
    const int32_t node_id = child_of(parent, path[opened]);
    if (node_id < 0) {
      record_error(ErrorKind::kTooManyRegions, 0, path[opened]);
      break;
    }
    const int d = d0 + opened;
    Frame& f = frames_[d];
    f.node.store(node_id, std::memory_order_relaxed);
    f.region = path[opened];
    // A node already open on this thread (a path sharing its outer regions
    // with the borrowed one) is counted by its outermost frame only.
    f.recursive = false;
    for (int i = 0; i < d && !f.recursive; ++i) {
      f.recursive = frames_[i].node.load(std::memory_order_relaxed) == node_id;
    }
    f.borrowed = true;
    f.automatic = kNotAuto;
    f.continued = false;
    f.child_ticks = 0;
    if (nc_ > 0) {
      uint64_t* cc = child_counters(d);
      uint64_t* sc = start_counters(d);
      for (int k = 0; k < nc_; ++k) {
        cc[k] = 0;
        sc[k] = c0[k];
      }
    }
    if (counting_) backend_->region_opened(path[opened], region_name(path[opened]));
    parent = node_id;
  }
  for (int i = 0; i < opened; ++i) frames_[d0 + i].t0.store(t0, std::memory_order_relaxed);
  sh_->depth.store(d0 + opened, std::memory_order_release);
  return opened;
}

int ThreadState::unborrow(int n) {
  cont_region_ = 0;
  const int d0 = sh_->depth.load(std::memory_order_relaxed);
  if (n <= 0 || n > d0) return 0;
  for (int i = 1; i <= n; ++i) {
    if (!frames_[d0 - i].borrowed) return 0;
  }
  const uint64_t t1 = now_ticks();
  uint64_t c1[kMaxCounters];
  if (nc_ > 0) read_counters(c1, t1);
  for (int i = 0; i < n; ++i) close_frame(d0 - i, t1, c1);
  return n;
}

int ThreadState::work(double flops, double bytes) {
  const int d = sh_->depth.load(std::memory_order_relaxed);
  if (d == 0) {
    record_error(ErrorKind::kWorkOutsideRegion, 0, 0);
    return RPROF_ERR_NESTING;
  }
  // NaN fails both comparisons: refused with the negative and absurd values.
  if (!(flops >= 0 && flops <= kMaxWorkPerCall && bytes >= 0 &&
        bytes <= kMaxWorkPerCall)) {
    record_error(ErrorKind::kBadWork, 0, frames_[d - 1].region);
    return RPROF_ERR_VALUE;
  }
  const int32_t at = frames_[d - 1].node.load(std::memory_order_relaxed);
  if (at < 0) return RPROF_ERR_CAPACITY;  // its region was refused (counted there)
  Node& n = node(at);
  add_relaxed(n.work_calls, 1);
  n.work_flops.store(n.work_flops.load(std::memory_order_relaxed) + flops,
                     std::memory_order_relaxed);
  n.work_bytes.store(n.work_bytes.load(std::memory_order_relaxed) + bytes,
                     std::memory_order_relaxed);
  return RPROF_OK;
}

RegionTotals ThreadState::totals(uint32_t region) const {
  RegionTotals t;
  const int32_t count = node_count();
  for (int32_t i = 0; i < count; ++i) {
    const Node& n = node(i);
    if (n.region != region) continue;
    t.calls += get(n.calls);
    t.incl_ticks += get(n.incl_ticks);
    for (int k = 0; k < nc_; ++k) t.incl[k] += get(n.incl[k]);
  }
  return t;
}

void ThreadState::record_error(ErrorKind kind, uint32_t expected,
                               uint32_t got, uint64_t n) {
  const int count = sh_->errors.load(std::memory_order_relaxed);
  for (int i = 0; i < count; ++i) {
    ErrorRecord& e = sh_->error_records[i];
    if (e.kind == kind && e.expected == expected && e.got == got) {
      add_relaxed(e.count, n);
      return;
    }
  }
  // The last slot is kept for too_many_paths, whose count the report gives
  // as the exact number of calls lost.
  if (count == kMaxErrors || (count == kMaxErrors - 1 && kind != ErrorKind::kTooManyPaths)) {
    errors_dropped_ += n;
    return;
  }
  tables_need_name(expected);
  tables_need_name(got);
  ErrorRecord& e = sh_->error_records[count];
  e.kind = kind;
  e.expected = expected;
  e.got = got;
  e.count.store(n, std::memory_order_relaxed);
  sh_->errors.store(count + 1, std::memory_order_release);
}

void ThreadState::save_open_path(OpenPath* out) const {
  const int d = sh_->depth.load(std::memory_order_relaxed);
  const int32_t count = sh_->nodes.load(std::memory_order_relaxed);
  out->depth = d >= 0 && d <= kMaxDepth ? d : 0;
  for (int i = 0; i < out->depth; ++i) {
    const Frame& f = frames_[i];
    OpenPath::Open& o = out->frames[i];
    o.node = f.node.load(std::memory_order_relaxed);
    if (o.node >= count || (o.node >= 0 && chunks_[o.node / kNodesPerChunk] == nullptr)) {
      o.node = -1;  // never trust a frame half written (a fork from a signal handler)
    }
    o.parent = o.node >= 0 ? node(o.node).parent : -1;
    o.region = f.region;
    o.recursive = f.recursive;
    o.borrowed = f.borrowed;
    o.continued = f.continued;
    o.automatic = f.automatic;
  }
}

void ThreadState::restart_after_fork(const OpenPath& path, int tid, uint64_t now) {
  // The schedstat file names the parent's thread: the child's is opened at
  // its next read, and its run delay counts from there.
  close_schedstat();
  // Chunks in the parent's mapping are about to be unmapped; those on the
  // heap are this process's copy-on-write copies of the parent's, left as
  // they are (freeing them would copy their pages).
  for (Node*& chunk : chunks_) chunk = nullptr;
  auto* shared = static_cast<ThreadShared*>(
      tables_alloc(RecordType::kThread, sh_->index, 0, sizeof(ThreadShared)));
  const uint32_t index = sh_->index;
  if (shared != nullptr) {
    if (own_shared_) delete sh_;
    own_shared_ = false;
  } else if (own_shared_) {
    shared = sh_;
  } else {
    shared = new (std::nothrow) ThreadShared;
    own_shared_ = shared != nullptr;
    if (shared == nullptr) {
      // No memory: one record kept for this case, so the parent's mapping
      // is still never written.
      alignas(ThreadShared) static unsigned char spare[sizeof(ThreadShared)];
      shared = reinterpret_cast<ThreadShared*>(spare);
    }
  }
  sh_ = new (shared) ThreadShared;
  sh_->index = index;
  sh_->tid = tid;
  sh_->role.store(static_cast<uint32_t>(ThreadRole::kLive), std::memory_order_relaxed);
  frames_ = sh_->frames;
  root_first_child_.store(-1, std::memory_order_relaxed);
  root_last_child_ = -1;
  clear_child_index();
  errors_dropped_ = 0;
  cpu_read_ticks_ = cpu_read_ns_ = cpu_last_ns_ = 0;  // the child's CPU clock starts at zero
  delay_last_ns_ = 0;
  // Each open region's node again: the node an earlier frame made (a
  // recursion shares its node), else a child of the node its parent became.
  int32_t made[kMaxDepth];
  for (int d = 0; d < path.depth; ++d) {
    const OpenPath::Open& o = path.frames[d];
    int32_t n = -1;
    int same = -1, parent = o.parent < 0 ? -2 : -1;
    for (int j = 0; j < d; ++j) {
      if (same < 0 && path.frames[j].node == o.node) same = j;
      if (parent == -1 && path.frames[j].node == o.parent) parent = j;
    }
    if (o.node < 0) {
      n = -1;
    } else if (same >= 0) {
      n = made[same];
    } else if (parent == -2 || (parent >= 0 && made[parent] >= 0)) {
      n = child_of(parent == -2 ? -1 : made[parent], o.region);
    }
    made[d] = n;
    Frame& f = frames_[d];
    f.node.store(n, std::memory_order_relaxed);
    f.region = o.region;
    f.recursive = o.recursive;
    f.borrowed = o.borrowed;
    f.automatic = o.automatic;
    f.continued = o.continued;
    f.child_ticks = 0;
    f.t0.store(now, std::memory_order_relaxed);
    if (nc_ > 0) {
      read_counters(start_counters(d), now);
      uint64_t* cc = child_counters(d);
      for (int k = 0; k < nc_; ++k) cc[k] = 0;
    }
  }
  sh_->depth.store(path.depth, std::memory_order_release);
}

void ThreadState::fold_into(ThreadState& into) const {
  const int32_t count = node_count();
  // This thread's node -> the node of the same path in `into` (-1: lost).
  auto* map = static_cast<int32_t*>(std::malloc(sizeof(int32_t) * (count > 0 ? count : 1)));
  if (map == nullptr) return;
  uint64_t lost_calls = 0;
  for (int32_t i = 0; i < count; ++i) {
    const Node& n = node(i);
    const int32_t parent = n.parent < 0 ? -1 : map[n.parent];
    map[i] = n.parent >= 0 && parent < 0 ? -1 : into.child_of(parent, n.region);
    if (map[i] < 0) {
      lost_calls += get(n.calls);
      continue;
    }
    Node& a = into.node(map[i]);
    add_relaxed(a.calls, get(n.calls));
    add_relaxed(a.work_calls, get(n.work_calls));
    a.work_flops.store(a.work_flops.load(std::memory_order_relaxed) +
                           n.work_flops.load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
    a.work_bytes.store(a.work_bytes.load(std::memory_order_relaxed) +
                           n.work_bytes.load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
    // Times: the longest thread's (a region's time is its longest thread's).
    if (get(n.incl_ticks) > get(a.incl_ticks)) a.incl_ticks.store(get(n.incl_ticks));
    if (get(n.excl_ticks) > get(a.excl_ticks)) a.excl_ticks.store(get(n.excl_ticks));
    for (int k = 0; k < nc_; ++k) {
      add_relaxed(a.incl[k], get(n.incl[k]));
      add_relaxed(a.excl[k], get(n.excl[k]));
    }
  }
  std::free(map);
  if (lost_calls > 0) into.record_error(ErrorKind::kTooManyPaths, 0, 0, lost_calls);
  const int errors = error_count();
  for (int i = 0; i < errors; ++i) {
    const ErrorRecord& e = error(i);
    into.record_error(e.kind, e.expected, e.got, get(e.count));
  }
  if (errors_dropped_ > 0) into.errors_dropped_ += errors_dropped_;
}

void ThreadState::reset_nodes() {
  const int32_t count = sh_->nodes.load(std::memory_order_relaxed);
  sh_->nodes.store(0, std::memory_order_release);
  for (int32_t i = 0; i < count; ++i) new (&node(i)) Node;
  root_first_child_.store(-1, std::memory_order_release);
  root_last_child_ = -1;
  clear_child_index();
}

void ThreadState::release() {
  sh_->role.store(static_cast<uint32_t>(ThreadRole::kVacant), std::memory_order_release);
  reset_nodes();
  sh_->depth.store(0, std::memory_order_relaxed);
  sh_->errors.store(0, std::memory_order_relaxed);
  sh_->in_marker.store(0, std::memory_order_relaxed);
  errors_dropped_ = 0;
  refused_deep_ = 0;
  for (NameCacheEntry& e : name_cache) e = NameCacheEntry{};
  free_.store(true, std::memory_order_release);
}

void ThreadState::revive(int tid, ThreadRole role) {
  sh_->tid = tid;
  sh_->exited.store(role == ThreadRole::kFolded ? 1 : 0, std::memory_order_relaxed);
  nc_ = nc_config_;
  backend_nc_ = backend_nc_config_;
  cpu_slot_ = nc_ > backend_nc_ ? backend_nc_ : -1;
  delay_slot_ = nc_ > backend_nc_ + 1 ? backend_nc_ + 1 : -1;
  // A new thread's CPU clock and run delay start again from zero.
  cpu_read_ticks_ = cpu_read_ns_ = cpu_last_ns_ = 0;
  close_schedstat();
  if (role == ThreadRole::kLive) {
    counting_ = backend_nc_ > 0 && backend_ != nullptr && backend_->open_thread();
    if (!counting_) backend_nc_ = 0;
    if (frame_counters_ == nullptr && nc_ > 0) {
      frame_counters_ = static_cast<uint64_t*>(
          std::calloc(static_cast<size_t>(2 * kMaxDepth * nc_), sizeof(uint64_t)));
    }
    if (frame_counters_ == nullptr) {
      counting_ = false;
      nc_ = backend_nc_ = 0;
      cpu_slot_ = delay_slot_ = -1;
    }
  } else {
    // The exited threads' state opens no frame; it keeps the session's
    // counter count so that fold_into() sums every counter.
    std::free(frame_counters_);
    frame_counters_ = nullptr;
    counting_ = false;
  }
  sh_->role.store(static_cast<uint32_t>(role), std::memory_order_release);
}

}  // namespace rprof::runtime
