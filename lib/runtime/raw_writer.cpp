#include "runtime/raw_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>

#include "runtime/clock.h"
#include "runtime/region_table.h"
#include "runtime/thread_registry.h"
#include "runtime/thread_state.h"

namespace rprof::runtime {
namespace {

// A fixed buffer flushed to the fd when full. One writer at a time (the
// session serialises flushes), so static storage is safe and signal-safe.
class Out {
 public:
  explicit Out(int fd) : fd_(fd) {}
  ~Out() { flush(); }
  void put(char c) {
    if (len_ == sizeof(buf_)) flush();
    buf_[len_++] = c;
  }
  void put(const char* s) {
    while (*s) put(*s++);
  }
  void u64(uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) put(tmp[--n]);
  }
  void i64(int64_t v) {
    if (v < 0) {
      put('-');
      u64(static_cast<uint64_t>(-(v + 1)) + 1);
    } else {
      u64(static_cast<uint64_t>(v));
    }
  }
  // Declared work: non-negative and finite (thread_state refuses the rest),
  // rounded to an integer. Above 2^64 it is written as <digits>e<exponent>
  // (17 significant digits, the double's precision).
  void num(double v) {
    if (!(v >= 0) || !(v <= std::numeric_limits<double>::max())) v = 0;
    if (v < 1.8e19) {
      u64(static_cast<uint64_t>(std::llround(v)));
      return;
    }
    int exp10 = 0;
    while (v >= 1e17) {
      v /= 10;
      ++exp10;
    }
    u64(static_cast<uint64_t>(std::llround(v)));
    put('e');
    u64(static_cast<uint64_t>(exp10));
  }
  // A JSON string. Control characters are \u-escaped; bytes that are not
  // valid UTF-8 become U+FFFD so the file is always valid JSON.
  void str(const char* s) {
    static const char kHex[] = "0123456789abcdef";
    put('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s);
    while (*p) {
      const unsigned char c = *p;
      if (c == '"' || c == '\\') {
        put('\\');
        put(static_cast<char>(c));
        ++p;
      } else if (c < 0x20 || c == 0x7f) {
        put("\\u00");
        put(kHex[c >> 4]);
        put(kHex[c & 15]);
        ++p;
      } else if (c < 0x80) {
        put(static_cast<char>(c));
        ++p;
      } else {
        const int len = utf8_len(p);
        if (len == 0) {
          put("\\ufffd");
          ++p;
        } else {
          for (int i = 0; i < len; ++i) put(static_cast<char>(p[i]));
          p += len;
        }
      }
    }
    put('"');
  }
  bool ok() const { return error_ == 0; }
  int error() const { return error_; }
  void flush() {
    size_t off = 0;
    while (off < len_ && error_ == 0) {
      const ssize_t n = ::write(fd_, buf_ + off, len_ - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
      } else {
        off += static_cast<size_t>(n);
      }
    }
    len_ = 0;
  }

 private:
  // Length of a valid UTF-8 sequence at p, or 0.
  static int utf8_len(const unsigned char* p) {
    int len;
    uint32_t cp;
    if ((p[0] & 0xe0) == 0xc0) { len = 2; cp = p[0] & 0x1f; }
    else if ((p[0] & 0xf0) == 0xe0) { len = 3; cp = p[0] & 0x0f; }
    else if ((p[0] & 0xf8) == 0xf0) { len = 4; cp = p[0] & 0x07; }
    else return 0;
    for (int i = 1; i < len; ++i) {
      if ((p[i] & 0xc0) != 0x80) return 0;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
  }

  static char buf_[1 << 16];
  int fd_;
  size_t len_ = 0;
  int error_ = 0;
};
char Out::buf_[1 << 16];

void counters(Out& o, const Counter* c, int n) {
  o.put('[');
  for (int k = 0; k < n; ++k) {
    if (k) o.put(',');
    o.u64(get(c[k]));
  }
  o.put(']');
}

void write_thread(Out& o, const ThreadState& t, int nc, uint64_t now) {
  o.put("{\"index\":");
  o.u64(t.index());
  o.put(",\"tid\":");
  o.i64(t.tid());
  o.put(",\"exited\":");
  o.put(t.exited() ? "true" : "false");
  // Open frames: their nodes are incomplete; partial time up to the flush.
  const int depth = t.depth();
  o.put(",\"open\":[");
  bool first = true;
  for (int d = 0; d < depth; ++d) {
    const Frame& f = t.frame(d);
    if (f.node.load(std::memory_order_relaxed) < 0) continue;  // refused: no node
    if (!first) o.put(',');
    first = false;
    o.put("{\"node\":");
    o.i64(f.node.load(std::memory_order_relaxed));
    o.put(",\"elapsed_ns\":");
    const uint64_t t0 = f.t0.load(std::memory_order_relaxed);
    o.u64(ticks_to_ns(now > t0 ? now - t0 : 0));
    o.put('}');
  }
  o.put("],\"nodes\":[");
  const int32_t count = t.node_count();
  for (int32_t i = 0; i < count; ++i) {
    const Node& n = t.node(i);
    if (i) o.put(',');
    o.put("\n{\"id\":");
    o.i64(i);
    o.put(",\"parent\":");
    o.i64(n.parent);
    o.put(",\"region\":");
    o.u64(n.region);
    o.put(",\"calls\":");
    o.u64(get(n.calls));
    o.put(",\"incl_ns\":");
    o.u64(ticks_to_ns(get(n.incl_ticks)));
    o.put(",\"excl_ns\":");
    o.u64(ticks_to_ns(get(n.excl_ticks)));
    if (get(n.work_calls) > 0) {
      o.put(",\"work_calls\":");
      o.u64(get(n.work_calls));
      o.put(",\"work_flops\":");
      o.num(n.work_flops.load(std::memory_order_relaxed));
      o.put(",\"work_bytes\":");
      o.num(n.work_bytes.load(std::memory_order_relaxed));
    }
    if (nc > 0) {
      o.put(",\"incl\":");
      counters(o, n.incl, nc);
      o.put(",\"excl\":");
      counters(o, n.excl, nc);
    }
    o.put('}');
  }
  o.put("],\"errors\":[");
  const int errors = t.error_count();
  for (int i = 0; i < errors; ++i) {
    const ErrorRecord& e = t.error(i);
    if (i) o.put(',');
    o.put("{\"kind\":");
    o.str(error_kind_name(e.kind));
    o.put(",\"expected\":");
    o.u64(e.expected);
    o.put(",\"got\":");
    o.u64(e.got);
    o.put(",\"count\":");
    o.u64(get(e.count));
    o.put('}');
  }
  o.put("]}");
}

// Appends s to the path buffer; false when it would not fit.
bool append(char* buf, size_t cap, size_t* len, const char* s) {
  const size_t n = strlen(s);
  if (*len + n + 1 > cap) return false;
  memcpy(buf + *len, s, n + 1);
  *len += n;
  return true;
}

bool append_int(char* buf, size_t cap, size_t* len, int64_t v) {
  char tmp[24];
  int n = 0;
  const bool neg = v < 0;
  uint64_t u = neg ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  char out[26];
  int m = 0;
  if (neg) out[m++] = '-';
  while (n) out[m++] = tmp[--n];
  out[m] = '\0';
  return append(buf, cap, len, out);
}

}  // namespace

int write_raw_profile(const RawRunInfo& info, const ThreadState* threads) {
  // Outside a signal handler, no thread is folded while the states are read
  // (a handler cannot wait for the lock: it reads them as they are).
  std::unique_lock<std::mutex> folds(fold_mutex(), std::defer_lock);
  if (info.signal == 0) folds.lock();
  // <dir>/rprof-raw.<host>.<pid>[.r<rank>].json, via <name>.tmp
  char path[4096];
  size_t len = 0;
  bool fits = append(path, sizeof(path), &len, info.dir) &&
              append(path, sizeof(path), &len, "/rprof-raw.") &&
              append(path, sizeof(path), &len, info.host) &&
              append(path, sizeof(path), &len, ".") &&
              append_int(path, sizeof(path), &len, info.pid);
  if (fits && info.rank >= 0) {
    fits = append(path, sizeof(path), &len, ".r") &&
           append_int(path, sizeof(path), &len, info.rank);
  }
  fits = fits && append(path, sizeof(path), &len, ".json");
  char tmp[4096 + 8];
  size_t tlen = 0;
  fits = fits && append(tmp, sizeof(tmp), &tlen, path) &&
         append(tmp, sizeof(tmp), &tlen, ".tmp");
  if (!fits) return -ENAMETOOLONG;

  // A new file, never through a link: a symlink (or anything else) planted at
  // the temporary name is removed (unlink removes the link, not its target)
  // and the file created afresh; rename() then replaces, never follows, what
  // is at the final name.
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(tmp, kCreate, 0600);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp) == 0) fd = ::open(tmp, kCreate, 0600);
  if (fd < 0) return -errno;
  int err = 0;
  {
    Out o(fd);
    o.put("{\"format\":\"rprof-raw\",\"schema_version\":");
    o.u64(kRawSchemaVersion);
    o.put(",\"host\":");
    o.str(info.host);
    o.put(",\"pid\":");
    o.i64(info.pid);
    o.put(",\"parent_pid\":");
    o.i64(info.parent_pid);
    o.put(",\"rank\":");
    o.i64(info.rank);
    o.put(",\"world_size\":");
    o.i64(info.world_size);
    o.put(",\"backend\":");
    o.str(info.backend);
    o.put(",\"start_unix_s\":");
    o.i64(info.start_unix_s);
    o.put(",\"duration_ns\":");
    o.u64(ticks_to_ns(info.end_ticks - info.start_ticks));
    // Times above are ns converted from this clock's ticks; its rate says how
    // (and how exactly) they were measured.
    o.put(",\"clock\":{\"source\":");
    o.str(clock_source_name());
    o.put(",\"ticks_per_s\":");
    o.u64(g_clock.ticks_per_s);
    o.put('}');
    o.put(",\"reason\":");
    o.str(info.reason);
    o.put(",\"signal\":");
    o.i64(info.signal);
    o.put(",\"counters\":[");
    for (int k = 0; k < info.num_counters; ++k) {
      if (k) o.put(',');
      o.str(info.counter_names[k]);
    }
    o.put("],\"regions\":[");
    // The names the threads' nodes and errors use, not every name the
    // process knows (a forked child inherits all of its parent's).
    static uint64_t used[kMaxRegions / 64 + 1];
    std::memset(used, 0, sizeof(used));
    const auto use = [](uint32_t id) {
      if (id >= 1 && id <= kMaxRegions) used[id / 64] |= uint64_t{1} << (id % 64);
    };
    for (const ThreadState* t = threads; t != nullptr; t = t->next) {
      if (t->vacant()) continue;
      for (int32_t i = 0, n = t->node_count(); i < n; ++i) use(t->node(i).region);
      for (int i = 0, n = t->error_count(); i < n; ++i) {
        use(t->error(i).expected);
        use(t->error(i).got);
      }
    }
    const uint32_t regions = region_count();
    bool first_region = true;
    for (uint32_t id = 1; id <= regions; ++id) {
      if (((used[id / 64] >> (id % 64)) & 1) == 0) continue;
      if (!first_region) o.put(',');
      first_region = false;
      o.put("\n{\"id\":");
      o.u64(id);
      o.put(",\"name\":");
      o.str(region_name(id));
      o.put('}');
    }
    o.put("],\"threads\":[");
    bool first = true;
    for (const ThreadState* t = threads; t != nullptr; t = t->next) {
      if (t->vacant()) continue;  // released: its counts are in the folded state
      if (!first) o.put(',');
      first = false;
      o.put('\n');
      write_thread(o, *t, info.num_counters, info.end_ticks);
    }
    o.put("]}\n");
    o.flush();
    err = o.error();
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp, path) != 0) err = errno;
  if (err != 0) ::unlink(tmp);
  return -err;
}

}  // namespace rprof::runtime
