#include "backends/sim/avx512_scan.h"

#include <fmt/format.h>

#include <fstream>
#include <vector>

#include "common/elf_file.h"

namespace rprof {
namespace {

// Bytes of code read per section at most.
constexpr uint64_t kMaxScanBytes = 256ull << 20;

// The length of the ModRM-addressed part from the ModRM byte at p[0]
// (ModRM, SIB, displacement), or 0 when it runs past `end`.
size_t modrm_length(const uint8_t* p, const uint8_t* end) {
  if (p >= end) return 0;
  const uint8_t modrm = p[0];
  const int mod = modrm >> 6, rm = modrm & 7;
  size_t n = 1;
  if (mod != 3 && rm == 4) {
    if (p + 1 >= end) return 0;
    const int base = p[1] & 7;
    ++n;
    if (mod == 0 && base == 5) n += 4;
  }
  if (mod == 1) n += 1;
  if (mod == 2) n += 4;
  if (mod == 0 && rm == 5) n += 4;  // RIP-relative
  return p + n <= end ? n : 0;
}

// Map 1 (0F) opcodes with an 8-bit immediate; map 3 (0F3A) has one always.
bool map1_imm8(uint8_t op) {
  return (op >= 0x70 && op <= 0x73) || op == 0xC2 || (op >= 0xC4 && op <= 0xC6);
}

size_t rest_length(int map, const uint8_t* op, const uint8_t* end) {
  if (op >= end) return 0;
  if (map == 1 && *op == 0x77) return 1;  // vzeroupper, vzeroall: no ModRM
  const size_t m = modrm_length(op + 1, end);
  if (m == 0) return 0;
  const size_t imm = map == 3 || (map == 1 && map1_imm8(*op)) ? 1 : 0;
  return op + 1 + m + imm <= end ? 1 + m + imm : 0;
}

// The length of the EVEX instruction at p, or 0 when its prefix is not one:
// P0's reserved bits 0 and a map of 1-3, P1's fixed bit 1; in P2 a vector
// length of 11 only with embedded rounding (b, register operands), zeroing
// (z) only under a mask (aaa != 0). The last two turn away the 0x62 inside
// AVX2 code (vpunpckldq's opcode) followed by VEX instructions.
size_t evex_length(const uint8_t* p, const uint8_t* end) {
  if (end - p < 6 || p[0] != 0x62) return 0;
  const uint8_t p0 = p[1], p1 = p[2], p2 = p[3];
  const int map = p0 & 3;
  if ((p0 & 0x0C) != 0 || map == 0 || (p1 & 0x04) == 0) return 0;
  const bool z = (p2 & 0x80) != 0, b = (p2 & 0x10) != 0;
  const int ll = (p2 >> 5) & 3, aaa = p2 & 7, mod = p[5] >> 6;
  if (ll == 3 && !(b && mod == 3)) return 0;
  if (z && aaa == 0) return 0;
  const size_t rest = rest_length(map, p + 4, end);
  return rest == 0 ? 0 : 4 + rest;
}

// The length of the VEX instruction at p (2- or 3-byte prefix), or 0.
size_t vex_length(const uint8_t* p, const uint8_t* end) {
  if (end - p < 4) return 0;
  if (p[0] == 0xC5) {
    const size_t rest = rest_length(1, p + 2, end);
    return rest == 0 ? 0 : 2 + rest;
  }
  if (p[0] == 0xC4) {
    const int map = p[1] & 0x1F;
    if (map < 1 || map > 3) return 0;
    const size_t rest = rest_length(map, p + 3, end);
    return rest == 0 ? 0 : 3 + rest;
  }
  return 0;
}

}  // namespace

int64_t find_avx512_run(const uint8_t* code, size_t size) {
  const uint8_t* end = code + size;
  for (const uint8_t* p = code; p + 6 <= end; ++p) {
    if (*p != 0x62) continue;
    size_t len = evex_length(p, end);
    if (len == 0) continue;
    const uint8_t* q = p + len;
    int run = 1, evex = 1;
    while (run < kAvx512RunLength) {
      size_t next = evex_length(q, end);
      evex += next != 0;
      if (next == 0) next = vex_length(q, end);
      if (next == 0) break;
      q += next;
      ++run;
    }
    if (run >= kAvx512RunLength && evex >= kAvx512MinEvex) return p - code;
  }
  return -1;
}

std::string avx512_code_in(const std::string& path) {
  const std::optional<ElfFile> elf = ElfFile::load(path, nullptr);
  if (!elf) return "";
  std::ifstream in(path, std::ios::binary);
  // Sections of code where the file has them, else its executable segments.
  std::vector<ElfSegment> code = elf->code_sections();
  if (code.empty()) {
    for (const ElfSegment& s : elf->segments()) {
      if (s.executable) code.push_back(s);
    }
  }
  for (const ElfSegment& s : code) {
    if (s.file_size == 0) continue;
    std::vector<uint8_t> bytes(static_cast<size_t>(std::min(s.file_size, kMaxScanBytes)));
    in.clear();
    in.seekg(static_cast<std::streamoff>(s.offset));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<size_t>(in.gcount()));
    const int64_t at = find_avx512_run(bytes.data(), bytes.size());
    if (at >= 0) return fmt::format("{:#x}", s.vaddr + static_cast<uint64_t>(at));
  }
  return "";
}

}  // namespace rprof
