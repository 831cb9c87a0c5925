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

namespace rprof::runtime {
namespace {

// Address space reserved once (PROT_NONE, no memory); the file is mapped into
// it from the start as it grows, so records never move.
constexpr size_t kReserveBytes = size_t{16} << 30;
constexpr size_t kGrowBytes = size_t{1} << 20;

struct Arena {
  int fd = -1;
  char* base = nullptr;
  size_t mapped = 0;  // bytes of the file mapped at base
  size_t used = 0;    // bytes of records (and the header)
  char dir[4096] = {};
};

Arena g_arena;
std::mutex g_mutex;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Maps more of the file (mapped..want) at its place in the reservation.
bool grow(size_t want) {
  Arena& a = g_arena;
  if (want <= a.mapped) return true;
  const size_t size = round_up(want, kGrowBytes);
  if (size > kReserveBytes) return false;
  if (ftruncate(a.fd, static_cast<off_t>(size)) != 0) return false;
  void* p = mmap(a.base + a.mapped, size - a.mapped, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, a.fd, static_cast<off_t>(a.mapped));
  if (p == MAP_FAILED) return false;
  a.mapped = size;
  return true;
}

void copy_name(char* dst, size_t cap, const char* src) {
  if (src == nullptr) src = "";
  const size_t n = strnlen(src, cap - 1);
  std::memcpy(dst, src, n);
  dst[n] = '\0';
}

// <dir>/rprof-tables.<pid>.<seq> with the first free seq (an exec'd image
// keeps its pid; its predecessor's file stays).
int create_file(const char* dir, int pid) {
  char path[4096 + 64];
  for (int seq = 0; seq < 64; ++seq) {
    std::snprintf(path, sizeof(path), "%s/rprof-tables.%d.%d", dir, pid, seq);
    const int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

bool tables_open(const char* dir, const TablesInfo& info) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  Arena& a = g_arena;
  if (a.base != nullptr || dir == nullptr || *dir == '\0' || std::strlen(dir) >= sizeof(a.dir)) {
    return false;
  }
  void* res = mmap(nullptr, kReserveBytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (res == MAP_FAILED) return false;
  a.fd = create_file(dir, static_cast<int>(getpid()));
  if (a.fd < 0) {
    munmap(res, kReserveBytes);
    return false;
  }
  a.base = static_cast<char*>(res);
  copy_name(a.dir, sizeof(a.dir), dir);
  if (!grow(sizeof(TablesHeader))) {
    close(a.fd);
    munmap(res, kReserveBytes);
    a = Arena{};
    return false;
  }
  auto* h = new (a.base) TablesHeader;
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

void* tables_alloc(RecordType type, uint32_t a_, uint32_t b, size_t size) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  Arena& a = g_arena;
  if (a.base == nullptr) return nullptr;
  auto* h = reinterpret_cast<TablesHeader*>(a.base);
  const size_t span = record_span(size);
  if (!grow(a.used + span)) {
    h->incomplete.store(1, std::memory_order_relaxed);
    return nullptr;
  }
  auto* rec = reinterpret_cast<RecordHeader*>(a.base + a.used);
  rec->magic = kRecordMagic;
  rec->type = static_cast<uint32_t>(type);
  rec->a = a_;
  rec->b = b;
  rec->size = size;
  a.used += span;
  h->used.store(a.used, std::memory_order_release);
  return rec + 1;  // zero: fresh file pages
}

bool tables_owns(const void* p) {
  const char* c = static_cast<const char*>(p);
  return g_arena.base != nullptr && c >= g_arena.base && c < g_arena.base + kReserveBytes;
}

TablesHeader* tables_header() {
  return g_arena.base != nullptr ? reinterpret_cast<TablesHeader*>(g_arena.base) : nullptr;
}

namespace {

// The parent's tables as they were when fork() was called (tables_before_fork),
// for the child: an unnamed file in the tables' directory, and its size.
// Thread-local: the thread that forks is the child's only thread.
__thread int t_fork_fd = -1;
__thread uint64_t t_fork_used = 0;

bool copy_out(int fd, const char* from, uint64_t bytes, uint64_t mapped) {
  if (ftruncate(fd, static_cast<off_t>(mapped)) != 0) return false;
  for (uint64_t off = 0; off < bytes;) {
    const ssize_t n = pwrite(fd, from + off, bytes - off, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<uint64_t>(n);
  }
  return true;
}

// Gives the snapshot its name, <dir>/rprof-tables.<pid>.<seq>: linked from
// /proc; where that fails, copied into a new file. The file's descriptor, or -1.
int name_snapshot(int snap, const char* dir, uint64_t used, uint64_t mapped) {
  char proc[64];
  std::snprintf(proc, sizeof(proc), "/proc/self/fd/%d", snap);
  char path[4096 + 64];
  for (int seq = 0; seq < 64; ++seq) {
    std::snprintf(path, sizeof(path), "%s/rprof-tables.%d.%d", dir, static_cast<int>(getpid()),
                  seq);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return snap;
    if (errno != EEXIST) break;
  }
  const int fd = create_file(dir, static_cast<int>(getpid()));
  bool ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(mapped)) == 0;
  char buf[1 << 16];
  for (uint64_t off = 0; ok && off < used;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof(buf), used - off));
    const ssize_t n = pread(snap, buf, want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0 && pwrite(fd, buf, static_cast<size_t>(n), static_cast<off_t>(off)) == n;
    off += n > 0 ? static_cast<uint64_t>(n) : 0;
  }
  close(snap);
  if (!ok && fd >= 0) close(fd);
  return ok ? fd : -1;
}

// Only the forking thread lives on in the child: the other threads' records
// in its copy are emptied (no nodes, no open frames, no errors), so nothing
// of the parent's is counted twice and no half-updated table is read.
void forget_other_threads(const Arena& a, uint64_t used, uint32_t keep) {
  for (uint64_t off = round_up(sizeof(TablesHeader), kRecordAlign);
       off + sizeof(RecordHeader) <= used;) {
    auto* rec = reinterpret_cast<RecordHeader*>(a.base + off);
    if (rec->magic != kRecordMagic || rec->size > used - off - sizeof(RecordHeader)) break;
    if (rec->type == static_cast<uint32_t>(RecordType::kThread) && rec->a != keep &&
        rec->size == sizeof(ThreadShared)) {
      auto* t = reinterpret_cast<ThreadShared*>(rec + 1);
      t->nodes.store(0, std::memory_order_relaxed);
      t->depth.store(0, std::memory_order_relaxed);
      t->errors.store(0, std::memory_order_relaxed);
      t->in_marker.store(0, std::memory_order_relaxed);
      t->exited.store(1, std::memory_order_relaxed);
    }
    off += record_span(rec->size);
  }
}

}  // namespace

void tables_before_fork() {
  t_fork_fd = -1;
  Arena& a = g_arena;
  if (a.base == nullptr || a.fd < 0) return;
  // Records below `used` are complete (published with release); the forking
  // thread's own are not changing while it forks. Other threads may be
  // adding records: their tables are emptied in the child.
  const uint64_t used = reinterpret_cast<TablesHeader*>(a.base)->used.load(std::memory_order_acquire);
  const uint64_t mapped = round_up(used, kGrowBytes);
  const int fd = ::open(a.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (!copy_out(fd, a.base, used, mapped)) {
    close(fd);
    return;
  }
  t_fork_fd = fd;
  t_fork_used = used;
}

void tables_after_fork_parent() {
  if (t_fork_fd >= 0) close(t_fork_fd);  // the child holds its own descriptor
  t_fork_fd = -1;
}

void tables_after_fork(int parent_pid, uint32_t keep_thread) {
  // The forking thread is the only one: no lock needed (and the mutex may
  // have been held by another thread of the parent at fork time).
  new (&g_mutex) std::mutex;
  Arena& a = g_arena;
  const int snap = t_fork_fd;
  t_fork_fd = -1;
  if (a.base == nullptr) {
    if (snap >= 0) close(snap);
    return;
  }
  int fd = -1;
  uint64_t used = 0;
  bool ok = false;
  if (snap >= 0) {
    used = t_fork_used;
    fd = name_snapshot(snap, a.dir, used, a.mapped);
    ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(a.mapped)) == 0;
  } else if (a.fd >= 0) {
    // No snapshot (no O_TMPFILE here): a copy of the parent's file as it is
    // now; the parent may have moved on, its other threads are emptied below.
    used = a.used;
    fd = create_file(a.dir, static_cast<int>(getpid()));
    ok = fd >= 0 && copy_out(fd, a.base, used, a.mapped);
  }
  if (ok) {
    ok = mmap(a.base, a.mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) !=
         MAP_FAILED;
  }
  if (!ok) {
    // No file of our own: keep a private copy so the parent's tables are
    // never written, and stop adding to the tables.
    if (fd >= 0) close(fd);
    if (a.fd >= 0) {
      mmap(a.base, a.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, a.fd, 0);
      close(a.fd);
    }
    a.fd = -1;
    // Keep base (pointers into it stay valid) but refuse new records.
    a.mapped = a.used;
    reinterpret_cast<TablesHeader*>(a.base)->incomplete.store(1);
    return;
  }
  close(a.fd);
  a.fd = fd;
  a.used = used;
  auto* h = reinterpret_cast<TablesHeader*>(a.base);
  h->used.store(used, std::memory_order_relaxed);
  forget_other_threads(a, used, keep_thread);
  h->pid = static_cast<int32_t>(getpid());
  h->parent_pid = parent_pid;
  h->start_ticks = now_ticks();
  h->start_mono_ns = monotonic_ns();
  h->raw_state.store(static_cast<uint32_t>(RawState::kNone));
  h->raw_errno.store(0);
}

void tables_note_raw(RawState state, int err) {
  TablesHeader* h = tables_header();
  if (h == nullptr) return;
  h->raw_errno.store(err, std::memory_order_relaxed);
  h->raw_state.store(static_cast<uint32_t>(state), std::memory_order_release);
}

}  // namespace rprof::runtime
