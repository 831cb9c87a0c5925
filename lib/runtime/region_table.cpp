#include "runtime/region_table.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "runtime/shared_tables.h"

namespace rprof::runtime {
namespace {

constexpr uint32_t kSlots = 2 * kMaxRegions;  // load factor <= 0.5

struct Entry {
  const char* name;
  uint64_t hash;
};

std::atomic<uint32_t> g_slots[kSlots];
Entry g_entries[kMaxRegions + 1];
std::atomic<uint32_t> g_count{0};
std::mutex g_insert_mutex;

uint64_t hash_name(const char* name, size_t len) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < len; ++i) {
    h ^= static_cast<unsigned char>(name[i]);
    h *= 1099511628211ull;
  }
  return h;
}

bool same(const Entry& e, uint64_t hash, const char* name, size_t len) {
  return e.hash == hash && std::strncmp(e.name, name, len) == 0 &&
         e.name[len] == '\0';
}

}  // namespace

uint32_t intern_region(const char* name, InternResult* why) {
  InternResult ignored;
  if (why == nullptr) why = &ignored;
  *why = InternResult::kOk;
  const size_t len = strnlen(name, kMaxNameBytes + 1);
  if (len > kMaxNameBytes) {
    *why = InternResult::kTooLong;
    return 0;
  }
  if (std::strcmp(name, kReservedRegionName) == 0) {
    *why = InternResult::kReserved;
    return 0;
  }
  const uint64_t hash = hash_name(name, len);
  uint32_t slot = static_cast<uint32_t>(hash % kSlots);
  for (;;) {  // lock-free probe: ids are published with release
    const uint32_t id = g_slots[slot].load(std::memory_order_acquire);
    if (id == 0) break;
    if (same(g_entries[id], hash, name, len)) return id;
    slot = (slot + 1) % kSlots;
  }
  std::lock_guard<std::mutex> lock(g_insert_mutex);
  for (;;) {  // re-probe under the lock: another thread may have inserted it
    const uint32_t id = g_slots[slot].load(std::memory_order_acquire);
    if (id == 0) break;
    if (same(g_entries[id], hash, name, len)) return id;
    slot = (slot + 1) % kSlots;
  }
  const uint32_t id = g_count.load(std::memory_order_relaxed) + 1;
  char* copy = id > kMaxRegions ? nullptr : static_cast<char*>(std::malloc(len + 1));
  if (copy == nullptr) {
    *why = InternResult::kFull;
    return 0;
  }
  std::memcpy(copy, name, len);
  copy[len] = '\0';
  g_entries[id] = Entry{copy, hash};
  // The name also goes to the shared tables, so a reader after the process is
  // gone can name the nodes.
  tables_add_name(id, name, len);
  g_count.store(id, std::memory_order_release);
  g_slots[slot].store(id, std::memory_order_release);
  return id;
}

uint32_t find_region(const char* name) {
  const size_t len = strnlen(name, kMaxNameBytes + 1);
  if (len > kMaxNameBytes) return 0;
  const uint64_t hash = hash_name(name, len);
  for (uint32_t slot = static_cast<uint32_t>(hash % kSlots);; slot = (slot + 1) % kSlots) {
    const uint32_t id = g_slots[slot].load(std::memory_order_acquire);
    if (id == 0) return 0;
    if (same(g_entries[id], hash, name, len)) return id;
  }
}

const char* region_name(uint32_t id) {
  return (id >= 1 && id <= kMaxRegions) ? g_entries[id].name : "";
}

void region_table_after_fork() { new (&g_insert_mutex) std::mutex; }

uint32_t region_count() { return g_count.load(std::memory_order_acquire); }

}  // namespace rprof::runtime
