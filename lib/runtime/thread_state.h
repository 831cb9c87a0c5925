// Per-thread region bookkeeping: a stack of open regions and a call tree of
// nodes (one per distinct region path), with inclusive and exclusive sums.
//
// Only the owning thread writes; the flusher (exit, signal, rprof_flush) may
// read from another thread, so shared fields are relaxed atomics (plain moves
// on x86) and node storage never moves once published.
//
// Recursion: a region already open on this thread's stack is counted on that
// same node (calls increase, inclusive sums are taken by the outermost
// instance only, exclusive sums by every instance), so recursion depth does
// not grow the tree and time is never counted twice.
//
// Node limit: a thread holds at most kMaxChunks * kNodesPerChunk nodes (region
// paths). A begin whose path has no node left is refused but still pushed as
// a frame without a node (so its end, and every begin nested in it, match
// without a nesting error); each refused call is counted once in one
// too_many_paths error, so the report says exactly how many calls were lost.
//
// Lifetime (runtime/thread_registry.h): a thread's state outlives the thread.
// The first kKeptExitedThreads threads to end, the main thread and any thread
// that ends with regions open keep their own state and row. Any other thread
// is folded when it ends into the process's one "exited threads" state (same
// region paths merged: calls, counters and declared work summed, inclusive
// and exclusive times the longest of the folded threads, so a region's time,
// the longest thread's, is unchanged; errors summed) and its state, record
// and node chunks are reused by the next thread, so memory and the tables
// file follow the threads alive at once.
#ifndef RPROF_RUNTIME_THREAD_STATE_H_
#define RPROF_RUNTIME_THREAD_STATE_H_

#include <atomic>
#include <cstdint>

#include "runtime/backend.h"
#include "runtime/handshake.h"

