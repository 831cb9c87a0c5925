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

// The parent's tables as they were when fork() was called (tables_before_fork),
// for the child: an unnamed file in the tables' directory. The tables' lock
// is held from before the fork until after it (in the parent; the child makes
// a new one), so the copy, the segments and `used` agree in the child.
// Thread-local: the thread that forks is the child's only thread.
__thread int t_fork_fd = -1;
__thread bool t_fork_locked = false;
// Set while this thread holds the lock in tables_alloc: a fork from a signal
// handler that interrupted it takes no snapshot (it would wait for itself).
__thread bool t_in_alloc = false;


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

void unmap_all() {
  Arena& a = g_arena;
  for (int i = 0; i < a.segments; ++i) munmap(a.seg[i].base, a.seg[i].size);
  if (a.fd >= 0) close(a.fd);
  a = Arena{};
}

}  // namespace

bool tables_open(const char* dir, const TablesInfo& info) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  Arena& a = g_arena;
  if (a.segments != 0 || dir == nullptr || *dir == '\0' || std::strlen(dir) >= sizeof(a.dir)) {
    return false;
  }
  a.fd = create_file(dir, static_cast<int>(getpid()));
  if (a.fd < 0) return false;
  copy_name(a.dir, sizeof(a.dir), dir);
  if (add_segment(kFirstSegment) != 0) {
    unmap_all();
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

void* tables_alloc(RecordType type, uint32_t a_, uint32_t b, size_t size) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  t_in_alloc = true;
  struct Done {
    ~Done() { t_in_alloc = false; }
  } done;
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

namespace {

// Writes the mapped segments' records (file offsets below a.used) into fd at
// their file offsets; the file is a.file_size bytes long.
bool copy_segments(int fd, const Arena& a) {
  if (ftruncate(fd, static_cast<off_t>(a.file_size)) != 0) return false;
  for (int i = 0; i < a.segments; ++i) {
    const Segment& sg = a.seg[i];
    const size_t len = a.used > sg.off ? std::min(sg.size, a.used - sg.off) : 0;
    for (size_t off = 0; off < len;) {
      const ssize_t n = pwrite(fd, sg.base + off, len - off, static_cast<off_t>(sg.off + off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
  }
  return true;
}

// Gives the snapshot its name, <dir>/rprof-tables.<pid>.<seq>: linked from
// /proc; where that fails, copied into a new file. The file's descriptor, or -1.
int name_snapshot(int snap, const Arena& a) {
  char proc[64];
  std::snprintf(proc, sizeof(proc), "/proc/self/fd/%d", snap);
  char path[4096 + 64];
  for (int seq = 0; seq < 64; ++seq) {
    std::snprintf(path, sizeof(path), "%s/rprof-tables.%d.%d", a.dir, static_cast<int>(getpid()),
                  seq);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return snap;
    if (errno != EEXIST) break;
  }
  const int fd = create_file(a.dir, static_cast<int>(getpid()));
  bool ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(a.file_size)) == 0;
  char buf[1 << 16];
  for (size_t off = 0; ok && off < a.used;) {
    const size_t want = std::min(sizeof(buf), a.used - off);
    const ssize_t n = pread(snap, buf, want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0 && pwrite(fd, buf, static_cast<size_t>(n), static_cast<off_t>(off)) == n;
    off += n > 0 ? static_cast<size_t>(n) : 0;
  }
  close(snap);
  if (!ok && fd >= 0) close(fd);
  return ok ? fd : -1;
}

// The address of file offset off, or null (in no segment).
char* address_of(const Arena& a, size_t off) {
  for (int i = 0; i < a.segments; ++i) {
    if (off >= a.seg[i].off && off < a.seg[i].off + a.seg[i].size) {
      return a.seg[i].base + (off - a.seg[i].off);
    }
  }
  return nullptr;
}

// Only the forking thread lives on in the child: the other threads' records
// in its copy are emptied (no nodes, no open frames, no errors), so nothing
// of the parent's is counted twice and no half-updated table is read.
void forget_other_threads(const Arena& a, uint32_t keep) {
  for (size_t off = round_up(sizeof(TablesHeader), kRecordAlign);
       off + sizeof(RecordHeader) <= a.used;) {
    auto* rec = reinterpret_cast<RecordHeader*>(address_of(a, off));
    if (rec == nullptr || rec->magic != kRecordMagic ||
        rec->size > a.used - off - sizeof(RecordHeader)) {
      break;
    }
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
  if (t_in_alloc) return;
  g_mutex.lock();
  t_fork_locked = true;
  const Arena& a = g_arena;
  if (a.segments == 0 || a.fd < 0) return;
  // Records below `used` are complete; the forking thread's own are not
  // changing while it forks. Other threads may be updating theirs: their
  // tables are emptied in the child.
  const int fd = above_stdio(::open(a.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (fd < 0) return;
  if (!copy_segments(fd, a)) {
    close(fd);
    return;
  }
  t_fork_fd = fd;
}

void tables_after_fork_parent() {
  if (t_fork_fd >= 0) close(t_fork_fd);  // the child holds its own descriptor
  t_fork_fd = -1;
  if (t_fork_locked) g_mutex.unlock();
  t_fork_locked = false;
}

void tables_after_fork(int parent_pid, uint32_t keep_thread) {
  // The forking thread is the only one: no lock needed (the parent's was
  // held across the fork).
  new (&g_mutex) std::mutex;
  t_fork_locked = false;
  t_in_alloc = false;
  Arena& a = g_arena;
  const int snap = t_fork_fd;
  t_fork_fd = -1;
  if (a.segments == 0) {
    if (snap >= 0) close(snap);
    return;
  }
  int fd = -1;
  bool ok = false;
  if (snap >= 0) {
    fd = name_snapshot(snap, a);
    ok = fd >= 0;
  } else if (a.fd >= 0) {
    // No snapshot (no O_TMPFILE here, or a fork from a signal handler): a
    // copy of the parent's file as it is now; the parent may have moved on,
    // its other threads are emptied below.
    fd = create_file(a.dir, static_cast<int>(getpid()));
    ok = fd >= 0 && copy_segments(fd, a);
  }
  for (int i = 0; ok && i < a.segments; ++i) {
    const Segment& sg = a.seg[i];
    ok = mmap(sg.base, sg.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
              static_cast<off_t>(sg.off)) != MAP_FAILED;
  }
  if (!ok) {
    // No file of our own: keep a private copy so the parent's tables are
    // never written, and stop adding to the tables (pointers into the
    // segments stay valid).
    const int err = errno != 0 ? errno : EIO;
    if (fd >= 0) close(fd);
    for (int i = 0; i < a.segments && a.fd >= 0; ++i) {
      const Segment& sg = a.seg[i];
      mmap(sg.base, sg.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, a.fd,
           static_cast<off_t>(sg.off));
    }
    if (a.fd >= 0) close(a.fd);
    a.fd = -1;
    note_full(err);
    return;
  }
  close(a.fd);
  a.fd = fd;
  TablesHeader* h = header();
  h->used.store(a.used, std::memory_order_relaxed);
  forget_other_threads(a, keep_thread);
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
