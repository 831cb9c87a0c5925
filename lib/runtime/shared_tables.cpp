#include "runtime/shared_tables.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/clock.h"
#include "runtime/region_table.h"

namespace rprof::runtime {
namespace {

// The file is mapped in segments, each a range of the file at its own
// address, so records never move and no address space is reserved ahead:
// the mapping takes what the tables hold (RLIMIT_AS sees only that). A
// segment grows the mapped total by half (at least 1 MiB, at most 64 MiB);
// a record never spans two segments (the old segment's tail becomes a pad
// record).
constexpr size_t kFirstSegment = size_t{1} << 20;
constexpr size_t kMaxSegment = size_t{64} << 20;
constexpr int kMaxSegments = 64;

struct Segment {
  char* base = nullptr;
  size_t off = 0;   // file offset of base
  size_t size = 0;  // bytes mapped
};

struct Arena {
  int fd = -1;
  Segment seg[kMaxSegments];
  int segments = 0;
  size_t file_size = 0;  // bytes of the file, all mapped
  size_t used = 0;       // file offset of the next record
  char dir[4096] = {};
};

Arena g_arena;
std::mutex g_mutex;
// In a forked child, the parent's mapping until tables_drop_parent().
Arena g_parent;

// The region names the file holds, a bit per id: set when a name record is
// written. A forked child's file starts with none.
std::atomic<uint64_t> g_named[kMaxRegions / 64 + 1];

// t_in_alloc: this thread holds the tables' lock (a fork from a signal
// handler that interrupted it does not wait for itself); t_fork_locked: it
// took the lock before a fork (released in the parent after).
__thread bool t_fork_locked = false;
__thread bool t_in_alloc = false;

// The tables' lock, marked on this thread while held.
class Locked {
 public:
  Locked() : lock_(g_mutex) { t_in_alloc = true; }
  ~Locked() { t_in_alloc = false; }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

bool named(uint32_t id) {
  return (g_named[id / 64].load(std::memory_order_acquire) >> (id % 64)) & 1;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

TablesHeader* header() { return reinterpret_cast<TablesHeader*>(g_arena.seg[0].base); }

// Why the tables stopped growing, kept in the header for the launcher.
void note_full(int err) {
  TablesHeader* h = header();
  if (h == nullptr) return;
  if (h->incomplete.load(std::memory_order_relaxed) == 0) {
    h->grow_errno.store(err, std::memory_order_relaxed);
  }
  h->incomplete.store(1, std::memory_order_release);
}

// Maps `size` more bytes of the file as a new segment. errno-style result.
int add_segment(size_t size) {
  Arena& a = g_arena;
  if (a.segments == kMaxSegments) return ENOMEM;
  if (a.file_size + size > kMaxTablesBytes) return EFBIG;
  if (ftruncate(a.fd, static_cast<off_t>(a.file_size + size)) != 0) return errno;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd,
                 static_cast<off_t>(a.file_size));
  if (p == MAP_FAILED) {
    const int err = errno;
    if (ftruncate(a.fd, static_cast<off_t>(a.file_size)) != 0) {
      // The file keeps the unmapped tail: zeroes past `used`, never read.
    }
    return err;
  }
  a.seg[a.segments++] = Segment{static_cast<char*>(p), a.file_size, size};
  a.file_size += size;
  return 0;
}

// The address of file offset off (in the last segment).
char* at(size_t off) {
  const Segment& s = g_arena.seg[g_arena.segments - 1];
  return s.base + (off - s.off);
}

void copy_name(char* dst, size_t cap, const char* src) {
  if (src == nullptr) src = "";
  const size_t n = strnlen(src, cap - 1);
  std::memcpy(dst, src, n);
  dst[n] = '\0';
}

// fd moved to 3 or above: a program started with stdin, stdout or stderr
// closed must not find the tables' file where it expects its own output.
int above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int err = errno;
  close(fd);
  errno = err;
  return moved;
}

// <dir>/rprof-tables.<pid>.<seq> with the first free seq (an exec'd image
// keeps its pid; its predecessor's file stays).
int create_file(const char* dir, int pid) {
  char path[4096 + 64];
  for (int seq = 0; seq < 64; ++seq) {
    std::snprintf(path, sizeof(path), "%s/rprof-tables.%d.%d", dir, pid, seq);
    const int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return above_stdio(fd);
  }
  return -1;
}

void unmap_all(Arena& a) {
  for (int i = 0; i < a.segments; ++i) munmap(a.seg[i].base, a.seg[i].size);
  if (a.fd >= 0) close(a.fd);
  a = Arena{};
}

// A new file in dir with its header, as g_arena (empty: no file).
bool open_arena(const char* dir, const TablesInfo& info) {
  Arena& a = g_arena;
  if (a.segments != 0 || dir == nullptr || *dir == '\0' || std::strlen(dir) >= sizeof(a.dir)) {
    return false;
  }
  a.fd = create_file(dir, static_cast<int>(getpid()));
  if (a.fd < 0) return false;
  copy_name(a.dir, sizeof(a.dir), dir);
  if (add_segment(kFirstSegment) != 0) {
    unmap_all(a);
    return false;
  }
  auto* h = new (a.seg[0].base) TablesHeader;
  h->version = kTablesVersion;
  h->header_size = sizeof(TablesHeader);
  h->node_size = sizeof(Node);
  h->thread_size = sizeof(ThreadShared);
  h->max_counters = kMaxCounters;
  h->max_depth = kMaxDepth;
  h->nodes_per_chunk = kNodesPerChunk;
  h->num_counters = info.num_counters;
  h->pid = static_cast<int32_t>(getpid());
  h->parent_pid = 0;
  h->rank = info.rank;
  h->world_size = info.world_size;
  h->clock_tsc = g_clock.tsc ? 1 : 0;
  h->ticks_per_s = g_clock.ticks_per_s;
  h->start_ticks = info.start_ticks;
  h->start_mono_ns = monotonic_ns();
  h->start_unix_s = info.start_unix_s;
  copy_name(h->backend, sizeof(h->backend), info.backend);
  copy_name(h->host, sizeof(h->host), info.host);
  for (int k = 0; k < info.num_counters && k < kMaxCounters; ++k) {
    copy_name(h->counter_names[k], kTablesNameBytes, info.counter_names[k]);
  }
  a.used = round_up(sizeof(TablesHeader), kRecordAlign);
  h->used.store(a.used, std::memory_order_relaxed);
  // The magic last: a reader that sees it sees a complete header.
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(h->magic, kTablesMagic, sizeof(h->magic));
  return true;
}

void* alloc_locked(RecordType type, uint32_t a_, uint32_t b, size_t size) {
  Arena& a = g_arena;
  if (a.segments == 0 || a.fd < 0) return nullptr;
  TablesHeader* h = header();
  const size_t span = record_span(size);
  if (a.used + span > a.file_size) {
    const size_t grow = std::min(kMaxSegment, std::max(kFirstSegment, a.file_size / 2));
    const int err = add_segment(round_up(std::max(span, grow), kFirstSegment));
    if (err != 0) {
      note_full(err);
      return nullptr;
    }
    // The previous segment's tail (a multiple of kRecordAlign, so 0 or at
    // least one record header) becomes a pad record the reader skips.
    const Segment& prev = a.seg[a.segments - 2];
    const size_t tail = prev.off + prev.size - a.used;
    if (tail > 0) {
      auto* pad = reinterpret_cast<RecordHeader*>(prev.base + (a.used - prev.off));
      pad->magic = kRecordMagic;
      pad->type = static_cast<uint32_t>(RecordType::kPad);
      pad->a = pad->b = 0;
      pad->size = tail - sizeof(RecordHeader);
      a.used += tail;
    }
  }
  auto* rec = reinterpret_cast<RecordHeader*>(at(a.used));
  rec->magic = kRecordMagic;
  rec->type = static_cast<uint32_t>(type);
  rec->a = a_;
  rec->b = b;
  rec->size = size;
  a.used += span;
  h->used.store(a.used, std::memory_order_release);
  return rec + 1;  // zero: fresh file pages
}

// Writes a name record for id and marks it held.
void write_name(uint32_t id, const char* name, size_t len) {
  void* rec = alloc_locked(RecordType::kName, id, 0, len);
  if (rec == nullptr) return;
  std::memcpy(rec, name, len);
  g_named[id / 64].fetch_or(uint64_t{1} << (id % 64), std::memory_order_release);
}

}  // namespace

bool tables_open(const char* dir, const TablesInfo& info) {
  const Locked lock;
  return open_arena(dir, info);
}

void* tables_alloc(RecordType type, uint32_t a, uint32_t b, size_t size) {
  const Locked lock;
  return alloc_locked(type, a, b, size);
}

void tables_add_name(uint32_t id, const char* name, size_t len) {
  if (id == 0 || id > kMaxRegions) return;
  const Locked lock;
  write_name(id, name, len);
}

void tables_need_name(uint32_t id) {
  if (id == 0 || id > kMaxRegions || named(id)) return;
  const Locked lock;
  // Not open, or full (a name that did not fit is not retried at every node).
  const TablesHeader* h = header();
  if (g_arena.segments == 0 || named(id) || h->incomplete.load(std::memory_order_relaxed) != 0) {
    return;
  }
  const char* name = region_name(id);
  write_name(id, name, std::strlen(name));
}

bool tables_owns(const void* p) {
  const char* c = static_cast<const char*>(p);
  const Arena& a = g_arena;
  for (int i = 0; i < a.segments; ++i) {
    if (c >= a.seg[i].base && c < a.seg[i].base + a.seg[i].size) return true;
  }
  return false;
}

TablesHeader* tables_header() { return g_arena.segments != 0 ? header() : nullptr; }

size_t tables_file_bytes() { return g_arena.file_size; }

void tables_before_fork() {
  if (t_in_alloc) return;
  g_mutex.lock();
  t_fork_locked = true;
}

void tables_after_fork_parent() {
  if (t_fork_locked) g_mutex.unlock();
  t_fork_locked = false;
}

void tables_after_fork(int parent_pid) {
  // The forking thread is the only one: no lock needed (the parent's was
  // held across the fork, so the arena below is whole).
  new (&g_mutex) std::mutex;
  t_fork_locked = false;
  t_in_alloc = false;
  for (std::atomic<uint64_t>& w : g_named) w.store(0, std::memory_order_relaxed);
  if (g_arena.segments == 0) return;
  g_parent = g_arena;
  g_arena = Arena{};
  // The parent's header fields that never change after it was opened.
  const auto* ph = reinterpret_cast<const TablesHeader*>(g_parent.seg[0].base);
  const char* counters[kMaxCounters];
  const int nc = ph->num_counters >= 0 && ph->num_counters <= kMaxCounters ? ph->num_counters : 0;
  for (int k = 0; k < nc; ++k) counters[k] = ph->counter_names[k];
  TablesInfo info{};
  info.host = ph->host;
  info.backend = ph->backend;
  info.counter_names = counters;
  info.num_counters = nc;
  info.rank = ph->rank;
  info.world_size = ph->world_size;
  info.start_ticks = now_ticks();
  info.start_unix_s = ph->start_unix_s;
  if (!open_arena(g_parent.dir, info)) return;  // the child's tables stay on the heap
  header()->parent_pid = parent_pid;
}

bool tables_parent_owns(const void* p) {
  const char* c = static_cast<const char*>(p);
  for (int i = 0; i < g_parent.segments; ++i) {
    if (c >= g_parent.seg[i].base && c < g_parent.seg[i].base + g_parent.seg[i].size) return true;
  }
  return false;
}

void tables_drop_parent() { unmap_all(g_parent); }

void tables_note_raw(RawState state, int err) {
  TablesHeader* h = tables_header();
  if (h == nullptr) return;
  h->raw_errno.store(err, std::memory_order_relaxed);
  h->raw_state.store(static_cast<uint32_t>(state), std::memory_order_release);
}

}  // namespace rprof::runtime