namespace rprof::runtime {

inline constexpr int kMaxDepth = 256;
inline constexpr int kNodesPerChunk = 64;
inline constexpr int kMaxChunks = 4096;  // 262144 nodes per thread
inline constexpr int kMaxErrors = 64;    // distinct errors kept per thread
// Threads that end and keep their own row (see Lifetime above).
inline constexpr uint32_t kKeptExitedThreads = 64;
// Largest FLOP or byte count one rprof_work() call may declare (1e18: an
// exa-FLOP); beyond it the value is refused as absurd.
inline constexpr double kMaxWorkPerCall = 1e18;
// The runtime's own counter after the backend's: the thread's CPU time in ns
// (CLOCK_THREAD_CPUTIME_ID), read with the backend's at every begin and end.
// The tool moves it out of the counters into cpu_time_s (profile/profile.h).
inline constexpr const char* kCpuTimeCounter = RPROF_CPU_TIME_COUNTER;
// After it, when a slot is left: the thread's run delay in ns (runnable,
// waiting for a CPU: /proc/thread-self/schedstat's second field), read
// where the CPU time is read (kCpuClockReuseNs); the tool moves it into
// run_delay_s. Time off the CPU is either: run delay (the machine was busy)
// or the thread's own choice (sleep, I/O, locks).
inline constexpr const char* kRunDelayCounter = RPROF_RUN_DELAY_COUNTER;
// Counters a thread records for a backend with `backend_counters`: the
// backend's, then the CPU time and the run delay while slots are left.
inline int counters_with_cpu_time(int backend_counters) {
  return backend_counters + 2 <= kMaxCounters ? backend_counters + 2
         : backend_counters < kMaxCounters    ? backend_counters + 1
                                              : backend_counters;
}
// The thread CPU clock is a system call (no vDSO path on x86: 0.3-0.8 us a
// read), so a thread reads it at most once per this much of its runtime
// clock; a read sooner takes the last value plus the time since, as if the
// thread stayed on a CPU. A wait shorter than this is thus not seen as one;
// longer waits are, within this much (docs/openmp.md). The estimate never
// goes back: a later clock read below it is raised to it.
inline constexpr uint64_t kCpuClockReuseNs = 50000;

using Counter = std::atomic<uint64_t>;

// Relaxed single-writer helpers: no read-modify-write instruction needed.
inline void add_relaxed(Counter& c, uint64_t v) {
  c.store(c.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}
inline uint64_t get(const Counter& c) {
  return c.load(std::memory_order_relaxed);
}

struct Node {
  uint32_t region = 0;
  int32_t parent = -1;
  std::atomic<int32_t> first_child{-1};
  std::atomic<int32_t> next_sibling{-1};
  int32_t last_child = -1;  // owner-only lookup hint
  Counter calls{0};
  Counter incl_ticks{0};  // runtime clock ticks (runtime/clock.h)
  Counter excl_ticks{0};
  Counter work_calls{0};
  std::atomic<double> work_flops{0};
  std::atomic<double> work_bytes{0};
  Counter incl[kMaxCounters];
  Counter excl[kMaxCounters];
};

enum class ErrorKind : uint8_t {
  kMismatchedEnd,  // end(got) while `expected` is the innermost open region
  kEndWithoutBegin,
  kEmptyName,
  kTooDeep,
  kTooManyRegions,
  kWorkOutsideRegion,
  kBadWork,          // rprof_work() with NaN, a negative or an absurd value
  kInSignalHandler,  // a marker interrupted another on its thread (signal handler)
  kTooManyPaths,     // a begin beyond the thread's node limit (count: calls refused)
  kNameTooLong,      // a name longer than kMaxNameBytes (runtime/region_table.h)
  kReservedName,     // the name of the whole-program row, "[program]"
  // Not an error: a function or loop nest of an instrumented program (got)
  // called so often, so briefly, that its entry and exit stopped being timed
  // (count: the calls measured on this thread; ThreadState::end_auto).
  kThrottled,
};
// The kind's spelling in the raw profile (common/kinds.h reads it back).
inline const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::kMismatchedEnd: return "mismatched_end";
    case ErrorKind::kEndWithoutBegin: return "end_without_begin";
    case ErrorKind::kEmptyName: return "empty_name";
    case ErrorKind::kTooDeep: return "too_deep";
    case ErrorKind::kTooManyRegions: return "too_many_regions";
    case ErrorKind::kWorkOutsideRegion: return "work_outside_region";
    case ErrorKind::kBadWork: return "bad_work";
    case ErrorKind::kInSignalHandler: return "in_signal_handler";
    case ErrorKind::kTooManyPaths: return "too_many_paths";
    case ErrorKind::kNameTooLong: return "name_too_long";
    case ErrorKind::kReservedName: return "reserved_name";
    case ErrorKind::kThrottled: return "throttled";
  }
  return "unknown";
}

struct ErrorRecord {
  ErrorKind kind;
  uint32_t expected;  // region id or 0
  uint32_t got;       // region id or 0
  Counter count{0};
};

struct Frame {
  std::atomic<int32_t> node{-1};  // -1: a begin refused at the node limit
  std::atomic<uint64_t> t0{0};  // ticks
  uint32_t region = 0;
  bool recursive = false;
  // Pushed by ThreadState::borrow(): the path of the thread that started the
  // OpenMP parallel region this thread works in (runtime/openmp.cpp). Its end
  // counts time and counters but no call: the call is the starting thread's.
  bool borrowed = false;
  // Opened by instrumented code (begin_auto: a function or loop nest of a
  // program built with rprof cc), not by a marker: AutoKind.
  uint8_t automatic = 0;
  // A loop nest entered again right after it was left (GCC's versions of one
  // source loop: the vectorized loop, then its remainder): no new call.
  bool continued = false;
  uint64_t child_ticks = 0;
};

// end_auto: a region called this often on one thread, at under this mean
// time a call, costs more in its entry and exit than it measures.
inline constexpr uint64_t kThrottleCalls = 10000;
inline constexpr uint64_t kThrottleMeanNs = 1000;
inline constexpr int kAutoThrottle = 1;

// Frame::automatic.
enum AutoKind : uint8_t { kNotAuto = 0, kAutoFunction = 1, kAutoLoop = 2 };

enum class ThreadRole : uint32_t {
  kLive = 0,    // a thread's own state (running, or ended and kept)
  kVacant = 1,  // released: its thread ended and was folded; nothing to read
  kFolded = 2,  // the process's "exited threads" state (tid 0)
};

