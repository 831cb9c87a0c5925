#include "profile/shared_tables_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <tuple>

#include "common/error.h"
#include "runtime/region_table.h"
#include "runtime/shared_tables.h"

namespace rprof {
namespace {

using runtime::ErrorRecord;
using runtime::Frame;
using runtime::Node;
using runtime::RecordHeader;
using runtime::RecordType;
using runtime::TablesHeader;
using runtime::ThreadShared;

// The tables file, read through a window: the file can be as large as the
// regions it holds (about 1 KB a region path), and the reader converts it
// node by node, so it never holds the whole file beside what it made of it.
class Tables {
 public:
  explicit Tables(std::string file);
  ~Tables() { ::close(fd_); }
  Tables(const Tables&) = delete;
  Tables& operator=(const Tables&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(file_ + ": shared region tables: " + what);
  }
  size_t size() const { return size_; }
  // A value of type T at byte offset off, bounds-checked.
  template <class T>
  T at(size_t off) const {
    T v;
    std::memcpy(&v, span(off, sizeof(T), "field"), sizeof(T));
    return v;
  }
  // A NUL-terminated string in a fixed array.
  std::string str(size_t off, size_t cap, const char* field) const {
    const char* p = span(off, cap, field);
    const size_t n = strnlen(p, cap);
    if (n == cap) fail(std::string(field) + " is not terminated");
    return std::string(p, n);
  }
  std::string bytes(size_t off, size_t len) const {
    return std::string(span(off, len, "record"), len);
  }

 private:
  // A few node chunks (64 nodes of about 700 bytes each): sequential reads
  // refill it rarely, a jump (a thread's record, then its chunks) costs
  // little.
  static constexpr size_t kWindow = size_t{256} << 10;
  // The len bytes at off, valid until the next call.
  const char* span(size_t off, size_t len, const char* what) const {
    if (off > size_ || len > size_ - off) fail(std::string(what) + " beyond the end of the file");
    if (off < win_off_ || off + len > win_off_ + win_.size()) refill(off, len);
    return win_.data() + (off - win_off_);
  }
  void refill(size_t off, size_t len) const;

  std::string file_;
  int fd_ = -1;
  size_t size_ = 0;
  mutable std::string win_;
  mutable size_t win_off_ = 0;
};

Tables::Tables(std::string file) : file_(std::move(file)) {
  // Non-blocking: a FIFO planted under the name must not hang the launcher.
  fd_ = ::open(file_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw Error(file_ + ": cannot open: " + std::strerror(errno));
  struct stat st{};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(file_ + ": shared region tables: not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxTablesBytes) {
    ::close(fd_);
    throw Error(file_ + ": shared region tables: " + std::to_string(st.st_size) +
                " bytes, above the limit of " + std::to_string(kMaxTablesBytes) + " bytes");
  }
  size_ = static_cast<size_t>(st.st_size);
}

void Tables::refill(size_t off, size_t len) const {
  const size_t n = std::min(std::max(len, kWindow), size_ - off);
  win_.resize(n);
  win_off_ = off;
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, win_.data() + got, n - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      win_.clear();
      fail(r < 0 ? std::string("read failed: ") + std::strerror(errno)
                 : std::string("the file became shorter while it was read"));
    }
    got += static_cast<size_t>(r);
  }
}

// tps is at most 1e10 (checked), so the remainder's product fits 64 bits.
uint64_t ticks_to_ns(uint64_t ticks, uint64_t tps) {
  const uint64_t whole = ticks / tps;
  if (whole > UINT64_MAX / 1000000000u - 1) return UINT64_MAX;
  return whole * 1000000000u + (ticks % tps) * 1000000000u / tps;
}

}  // namespace

