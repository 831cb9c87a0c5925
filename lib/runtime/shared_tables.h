// The per-thread region tables in a file-backed shared mapping, so that
// nothing a process completed is lost however it ends (_exit, exec, any
// signal, SIGKILL included): the launcher reads the file after the process is
// gone (lib/profile/shared_tables_reader) when no final raw profile was
// written.
//
// One file per process image, <RPROF_TABLES_DIR>/rprof-tables.<pid>.<seq>
// (seq: 0, or the next free number after exec() kept the pid), created with
// O_CREAT|O_EXCL|O_NOFOLLOW in the launcher's private directory (0700). The
// file is a header followed by records appended by a bump allocator. The
// file grows in segments (ftruncate, then mmap of the new range at an address
// of its own; on the slow path only: a new thread, a new chunk of 64 nodes, a
// new region name), so the address space taken is what the tables hold and a
// process under RLIMIT_AS pays only that. The file stops growing at
// kMaxTablesBytes (what the reader accepts) or when a segment cannot be
// mapped: the header says so (incomplete, grow_errno) and later nodes stay on
// the heap, kept by the raw profile at exit. The begin/end hot path writes
// the mapped nodes and frames, no system call.
//
// A forked child's file starts empty (tables_after_fork): the forking
// thread's open regions are rebuilt in it, and a name the child inherited is
// written there the first time one of its nodes uses it.
//
// A thread's record and chunks are reused by a later thread once it ends
// (runtime/thread_state.h: what is folded, what is kept), so the file grows
// with the threads alive at once, not with every thread ever created.
//
// The reader trusts nothing: magic, version and every size are checked
// against this header's values, every record against the file's end.
#ifndef RPROF_RUNTIME_SHARED_TABLES_H_
#define RPROF_RUNTIME_SHARED_TABLES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/backend.h"
#include "runtime/thread_state.h"

namespace rprof::runtime {

inline constexpr char kTablesMagic[8] = {'R', 'P', 'R', 'O', 'F', 'T', 'B', '1'};
// Bump when the header, a record or Node/ThreadShared change.
inline constexpr uint32_t kTablesVersion = 2;
// Largest tables file: the runtime stops growing it here and the reader
// (lib/profile/shared_tables_reader) refuses anything larger (256 MiB:
// about 345,000 nodes of 776 bytes, 44 counters).
inline constexpr uint64_t kMaxTablesBytes = uint64_t{256} << 20;
inline constexpr uint32_t kRecordMagic = 0x52454331u;  // "REC1"
inline constexpr size_t kTablesNameBytes = 64;

enum class RawState : uint32_t {
  kNone = 0,      // no raw profile written by this image
  kFinal = 1,     // written at exit or on a fatal signal: it has everything
  kExplicit = 2,  // written by rprof_flush(); later work only in the tables
  kFailed = 3,    // the last write failed (raw_errno says why)
};

struct TablesHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;   // sizeof(TablesHeader)
  uint32_t node_size;     // sizeof(Node)
  uint32_t thread_size;   // sizeof(ThreadShared)
  uint32_t max_counters;  // kMaxCounters
  uint32_t max_depth;     // kMaxDepth
  uint32_t nodes_per_chunk;
  int32_t num_counters;
  int32_t pid;
  int32_t parent_pid;
  int32_t rank;
  int32_t world_size;
  uint32_t clock_tsc;       // 1: ticks are TSC, 0: CLOCK_MONOTONIC ns
  uint32_t pad0;
  uint64_t ticks_per_s;
  uint64_t start_ticks;
  uint64_t start_mono_ns;   // CLOCK_MONOTONIC at start (the launcher's clock)
  int64_t start_unix_s;
  std::atomic<uint64_t> used;       // bytes of the file holding records
  std::atomic<uint32_t> raw_state;  // RawState
  std::atomic<int32_t> raw_errno;   // errno of a failed raw write
  std::atomic<uint32_t> incomplete; // 1: a table could not be mapped (heap)
  std::atomic<int32_t> grow_errno;  // why: EFBIG at kMaxTablesBytes, ENOMEM (RLIMIT_AS)...
  char backend[kTablesNameBytes];
  char host[256];
  char counter_names[kMaxCounters][kTablesNameBytes];
};

enum class RecordType : uint32_t {
  kThread = 1,  // a = thread index; payload ThreadShared
  kChunk = 2,   // a = thread index, b = chunk number; payload Node[64]
  kName = 3,    // a = region id; payload the name's bytes (no terminator)
  kPad = 4,     // the unused tail of a segment; skipped
};

struct RecordHeader {
  uint32_t magic;  // kRecordMagic
  uint32_t type;   // RecordType
  uint32_t a;
  uint32_t b;
  uint64_t size;  // payload bytes; the next record starts at the next multiple of kRecordAlign
};

// Records start at multiples of 32, so a segment's unused tail is 0 or
// holds at least a record header (the pad).
inline constexpr size_t kRecordAlign = 32;
inline constexpr size_t record_span(uint64_t payload) {
  return (sizeof(RecordHeader) + payload + kRecordAlign - 1) / kRecordAlign * kRecordAlign;
}

struct TablesInfo {
  const char* host;
  const char* backend;
  const char* const* counter_names;
  int num_counters;
  int rank;
  int world_size;
  uint64_t start_ticks;
  int64_t start_unix_s;
};

// Creates this process's tables file in dir. False (and the runtime keeps
// its tables on the heap, as before) when it cannot.
bool tables_open(const char* dir, const TablesInfo& info);
// A zeroed payload of `size` bytes in the mapping, its record published; null
// when the tables are not open or cannot grow. Thread-safe; not signal-safe.
void* tables_alloc(RecordType type, uint32_t a, uint32_t b, size_t size);
// True when p lies in the mapping (storage not to be freed).
bool tables_owns(const void* p);
// The header, or null.
TablesHeader* tables_header();
// Bytes of the file (all of it mapped).
size_t tables_file_bytes();
// Around fork() (pthread_atfork, session.cpp). Before: the calling thread
// takes the tables' lock, so the child's copy of the allocator holds no half
// made record. In the parent after: the lock is released. In the child: a
// new file of its own, <dir>/rprof-tables.<pid>.<seq>, holding a header and
// nothing else whatever the parent's tables hold, so a fork costs the child a
// constant. The parent's mapping stays until tables_drop_parent(), so the
// forking thread's state can leave it (ThreadState::restart_after_fork);
// then it is unmapped, and the child never writes or reads the parent's
// file. Without a file of its own the child keeps its tables on the heap.
void tables_before_fork();
void tables_after_fork_parent();
void tables_after_fork(int parent_pid);
// True when p lies in the parent's mapping (in a child, until tables_drop_parent).
bool tables_parent_owns(const void* p);
void tables_drop_parent();
// The name record of a region just interned (runtime/region_table.cpp).
void tables_add_name(uint32_t id, const char* name, size_t len);
// A node or an error of this process uses region `id`: its name is written
// now if the file does not hold it yet (a name inherited at fork() goes into
// the child's file when the child first uses it). Not signal-safe.
void tables_need_name(uint32_t id);
// Records the outcome of a raw profile write.
void tables_note_raw(RawState state, int err);

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_SHARED_TABLES_H_
