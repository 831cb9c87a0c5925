#include "tools/rprof/elf_needed.h"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace rprof {
namespace {

template <class T>
bool read_at(std::ifstream& in, uint64_t offset, T* out, size_t count = 1) {
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(sizeof(T) * count));
  return static_cast<bool>(in);
}

constexpr uint64_t kMaxSections = 1 << 16;
constexpr uint64_t kMaxDynamic = 1 << 20;  // bytes of .dynamic / .dynstr read

}  // namespace

std::vector<std::string> elf_needed(const std::string& path) {
  std::vector<std::string> needed;
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in || !read_at(in, 0, &eh)) return needed;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shnum > kMaxSections) {
    return needed;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(in, eh.e_shoff, sections.data(), sections.size())) return needed;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[s.sh_link];
    if (s.sh_size > kMaxDynamic || strtab.sh_size > kMaxDynamic || strtab.sh_size == 0) break;
    std::vector<Elf64_Dyn> dyn(s.sh_size / sizeof(Elf64_Dyn));
    std::string strings(strtab.sh_size, '\0');
    if (!read_at(in, s.sh_offset, dyn.data(), dyn.size()) ||
        !read_at(in, strtab.sh_offset, strings.data(), strings.size())) {
      break;
    }
    strings.back() = '\0';
    for (const Elf64_Dyn& d : dyn) {
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED && d.d_un.d_val < strings.size()) {
        needed.emplace_back(strings.c_str() + d.d_un.d_val);
      }
    }
    break;
  }
  return needed;
}

}  // namespace rprof
