#include "common/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rprof {
namespace {

// Reads whole ranges of one file, refusing any range outside it.
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) {
      error_ = std::strerror(errno);
      return;
    }
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      size_ = static_cast<uint64_t>(st.st_size);
      return;
    }
    error_ = "not a regular file";
    close(fd_);
    fd_ = -1;
  }
  ~FileBytes() {
    if (fd_ >= 0) close(fd_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  uint64_t size() const { return size_; }
  bool fits(uint64_t off, uint64_t len) const { return off <= size_ && len <= size_ - off; }

  bool read(uint64_t off, uint64_t len, void* out) const {
    if (!fits(off, len)) return false;
    auto* p = static_cast<char*>(out);
    while (len > 0) {
      const ssize_t n = pread(fd_, p, len, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      off += static_cast<uint64_t>(n);
      len -= static_cast<uint64_t>(n);
    }
    return true;
  }
  bool read(uint64_t off, uint64_t len, std::vector<char>* out) const {
    if (!fits(off, len)) return false;
    out->resize(len);
    return len == 0 || read(off, len, out->data());
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string error_;
};

// Reads entry i of a table of `count` entries of `entsize` bytes at `off`
// into T (entsize may be larger than T: later ELF versions may grow it).
template <typename T>
bool read_entry(const std::vector<char>& table, uint64_t entsize, uint64_t i, T* out) {
  if (entsize < sizeof(T) || i >= table.size() / entsize) return false;
  std::memcpy(out, table.data() + i * entsize, sizeof(T));
  return true;
}

int binding_rank(unsigned char info) {
  switch (ELF64_ST_BIND(info)) {
    case STB_GLOBAL:
      return 0;
    case STB_WEAK:
      return 1;
    default:
      return 2;
  }
}

struct Candidate {
  ElfSymbol sym;
  int rank = 0;              // binding: global before weak before local
  uint64_t section_end = 0;  // end address of its section (0: unknown)
};

// The DT_NEEDED names of the first SHT_DYNAMIC section (its sh_link string
// table), at most kMaxDynamicBytes of each read.
template <typename Section>
std::vector<std::string> read_needed(const FileBytes& f, const Section& section) {
  constexpr uint64_t kMaxDynamicBytes = 1 << 20;
  std::vector<std::string> needed;
  Elf64_Shdr s{};
  for (uint64_t i = 0; section(i, &s); ++i) {
    if (s.sh_type != SHT_DYNAMIC) continue;
    Elf64_Shdr strtab{};
    std::vector<char> dyn, strs;
    if (!section(s.sh_link, &strtab) || s.sh_size > kMaxDynamicBytes ||
        strtab.sh_size > kMaxDynamicBytes || strtab.sh_size == 0 ||
        !f.read(s.sh_offset, s.sh_size, &dyn) || !f.read(strtab.sh_offset, strtab.sh_size, &strs)) {
      break;
    }
    Elf64_Dyn d{};
    for (uint64_t k = 0; read_entry(dyn, sizeof(Elf64_Dyn), k, &d); ++k) {
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED && d.d_un.d_val < strs.size()) {
        const char* name = strs.data() + d.d_un.d_val;
        needed.emplace_back(name, strnlen(name, strs.size() - d.d_un.d_val));
      }
    }
    break;
  }
  return needed;
}

// The notes of every SHT_NOTE section: entries of (namesz, descsz, type),
// the name and the descriptor, each padded to 4 bytes.
template <typename Section>
std::vector<ElfNote> read_notes(const FileBytes& f, const Section& section) {
  constexpr uint64_t kMaxNoteBytes = 4 << 20;  // rprof cc's calls notes: one per unit
  std::vector<ElfNote> notes;
  Elf64_Shdr s{};
  for (uint64_t i = 0; section(i, &s); ++i) {
    std::vector<char> bytes;
    if (s.sh_type != SHT_NOTE || s.sh_size > kMaxNoteBytes ||
        !f.read(s.sh_offset, s.sh_size, &bytes)) {
      continue;
    }
    auto pad4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
    uint64_t at = 0;
    while (at + 12 <= bytes.size()) {
      uint32_t hdr[3];
      std::memcpy(hdr, bytes.data() + at, sizeof(hdr));
      at += 12;
      const uint64_t name_end = at + pad4(hdr[0]);
      const uint64_t desc_end = name_end + pad4(hdr[1]);
      if (name_end > bytes.size() || desc_end > bytes.size() || at + hdr[0] > bytes.size() ||
          name_end + hdr[1] > bytes.size()) {
        break;
      }
      ElfNote n;
      const char* name = bytes.data() + at;
      n.owner.assign(name, strnlen(name, hdr[0]));
      n.type = hdr[2];
      n.desc.assign(bytes.data() + name_end, hdr[1]);
      notes.push_back(std::move(n));
      at = desc_end;
    }
  }
  return notes;
}

}  // namespace

const ElfNote* ElfFile::note(const std::string& owner, uint32_t type) const {
  for (const ElfNote& n : notes_) {
    if (n.owner == owner && n.type == type) return &n;
  }
  return nullptr;
}

std::vector<std::string> elf_needed(const std::string& path) {
  const std::optional<ElfFile> f = ElfFile::load(path, nullptr);
  return f ? f->needed() : std::vector<std::string>{};
}

std::optional<ElfFile> ElfFile::load(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<ElfFile> {
    if (error) *error = path + ": " + why;
    return std::nullopt;
  };
  const FileBytes f(path);
  if (!f.ok()) return fail("cannot open: " + f.error());
  Elf64_Ehdr eh{};
  if (!f.read(0, sizeof(eh), &eh)) return fail("not an ELF file (too short)");
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return fail("not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return fail("not a 64-bit ELF file");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return fail("not a little-endian ELF file");

  ElfFile out;
  // Program headers: the PT_LOAD segments map file offsets to addresses.
  std::vector<char> phdrs;
  if (eh.e_phnum > 0 &&
      f.read(eh.e_phoff, static_cast<uint64_t>(eh.e_phnum) * eh.e_phentsize, &phdrs)) {
    Elf64_Phdr ph{};
    for (uint64_t i = 0; read_entry(phdrs, eh.e_phentsize, i, &ph); ++i) {
      if (ph.p_type != PT_LOAD) continue;
      out.segments_.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz, (ph.p_flags & PF_X) != 0});
    }
  }

  // Section headers: .symtab (all functions) or else .dynsym (exported).
  std::vector<char> shdrs;
  uint64_t shnum = eh.e_shnum;
  Elf64_Shdr sh0{};
  if (eh.e_shoff != 0 && shnum == 0 && eh.e_shentsize >= sizeof(sh0) &&
      f.read(eh.e_shoff, sizeof(sh0), &sh0)) {
    shnum = sh0.sh_size;  // more than SHN_LORESERVE sections
  }
  if (eh.e_shoff == 0 || shnum == 0 || shnum > f.size() / std::max<uint64_t>(eh.e_shentsize, 1) ||
      !f.read(eh.e_shoff, shnum * eh.e_shentsize, &shdrs)) {
    return out;  // no sections (or unreadable ones): no symbols, still usable
  }
  auto section = [&](uint64_t i, Elf64_Shdr* s) { return read_entry(shdrs, eh.e_shentsize, i, s); };
  {
    Elf64_Shdr s{};
    for (uint64_t i = 0; section(i, &s); ++i) {
      if (s.sh_type == SHT_PROGBITS && (s.sh_flags & SHF_EXECINSTR) != 0 &&
          s.sh_offset <= f.size() && s.sh_size <= f.size() - s.sh_offset) {
        out.code_sections_.push_back({s.sh_offset, s.sh_addr, s.sh_size, true});
      }
    }
  }
  out.needed_ = read_needed(f, section);
  out.notes_ = read_notes(f, section);
  Elf64_Shdr symtab{};
  bool found = false;
  for (const unsigned type : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf64_Shdr s{};
    for (uint64_t i = 0; !found && section(i, &s); ++i) {
      if (s.sh_type == type && s.sh_entsize >= sizeof(Elf64_Sym)) {
        symtab = s;
        found = true;
        out.table_ = type == SHT_SYMTAB ? ".symtab" : ".dynsym";
      }
    }
    if (found) break;
  }
  Elf64_Shdr strtab{};
  std::vector<char> syms, strs;
  if (!found || !section(symtab.sh_link, &strtab) || strtab.sh_type != SHT_STRTAB ||
      !f.read(symtab.sh_offset, symtab.sh_size, &syms) ||
      !f.read(strtab.sh_offset, strtab.sh_size, &strs)) {
    out.table_.clear();
    return out;
  }

  std::vector<Candidate> cands;
  Elf64_Sym s{};
  for (uint64_t i = 0; read_entry(syms, symtab.sh_entsize, i, &s); ++i) {
    const unsigned type = ELF64_ST_TYPE(s.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    if (s.st_shndx == SHN_UNDEF || s.st_value == 0 || s.st_name >= strs.size()) continue;
    const char* name = strs.data() + s.st_name;
    const size_t len = strnlen(name, strs.size() - s.st_name);
    Candidate c;
    c.sym.start = s.st_value;
    c.sym.size = s.st_size;
    c.sym.name.assign(name, len);
    c.rank = binding_rank(s.st_info);
    Elf64_Shdr home{};
    if (s.st_shndx < SHN_LORESERVE && section(s.st_shndx, &home) && home.sh_addr <= s.st_value &&
        home.sh_size <= UINT64_MAX - home.sh_addr) {
      c.section_end = home.sh_addr + home.sh_size;
    }
    cands.push_back(std::move(c));
  }
  // One symbol per address: sized before unsized, global before weak before
  // local, then by name (deterministic).
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.sym.start != b.sym.start) return a.sym.start < b.sym.start;
    if ((a.sym.size == 0) != (b.sym.size == 0)) return a.sym.size != 0;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.sym.name < b.sym.name;
  });
  for (size_t i = 0; i < cands.size(); ++i) {
    if (i > 0 && cands[i].sym.start == cands[i - 1].sym.start) continue;
    ElfSymbol sym = cands[i].sym;
    if (sym.size == 0) {  // up to the next symbol, else to the end of its section
      size_t j = i + 1;
      while (j < cands.size() && cands[j].sym.start == sym.start) ++j;
      const uint64_t end = j < cands.size() ? cands[j].sym.start : cands[i].section_end;
      if (end > sym.start) sym.size = end - sym.start;
    }
    if (sym.size > UINT64_MAX - sym.start) sym.size = UINT64_MAX - sym.start;
    out.symbols_.push_back(std::move(sym));
  }
  return out;
}

std::optional<uint64_t> ElfFile::vaddr_of_offset(uint64_t offset) const {
  for (const ElfSegment& s : segments_) {
    if (offset >= s.offset && offset - s.offset < s.file_size) {
      return s.vaddr + (offset - s.offset);
    }
  }
  return std::nullopt;
}

const ElfSymbol* ElfFile::lookup(uint64_t vaddr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), vaddr,
                             [](uint64_t a, const ElfSymbol& s) { return a < s.start; });
  // The nearest symbol below, or one a little further below that encloses it
  // (a function with a nested local symbol, e.g. a cold part or an alias).
  for (int back = 0; back < 16 && it != symbols_.begin(); ++back) {
    --it;
    if (vaddr - it->start < it->size) return &*it;
  }
  return nullptr;
}

}  // namespace rprof