// What a reader needs of a thread besides its nodes: its open frames, node
// count and errors. Lives in the shared tables (runtime/shared_tables.h) when
// they are open, so it survives the process; on the heap otherwise.
struct ThreadShared {
  uint32_t index = 0;
  int32_t tid = 0;
  std::atomic<uint32_t> exited{0};
  std::atomic<int> depth{0};
  std::atomic<int32_t> nodes{0};
  std::atomic<int> errors{0};
  // Marker calls that interrupted another on this thread (a signal handler):
  // refused, counted here (ErrorKind::kInSignalHandler).
  std::atomic<uint32_t> in_marker{0};
  std::atomic<uint32_t> role{0};  // ThreadRole
  Frame frames[kMaxDepth];
  ErrorRecord error_records[kMaxErrors];
};

// A thread's open regions as they were when it called fork(), saved in the
// parent before the fork (ThreadState::save_open_path) for the child to
// rebuild them from (ThreadState::restart_after_fork): the parent's tables
// are shared with the child and go on changing once fork() returns there.
struct OpenPath {
  struct Open {
    int32_t node;    // -1: a begin refused at the node limit
    int32_t parent;  // the node's parent (-1: the root)
    uint32_t region;
    bool recursive;
    bool borrowed;
    bool continued;
    uint8_t automatic;
  };
  int depth = 0;
  Open frames[kMaxDepth];
};

// One region's sums over the nodes of one thread (rprof_region_read).
struct RegionTotals {
  uint64_t calls = 0;
  uint64_t incl_ticks = 0;
  uint64_t incl[kMaxCounters] = {};
};

