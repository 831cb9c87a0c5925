// rprof's one ELF64 reader (no libelf, no libbfd): the function symbols and
// loadable segments of a file, for attributing sampled addresses
// (lib/sampling), and the libraries it needs (DT_NEEDED), for detecting
// LIKWID/PAPI/OpenMP programs (tools/rprof). Files are read defensively:
// every offset and size is checked against the file, so a truncated or
// hostile file yields an error or fewer symbols, never a crash.
#ifndef RPROF_COMMON_ELF_FILE_H_
#define RPROF_COMMON_ELF_FILE_H_

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
  bool executable = false;  // PF_X: holds code
};

// An ELF note (SHT_NOTE sections): its owner ("GNU", "rprof"), type and
// descriptor bytes.
struct ElfNote {
  std::string owner;
  uint32_t type = 0;
  std::string desc;
};

class ElfFile {
 public:
  // Reads `path`. Returns nullopt with `error` set ("not an ELF file",
  // "truncated: ...") when the file cannot be used at all.
  static std::optional<ElfFile> load(const std::string& path, std::string* error);

  // The virtual address that file offset `offset` is loaded at (PT_LOAD).
  std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;
  // The function symbol covering `vaddr`, or nullptr.
  const ElfSymbol* lookup(uint64_t vaddr) const;

  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  // Its sections of code (SHF_EXECINSTR: .text, .plt, .init ...), as file
  // ranges and addresses; none without section headers. An executable
  // segment also holds read-only data where the linker did not separate
  // them (-z noseparate-code): these sections hold code only.
  const std::vector<ElfSegment>& code_sections() const { return code_sections_; }
  // ".symtab", ".dynsym" or "" (no function symbols).
  const std::string& table() const { return table_; }
  // The DT_NEEDED entries of its dynamic section, in order (none: static,
  // or no section headers).
  const std::vector<std::string>& needed() const { return needed_; }
  // The notes of its SHT_NOTE sections (each section read up to 4 MiB).
  const std::vector<ElfNote>& notes() const { return notes_; }
  // The first note of this owner and type, or nullptr.
  const ElfNote* note(const std::string& owner, uint32_t type) const;

 private:
  std::vector<ElfSymbol> symbols_;  // sorted by start, one per start address
  std::vector<ElfSegment> segments_;
  std::vector<ElfSegment> code_sections_;
  std::string table_;
  std::vector<std::string> needed_;
  std::vector<ElfNote> notes_;
};

// The libraries `path` needs (DT_NEEDED); empty for a file that is not a
// readable ELF64 file.
std::vector<std::string> elf_needed(const std::string& path);

}  // namespace rprof

#endif  // RPROF_COMMON_ELF_FILE_H_
