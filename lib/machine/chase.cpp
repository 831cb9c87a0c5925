#include "machine/chase.h"

#include <random>
#include <vector>

namespace rprof {

void build_chase(void* buf, size_t bytes, size_t line_bytes, uint64_t seed) {
  const size_t n = bytes / line_bytes;
  if (n == 0) return;
  auto* base = static_cast<char*>(buf);
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  // Sattolo: swapping with j < i (never i itself) yields a single cycle.
  std::mt19937_64 rng(seed);
  for (size_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  // order is a permutation with one cycle: line i points to line order[i].
  for (size_t i = 0; i < n; ++i) {
    *reinterpret_cast<void**>(base + i * line_bytes) = base + size_t{order[i]} * line_bytes;
  }
}

void* run_chase(void* start, uint64_t steps) {
  void* p = start;
  uint64_t i = 0;
  for (; i + 8 <= steps; i += 8) {
    p = *static_cast<void**>(p); p = *static_cast<void**>(p);
    p = *static_cast<void**>(p); p = *static_cast<void**>(p);
    p = *static_cast<void**>(p); p = *static_cast<void**>(p);
    p = *static_cast<void**>(p); p = *static_cast<void**>(p);
  }
  for (; i < steps; ++i) p = *static_cast<void**>(p);
  return p;
}

uint64_t run_add_chain(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    // asm keeps the adds dependent and unmerged (the compiler would fold them).
    asm volatile(
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
        : "+r"(x));
  }
  return x;
}

}  // namespace rprof
