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

void tables_after_fork(int parent_pid) {
  // The forking thread is the only one: no lock needed (and the mutex may
  // have been held by another thread of the parent at fork time).
  new (&g_mutex) std::mutex;
  Arena& a = g_arena;
  if (a.segments == 0) return;
  const int fd = a.fd >= 0 ? create_file(a.dir, static_cast<int>(getpid())) : -1;
  bool ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(a.file_size)) == 0;
  for (int i = 0; ok && i < a.segments; ++i) {
    const Segment& s = a.seg[i];
    const size_t len = a.used > s.off ? std::min(s.size, a.used - s.off) : 0;
    for (size_t off = 0; ok && off < len;) {
      const ssize_t n = pwrite(fd, s.base + off, len - off, static_cast<off_t>(s.off + off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ok = false;
      else off += static_cast<size_t>(n);
    }
  }
  for (int i = 0; ok && i < a.segments; ++i) {
    const Segment& s = a.seg[i];
    ok = mmap(s.base, s.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
              static_cast<off_t>(s.off)) != MAP_FAILED;
  }
  if (!ok) {
    // No file of our own: keep a private copy so the parent's tables are
    // never written, and stop adding to the tables (pointers into the
    // segments stay valid).
    const int err = errno != 0 ? errno : EIO;
    if (fd >= 0) close(fd);
    for (int i = 0; i < a.segments && a.fd >= 0; ++i) {
      const Segment& s = a.seg[i];
      mmap(s.base, s.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, a.fd,
           static_cast<off_t>(s.off));
    }
    if (a.fd >= 0) close(a.fd);
    a.fd = -1;
    note_full(err);
    return;
  }
  close(a.fd);
  a.fd = fd;
  TablesHeader* h = header();
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