class ThreadState {
 public:
  // num_counters: the backend's; the thread records counters_with_cpu_time()
  // of them when cpu_time (the session's choice: Backend::thread_cpu_time).
  // shared: storage in the shared tables, or null for the heap.
  ThreadState(Backend* backend, int num_counters, uint32_t index, int tid,
              ThreadShared* shared = nullptr, bool cpu_time = true);
  ~ThreadState();
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  int begin(uint32_t region);
  int end(uint32_t region);
  // Regions that instrumented code opens and closes (Frame::automatic). An
  // end closes the innermost open frame of its region together with the
  // automatic frames above it (a C++ exception or longjmp that skipped their
  // ends), never a marker's frame; an end whose region is not open is
  // ignored. only_in_marked: opens nothing unless a marker's region (or a
  // borrowed one) is open on this thread. frame: the stack position of the
  // code that opens it; automatic frames opened deeper in the stack (below
  // it: stacks grow down; for a function, at its position too: a sibling
  // call's) belong to functions that have returned without their end
  // (longjmp, an exception) and are closed first.
  int begin_auto(uint32_t region, AutoKind kind, bool only_in_marked, uintptr_t frame);
  // Returns kAutoThrottle when this end brought its path to
  // kThrottleCalls calls on this thread at under kThrottleMeanNs each: the
  // caller stops opening the region (its later calls are the enclosing
  // region's), recorded as a kThrottled note.
  int end_auto(uint32_t region);
  // Bracket a whole marker call, name lookup included, so that counting
  // backends (sim) leave the marker's own work out of every region.
  void enter_marker() {
    if (counting_) backend_->enter_marker();
  }
  void leave_marker() {
    if (counting_) backend_->leave_marker();
  }
  int work(double flops, double bytes);
  // The region ids of the innermost open region's path, outermost first (at
  // most cap); returns their number (0: no region open).
  int open_path(uint32_t* out, int cap) const;
  // Opens path[0..n) (region ids, outermost first) from the root of this
  // thread's tree as borrowed frames (Frame::borrowed), with one clock and one
  // counter read; returns the number opened. unborrow(n) closes them when
  // they are the innermost n frames (no region the thread opened is still
  // open above them) and returns n, else closes nothing and returns 0.
  int borrow(const uint32_t* path, int n);
  int unborrow(int n);
  // Set around every begin/end/work: a marker call that finds it set runs in
  // a signal handler that interrupted one on this thread, and is refused
  // (kInSignalHandler) so the interrupted call's frame stays intact.
  bool enter_call() {
    if (sh_->in_marker.load(std::memory_order_relaxed) != 0) {
      record_error(ErrorKind::kInSignalHandler, 0, 0);
      return false;
    }
    sh_->in_marker.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return true;
  }
  void leave_call() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    sh_->in_marker.store(0, std::memory_order_relaxed);
  }
  void record_error(ErrorKind kind, uint32_t expected, uint32_t got, uint64_t count = 1);
  // Around fork(): before it (in the parent, by the forking thread), its open
  // regions into *out; in the child, the state rebuilt from them alone, as
  // thread tid, with no count and its open regions restarted at now: its
  // nodes and record in the child's tables (tables_after_fork), or on the
  // heap, never in the parent's mapping. The child's work is constant: the
  // open path, whatever the parent's tree holds.
  void save_open_path(OpenPath* out) const;
  void restart_after_fork(const OpenPath& path, int tid, uint64_t now);

  // Reader side (any thread).
  int32_t node_count() const { return sh_->nodes.load(std::memory_order_acquire); }
  const Node& node(int32_t i) const { return chunks_[i / kNodesPerChunk][i % kNodesPerChunk]; }
  int depth() const { return sh_->depth.load(std::memory_order_acquire); }
  const Frame& frame(int d) const { return sh_->frames[d]; }
  // Completed calls, inclusive time and counters of `region` over all its
  // nodes. Nodes of one region never nest (recursion shares a node), so the
  // sums count nothing twice.
  RegionTotals totals(uint32_t region) const;
  int error_count() const { return sh_->errors.load(std::memory_order_acquire); }
  const ErrorRecord& error(int i) const { return sh_->error_records[i]; }
  uint32_t index() const { return sh_->index; }
  int tid() const { return sh_->tid; }
  bool exited() const { return sh_->exited.load(std::memory_order_acquire) != 0; }
  void mark_exited() { sh_->exited.store(1, std::memory_order_release); }
  int num_counters() const { return nc_; }
  // The backend's counters (the first of num_counters(); 0 when it does not
  // count on this thread).
  int backend_counters() const { return backend_nc_; }
  ThreadRole role() const {
    return static_cast<ThreadRole>(sh_->role.load(std::memory_order_acquire));
  }
  bool vacant() const { return role() == ThreadRole::kVacant; }

  // Lifetime (runtime/thread_registry.cpp). Adds this ended thread's nodes
  // and errors into `into` (the "exited threads" state), path by path.
  void fold_into(ThreadState& into) const;
  // Forgets everything and marks the state vacant; its node chunks stay
  // allocated for the next owner.
  void release();
  // Takes a vacant state for a new thread (false when another took it).
  bool claim() {
    bool expected = true;
    return free_.compare_exchange_strong(expected, false, std::memory_order_acq_rel);
  }
  // Makes a claimed state the calling thread's (tid) or the exited threads'.
  void revive(int tid, ThreadRole role);

  ThreadState* next = nullptr;  // registry link, set once before publication

  // rprof_begin(name) cache: name pointer -> region id, verified by content
  // on every hit, so a reused buffer with a new name is still right.
  struct NameCacheEntry {
    const char* name = nullptr;
    uint32_t id = 0;
  };
  static constexpr int kNameCacheSize = 64;
  NameCacheEntry name_cache[kNameCacheSize];

 private:
  Node& node(int32_t i) { return chunks_[i / kNodesPerChunk][i % kNodesPerChunk]; }
  int32_t child_of(int32_t parent, uint32_t region);
  int32_t add_node(int32_t parent, uint32_t region);
  // The child index (below): the node of `region` under `parent` (-1: the
  // root), or -1 when none.
  int32_t find_child(int32_t parent, uint32_t region) const;
  // Adds node under its key; false when the index cannot grow (it is then
  // dropped and child_of scans siblings).
  bool index_child(int32_t parent, uint32_t region, int32_t node);
  bool grow_child_index();
  void clear_child_index();
  uint64_t* start_counters(int d) { return frame_counters_ + 2 * d * nc_; }
  uint64_t* child_counters(int d) { return frame_counters_ + (2 * d + 1) * nc_; }
  // The backend's counters and the CPU time (now: the runtime clock's ticks
  // the caller read) into out[0..nc_).
  void read_counters(uint64_t* out, uint64_t now);
  uint64_t cpu_time_ns(uint64_t now);
  // The run delay read beside the CPU clock (fresh: that read happened now),
  // else the last value: a thread reading its clock is on a CPU.
  uint64_t run_delay_ns(bool fresh);
  void close_schedstat();
  // Closes the innermost frame (depth d) at t1 with counters c1.
  void close_frame(int d, uint64_t t1, const uint64_t* c1);
  // Closes frames d-1 down to `target` (indices), at one clock and counter
  // read; frames refused at the node limit just leave.
  void close_down_to(int d, int target, uint64_t t1, const uint64_t* c1);
  // The index of the innermost open frame of `region` with only automatic
  // frames above it (automatic itself or not, as asked), or -1.
  int auto_reachable(uint32_t region, bool automatic) const;

  void reset_nodes();

  Backend* backend_;
  int nc_;          // counters recorded: the backend's, then the CPU time
  int backend_nc_;  // the backend's, read through backend_ (0 when it is off)
  int cpu_slot_;    // index of the CPU time, or -1
  int delay_slot_;  // index of the run delay, or -1
  // The session's (nc_ and backend_nc_ are smaller on a thread without them;
  // revive() starts from these).
  int nc_config_;
  int backend_nc_config_;
  std::atomic<bool> free_{false};
  bool counting_;   // the backend counts on this thread
  ThreadShared* sh_;
  bool own_shared_;
  Frame* frames_;                       // sh_->frames
  uint64_t* frame_counters_ = nullptr;  // 2 * kMaxDepth * nc_ values
  std::atomic<int32_t> root_first_child_{-1};
  int32_t root_last_child_ = -1;
  // The child index: (parent node, region id) -> node, so a begin finds its
  // node in O(1) expected whatever the number of siblings. Open addressing
  // with linear probing, a power-of-two number of slots at most half full;
  // slot.node is the node + 1 (0: empty, so calloc'ed slots are empty).
  // Owner-only like Node::last_child: the flusher and the tables reader walk
  // nodes by their parent links and never read it, so a flush from a signal
  // handler that interrupted an insert sees consistent nodes. It grows on a
  // new node only (amortized: doubling), by calloc like the node chunks (a
  // marker never runs in a signal handler: api.cpp refuses it first), and is
  // kept, emptied, when the state is released for the next thread. When it
  // cannot grow it is dropped (child_index_off_) and child_of scans siblings
  // through first_child/next_sibling until the nodes are reset.
  struct ChildSlot {
    int32_t parent;
    uint32_t region;
    uint32_t node;
  };
  ChildSlot* child_slots_ = nullptr;
  uint32_t child_mask_ = 0;  // slots - 1; 0 while there are none
  uint32_t child_used_ = 0;
  bool child_index_off_ = false;
  Node* chunks_[kMaxChunks] = {};
  uint64_t errors_dropped_ = 0;
  uint64_t cpu_read_ticks_ = 0;  // runtime clock at the last CPU clock read
  uint64_t cpu_read_ns_ = 0;     // its value
  uint64_t cpu_last_ns_ = 0;     // the last value given out (never decreases)
  bool cpu_fresh_ = false;       // the last cpu_time_ns() read the clock
  // This thread's /proc/thread-self/schedstat, opened at its first read (on
  // the owning thread: the path names the thread that opens it) and read
  // with pread; -2: not opened yet, -1: unavailable (the run delay stays 0).
  int schedstat_fd_ = -2;
  uint64_t delay_last_ns_ = 0;
  // Begins refused beyond kMaxDepth whose ends have not come yet: those ends
  // are absorbed (one too_deep error, no end_without_begin per level).
  uint64_t refused_deep_ = 0;
  // The loop nest just closed by end_auto, and its depth, while nothing else
  // began or ended since (Frame::continued); 0 when none.
  uint32_t cont_region_ = 0;
  int cont_depth_ = -1;
  // The stack position each automatic frame was opened at (begin_auto).
  uintptr_t auto_frame_[kMaxDepth] = {};
};

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_THREAD_STATE_H_
