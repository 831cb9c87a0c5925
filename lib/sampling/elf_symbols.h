// The function symbols of one ELF64 file, for attributing sampled addresses:
// a small reader of our own (no libelf, no libbfd). Files are read
// defensively: every offset and size is checked against the file, so a
// truncated or hostile file yields an error or fewer symbols, never a crash.
#ifndef RPROF_SAMPLING_ELF_SYMBOLS_H_
#define RPROF_SAMPLING_ELF_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rprof {

struct ElfSymbol {
  uint64_t start = 0;  // st_value: the file-relative virtual address
  uint64_t size = 0;   // st_size, or up to the next symbol when that is 0
  std::string name;    // raw (mangled)
};

// A loadable segment: file bytes [offset, offset + file_size) are mapped at
// virtual address vaddr.
struct ElfSegment {
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t file_size = 0;
};

class ElfSymbols {
 public:
  // Reads `path`. Returns nullopt with `error` set ("not an ELF file",
  // "truncated: ...") when the file cannot be used at all.
  static std::optional<ElfSymbols> load(const std::string& path, std::string* error);

  // The virtual address that file offset `offset` is loaded at (PT_LOAD).
  std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;
  // The function symbol covering `vaddr`, or nullptr.
  const ElfSymbol* lookup(uint64_t vaddr) const;

  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  // ".symtab", ".dynsym" or "" (no function symbols).
  const std::string& table() const { return table_; }

 private:
  std::vector<ElfSymbol> symbols_;  // sorted by start, one per start address
  std::vector<ElfSegment> segments_;
  std::string table_;
};

}  // namespace rprof

#endif  // RPROF_SAMPLING_ELF_SYMBOLS_H_