TablesImage read_shared_tables(const std::string& file, uint64_t now_mono_ns) {
  const Tables t(file);
  if (t.size() < sizeof(TablesHeader)) t.fail("shorter than its header");
  if (t.bytes(0, sizeof(runtime::kTablesMagic)) !=
      std::string_view(runtime::kTablesMagic, sizeof(runtime::kTablesMagic))) {
    t.fail("bad magic (not written completely, or a foreign file)");
  }
#define RPROF_H(field) t.at<decltype(TablesHeader::field)>(offsetof(TablesHeader, field))
  const uint32_t version = RPROF_H(version);
  if (version != runtime::kTablesVersion) {
    t.fail("version " + std::to_string(version) + " is not supported (this rprof reads " +
           std::to_string(runtime::kTablesVersion) + ")");
  }
  if (RPROF_H(header_size) != sizeof(TablesHeader) || RPROF_H(node_size) != sizeof(Node) ||
      RPROF_H(thread_size) != sizeof(ThreadShared) ||
      RPROF_H(max_counters) != static_cast<uint32_t>(kMaxCounters) ||
      RPROF_H(max_depth) != static_cast<uint32_t>(runtime::kMaxDepth) ||
      RPROF_H(nodes_per_chunk) != static_cast<uint32_t>(runtime::kNodesPerChunk)) {
    t.fail("layout sizes differ from this rprof's (a runtime from another build)");
  }
  const int32_t nc = RPROF_H(num_counters);
  if (nc < 0 || nc > kMaxCounters) t.fail("num_counters out of range");
  const uint64_t tps = RPROF_H(ticks_per_s);
  if (tps == 0 || tps > 10000000000ull) t.fail("ticks_per_s out of range");
  const uint64_t used = t.at<uint64_t>(offsetof(TablesHeader, used));
  if (used > t.size() || used < sizeof(TablesHeader)) t.fail("used size out of range");
  const uint64_t start_ticks = RPROF_H(start_ticks);
  const uint64_t start_mono = RPROF_H(start_mono_ns);

  TablesImage img;
  RawProfile& p = img.raw;
  p.file = file;
  p.schema_version = kRawSchemaVersion;
  p.host = t.str(offsetof(TablesHeader, host), sizeof(TablesHeader::host), "host");
  p.pid = RPROF_H(pid);
  p.parent_pid = RPROF_H(parent_pid);
  p.rank = RPROF_H(rank);
  p.world_size = RPROF_H(world_size);
  if (p.pid <= 0 || p.parent_pid < 0 || p.rank < -1 || p.world_size < -1 ||
      p.world_size > RPROF_MAX_WORLD_SIZE || (p.world_size >= 0 && p.rank >= p.world_size)) {
    t.fail("pid, rank or world size out of range");
  }
  p.backend = t.str(offsetof(TablesHeader, backend), runtime::kTablesNameBytes, "backend");
  p.start_unix_s = RPROF_H(start_unix_s);
  p.duration_ns = now_mono_ns > start_mono ? now_mono_ns - start_mono : 0;
  p.clock_source = RPROF_H(clock_tsc) != 0 ? "tsc" : "monotonic";
  p.clock_ticks_per_s = tps;
  p.reason = "tables";
  const uint32_t raw_state = t.at<uint32_t>(offsetof(TablesHeader, raw_state));
  if (raw_state > static_cast<uint32_t>(runtime::RawState::kFailed)) t.fail("raw_state out of range");
  img.raw_state = static_cast<runtime::RawState>(raw_state);
  img.raw_errno = t.at<int32_t>(offsetof(TablesHeader, raw_errno));
  img.incomplete = t.at<uint32_t>(offsetof(TablesHeader, incomplete)) != 0;
  img.grow_errno = t.at<int32_t>(offsetof(TablesHeader, grow_errno));
  for (int k = 0; k < nc; ++k) {
    p.counters.push_back(t.str(offsetof(TablesHeader, counter_names) +
                                   static_cast<size_t>(k) * runtime::kTablesNameBytes,
                               runtime::kTablesNameBytes, "counter name"));
  }
#undef RPROF_H

  // The records: threads, node chunks, names.
  std::map<uint32_t, size_t> threads;                         // index -> payload
  std::map<std::pair<uint32_t, uint32_t>, size_t> chunks;     // (thread, chunk) -> payload
  const size_t chunk_bytes = sizeof(Node) * runtime::kNodesPerChunk;
  const size_t first = (sizeof(TablesHeader) + runtime::kRecordAlign - 1) /
                       runtime::kRecordAlign * runtime::kRecordAlign;
  for (size_t off = first; off + sizeof(RecordHeader) <= used;) {
    const auto rec = t.at<RecordHeader>(off);
    if (rec.magic != runtime::kRecordMagic) t.fail("record at byte " + std::to_string(off) + " has a bad magic");
    const size_t payload = off + sizeof(RecordHeader);
    if (rec.size > used - payload) t.fail("record at byte " + std::to_string(off) + " runs past the end");
    switch (static_cast<RecordType>(rec.type)) {
      case RecordType::kThread:
        if (rec.size != sizeof(ThreadShared)) t.fail("thread record of the wrong size");
        if (!threads.emplace(rec.a, payload).second) {
          t.fail("thread index " + std::to_string(rec.a) + " repeated");
        }
        break;
      case RecordType::kChunk:
        if (rec.size != chunk_bytes) t.fail("node chunk of the wrong size");
        if (rec.b >= static_cast<uint32_t>(runtime::kMaxChunks) ||
            !chunks.emplace(std::pair{rec.a, rec.b}, payload).second) {
          t.fail("node chunk " + std::to_string(rec.b) + " out of range or repeated");
        }
        break;
      case RecordType::kPad:
        break;
      case RecordType::kName:
        if (rec.a == 0 || rec.a > runtime::kMaxRegions || rec.size > runtime::kMaxNameBytes) {
          t.fail("region name record out of range (id " + std::to_string(rec.a) + ")");
        }
        p.region_names[rec.a] = t.bytes(payload, rec.size);
        break;
      default:
        t.fail("unknown record type " + std::to_string(rec.type));
    }
    off += runtime::record_span(rec.size);
  }

  for (const auto& [index, base] : threads) {
    const uint32_t role = t.at<uint32_t>(base + offsetof(ThreadShared, role));
    if (role > static_cast<uint32_t>(runtime::ThreadRole::kFolded)) t.fail("thread role out of range");
    // A released state: its thread ended and was folded into the exited
    // threads' state; what it holds belongs to no thread.
    if (role == static_cast<uint32_t>(runtime::ThreadRole::kVacant)) continue;
    RawThread th;
    th.index = index;
    th.tid = t.at<int32_t>(base + offsetof(ThreadShared, tid));
    th.exited = t.at<uint32_t>(base + offsetof(ThreadShared, exited)) != 0;
    const int depth = t.at<int>(base + offsetof(ThreadShared, depth));
    int32_t count = t.at<int32_t>(base + offsetof(ThreadShared, nodes));
    const int errors = t.at<int>(base + offsetof(ThreadShared, errors));
    if (depth < 0 || depth > runtime::kMaxDepth) t.fail("thread depth out of range");
    if (count < 0 || count > runtime::kMaxChunks * runtime::kNodesPerChunk) {
      t.fail("thread node count out of range");
    }
    if (errors < 0 || errors > runtime::kMaxErrors) t.fail("thread error count out of range");
    th.nodes.reserve(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; ++i) {
      const auto c = chunks.find({index, static_cast<uint32_t>(i / runtime::kNodesPerChunk)});
      if (c == chunks.end()) {  // a chunk on the heap: the nodes stop here
        img.incomplete = true;
        count = i;
        break;
      }
      const size_t n = c->second + static_cast<size_t>(i % runtime::kNodesPerChunk) * sizeof(Node);
      RawNode node;
      node.region = t.at<uint32_t>(n + offsetof(Node, region));
      node.parent = t.at<int32_t>(n + offsetof(Node, parent));
      if (node.parent < -1 || node.parent >= i) t.fail("node parent out of range");
      if (!p.region_names.count(node.region)) {
        if (node.region == 0 || node.region > runtime::kMaxRegions) t.fail("node region out of range");
        p.region_names[node.region] = "region " + std::to_string(node.region);
      }
      node.calls = t.at<uint64_t>(n + offsetof(Node, calls));
      node.incl_ns = ticks_to_ns(t.at<uint64_t>(n + offsetof(Node, incl_ticks)), tps);
      node.excl_ns = ticks_to_ns(t.at<uint64_t>(n + offsetof(Node, excl_ticks)), tps);
      node.work_calls = t.at<uint64_t>(n + offsetof(Node, work_calls));
      node.work_flops = t.at<double>(n + offsetof(Node, work_flops));
      node.work_bytes = t.at<double>(n + offsetof(Node, work_bytes));
      if (!std::isfinite(node.work_flops) || node.work_flops < 0 ||
          !std::isfinite(node.work_bytes) || node.work_bytes < 0) {
        t.fail("node work not finite or negative");
      }
      node.work_flops = std::round(node.work_flops);  // as the raw writer rounds
      node.work_bytes = std::round(node.work_bytes);
      node.incl.reserve(static_cast<size_t>(nc));
      node.excl.reserve(static_cast<size_t>(nc));
      for (int k = 0; k < nc; ++k) {
        node.incl.push_back(t.at<uint64_t>(n + offsetof(Node, incl) + 8 * static_cast<size_t>(k)));
        node.excl.push_back(t.at<uint64_t>(n + offsetof(Node, excl) + 8 * static_cast<size_t>(k)));
      }
      th.nodes.push_back(std::move(node));
    }
    // Open frames: time from their start to when the launcher saw the end.
    const uint64_t elapsed_ns = p.duration_ns;
    for (int d = 0; d < depth; ++d) {
      const size_t f = base + offsetof(ThreadShared, frames) + static_cast<size_t>(d) * sizeof(Frame);
      const int32_t node = t.at<int32_t>(f + offsetof(Frame, node));
      const uint64_t t0 = t.at<uint64_t>(f + offsetof(Frame, t0));
      if (node < 0 || node >= count) continue;  // its chunk was lost
      const uint64_t since = t0 > start_ticks ? ticks_to_ns(t0 - start_ticks, tps) : 0;
      const uint64_t open_ns = elapsed_ns > since ? elapsed_ns - since : 0;
      RawNode& rn = th.nodes[static_cast<size_t>(node)];
      if (rn.open_calls == 0) {
        img.open.push_back({p.region_names[rn.region], static_cast<double>(open_ns) * 1e-9});
      }
      rn.open_calls += 1;
      rn.open_ns = std::max(rn.open_ns, open_ns);
    }
    for (int i = 0; i < errors; ++i) {
      const size_t e = base + offsetof(ThreadShared, error_records) +
                       static_cast<size_t>(i) * sizeof(ErrorRecord);
      const auto kind = t.at<uint8_t>(e + offsetof(ErrorRecord, kind));
      if (kind > static_cast<uint8_t>(runtime::ErrorKind::kThrottled)) {
        t.fail("error kind out of range");
      }
      RawError err;
      err.kind = runtime::error_kind_name(static_cast<runtime::ErrorKind>(kind));
      err.expected = t.at<uint32_t>(e + offsetof(ErrorRecord, expected));
      err.got = t.at<uint32_t>(e + offsetof(ErrorRecord, got));
      err.count = t.at<uint64_t>(e + offsetof(ErrorRecord, count));
      for (uint32_t id : {err.expected, err.got}) {
        if (id > runtime::kMaxRegions) t.fail("error region out of range");
      }
      th.errors.push_back(std::move(err));
    }
    p.threads.push_back(std::move(th));
  }
  return img;
}

std::vector<std::string> list_shared_tables(const std::string& dir) {
  std::vector<std::tuple<long, long, std::string>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    long pid = 0, seq = 0;
    char tail = 0;
    if (std::sscanf(name.c_str(), "rprof-tables.%ld.%ld%c", &pid, &seq, &tail) == 2) {
      found.emplace_back(pid, seq, e.path().string());
    }
  }
  if (ec) throw Error("cannot list " + dir + ": " + ec.message());
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (auto& f : found) files.push_back(std::get<2>(f));
  return files;
}

}  // namespace rprof
