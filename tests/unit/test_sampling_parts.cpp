// lib/sampling without the kernel: the ELF64 symbol reader (on real binaries,
// on a synthetic file and on truncated or corrupted ones), the attribution of
// scripted records, the ring buffer's wrap-around and the record decoder.
#include <elf.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sampling/cpu_clock_sampler.h"
#include "common/elf_file.h"
#include "sampling/perf_ring.h"
#include "sampling/sample_attribution.h"
#include "sampling/sampling_period.h"
#include "common/error.h"

namespace fs = std::filesystem;
using rprof::ElfFile;

extern "C" __attribute__((noinline, used)) int rprof_sampling_probe_fn(int x) { return x * 3 + 1; }

namespace rprof_probe {
__attribute__((noinline, used)) int cxx_probe(int x) { return x + 7; }
}  // namespace rprof_probe

namespace {

std::string scratch_dir() {
  std::string t = (fs::temp_directory_path() / "rprof-elf-XXXXXX").string();
  REQUIRE(mkdtemp(t.data()) != nullptr);
  return t;
}

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The mapped file and its file offset for an address of this process.
bool file_offset_of(const void* addr, std::string* path, uint64_t* offset) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto a = reinterpret_cast<uint64_t>(addr);
  while (std::getline(maps, line)) {
    std::istringstream ls(line);
    std::string range, perms, off, dev, inode, file;
    ls >> range >> perms >> off >> dev >> inode;
    // The path is the rest of the line: a checkout's path may hold spaces.
    std::getline(ls >> std::ws, file);
    const uint64_t lo = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    const uint64_t hi = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (a >= lo && a < hi) {
      *path = file;
      *offset = a - lo + std::stoull(off, nullptr, 16);
      return true;
    }
  }
  return false;
}

std::string symbol_at(const void* addr) {
  std::string path;
  uint64_t off = 0;
  REQUIRE(file_offset_of(addr, &path, &off));
  std::string err;
  const auto elf = ElfFile::load(path, &err);
  INFO(err);
  REQUIRE(elf.has_value());
  const auto va = elf->vaddr_of_offset(off);
  REQUIRE(va.has_value());
  const rprof::ElfSymbol* s = elf->lookup(*va);
  return s ? s->name : "";
}

// A small ELF64 file: one PT_LOAD (offset 0 at 0x400000), .text at file
// offset 0x1000 (address 0x401000, 0x100 bytes), and a .symtab.
constexpr uint64_t kBase = 0x400000, kText = 0x401000;

std::vector<char> synthetic_elf() {
  std::vector<char> f(0x1100, 0);
  std::string strtab(1, '\0');
  auto name = [&](const char* n) {
    const auto at = static_cast<uint32_t>(strtab.size());
    strtab += n;
    strtab += '\0';
    return at;
  };
  auto sym = [](uint32_t nm, unsigned bind, unsigned type, uint16_t shndx, uint64_t value,
                uint64_t size) {
    Elf64_Sym s{};
    s.st_name = nm;
    s.st_info = static_cast<unsigned char>(ELF64_ST_INFO(bind, type));
    s.st_shndx = shndx;
    s.st_value = value;
    s.st_size = size;
    return s;
  };
  std::vector<Elf64_Sym> syms = {
      Elf64_Sym{},
      sym(name("f_sized"), STB_GLOBAL, STT_FUNC, 3, kText, 0x10),
      sym(name("alias_local"), STB_LOCAL, STT_FUNC, 3, kText, 0x10),
      sym(name("f_zero"), STB_GLOBAL, STT_FUNC, 3, kText + 0x20, 0),
      sym(name("f_ifunc"), STB_GLOBAL, STT_GNU_IFUNC, 3, kText + 0x40, 8),
      sym(name("g_object"), STB_GLOBAL, STT_OBJECT, 3, kText + 0x60, 8),
      sym(name("f_last"), STB_WEAK, STT_FUNC, 3, kText + 0x80, 0),
      sym(name("f_undefined"), STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0, 0),
  };
  const uint64_t str_off = 0x200, sym_off = 0x300, sh_off = 0x600;
  std::memcpy(f.data() + str_off, strtab.data(), strtab.size());
  std::memcpy(f.data() + sym_off, syms.data(), syms.size() * sizeof(Elf64_Sym));
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_X86_64;
  eh.e_phoff = sizeof(eh);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  eh.e_shoff = sh_off;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 4;
  eh.e_ehsize = sizeof(eh);
  std::memcpy(f.data(), &eh, sizeof(eh));
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_offset = 0;
  ph.p_vaddr = kBase;
  ph.p_filesz = ph.p_memsz = f.size();
  std::memcpy(f.data() + sizeof(eh), &ph, sizeof(ph));
  Elf64_Shdr sh[4] = {};
  sh[1].sh_type = SHT_STRTAB;
  sh[1].sh_offset = str_off;
  sh[1].sh_size = strtab.size();
  sh[2].sh_type = SHT_SYMTAB;
  sh[2].sh_offset = sym_off;
  sh[2].sh_size = syms.size() * sizeof(Elf64_Sym);
  sh[2].sh_entsize = sizeof(Elf64_Sym);
  sh[2].sh_link = 1;
  sh[3].sh_type = SHT_PROGBITS;
  sh[3].sh_addr = kText;
  sh[3].sh_offset = 0x1000;
  sh[3].sh_size = 0x100;
  std::memcpy(f.data() + sh_off, sh, sizeof(sh));
  return f;
}

std::string name_at(const ElfFile& elf, uint64_t va) {
  const rprof::ElfSymbol* s = elf.lookup(va);
  return s ? s->name : "<none>";
}

}  // namespace

TEST_CASE("elf: this test's own functions are found by address (C and mangled C++)") {
  CHECK(symbol_at(reinterpret_cast<const void*>(&rprof_sampling_probe_fn)) ==
        "rprof_sampling_probe_fn");
  const std::string cxx = symbol_at(reinterpret_cast<const void*>(&rprof_probe::cxx_probe));
  CHECK(cxx.rfind("_Z", 0) == 0);  // raw: the report demangles
  CHECK(cxx.find("cxx_probe") != std::string::npos);
  // One byte inside the function is still the function.
  CHECK(symbol_at(reinterpret_cast<const char*>(&rprof_sampling_probe_fn) + 1) ==
        "rprof_sampling_probe_fn");
}

TEST_CASE("elf: a libc function is found (.symtab or .dynsym)") {
  const std::string name = symbol_at(reinterpret_cast<const void*>(&getppid));
  CHECK(name.find("getppid") != std::string::npos);
}

TEST_CASE("elf: synthetic file: sizes, size-0 symbols, IFUNC, aliases, gaps") {
  const std::string dir = scratch_dir();
  write_file(dir + "/a.elf", synthetic_elf());
  std::string err;
  const auto elf = ElfFile::load(dir + "/a.elf", &err);
  INFO(err);
  REQUIRE(elf.has_value());
  CHECK(elf->table() == ".symtab");
  CHECK(elf->vaddr_of_offset(0x1005) == kText + 5);
  CHECK_FALSE(elf->vaddr_of_offset(0x1100).has_value());
  CHECK(name_at(*elf, kText) == "f_sized");  // the global one of two at one address
  CHECK(name_at(*elf, kText + 0xf) == "f_sized");
  CHECK(name_at(*elf, kText + 0x10) == "<none>");  // between f_sized and f_zero
  CHECK(name_at(*elf, kText + 0x3f) == "f_zero");  // size 0: up to the next symbol
  CHECK(name_at(*elf, kText + 0x44) == "f_ifunc");
  CHECK(name_at(*elf, kText + 0x60) == "<none>");  // an object, not a function
  CHECK(name_at(*elf, kText + 0xff) == "f_last");  // size 0, last: to its section's end
  CHECK(name_at(*elf, kText + 0x100) == "<none>");
  CHECK(elf->symbols().size() == 4);
  fs::remove_all(dir);
}

TEST_CASE("elf: truncated files and files that are not ELF are refused or read in part") {
  const std::string dir = scratch_dir();
  const std::vector<char> whole = synthetic_elf();
  for (const size_t n :
       {size_t{0}, size_t{1}, size_t{16}, size_t{63}, size_t{64}, size_t{100}, size_t{0x250},
        size_t{0x320}, size_t{0x600}, size_t{0x6a0}, whole.size() - 1}) {
    INFO(n);
    write_file(dir + "/t.elf", std::vector<char>(whole.begin(), whole.begin() + n));
    std::string err;
    const auto elf = ElfFile::load(dir + "/t.elf", &err);
    if (n < sizeof(Elf64_Ehdr)) {
      CHECK_FALSE(elf.has_value());
      CHECK(err.find("not an ELF file (too short)") != std::string::npos);
    } else {
      REQUIRE(elf.has_value());
      // Section headers cut off: no symbols; all there: all of them.
      CHECK(elf->symbols().size() == (n >= 0x700 ? 4u : 0u));
      (void)elf->lookup(kText + 0x20);
    }
  }
  std::vector<char> text(4096, 'x');
  write_file(dir + "/t.txt", text);
  std::string err;
  CHECK_FALSE(ElfFile::load(dir + "/t.txt", &err).has_value());
  CHECK(err == dir + "/t.txt: not an ELF file");
  CHECK_FALSE(ElfFile::load(dir, &err).has_value());  // a directory
  CHECK(err.find("not a regular file") != std::string::npos);
  CHECK_FALSE(ElfFile::load(dir + "/missing", &err).has_value());
  CHECK(err.find("No such file") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("elf: hostile headers and random corruption never crash the reader") {
  const std::string dir = scratch_dir();
  const std::vector<char> good = synthetic_elf();
  auto load_with = [&](std::vector<char> bytes) {
    write_file(dir + "/h.elf", bytes);
    const auto elf = ElfFile::load(dir + "/h.elf", nullptr);
    if (elf) {
      for (uint64_t va = kText - 8; va < kText + 0x108; va += 4) (void)elf->lookup(va);
      (void)elf->vaddr_of_offset(0x1000);
    }
    return elf.has_value() ? elf->symbols().size() : size_t{999};
  };
  auto patch = [&](size_t at, auto value) {
    std::vector<char> b = good;
    std::memcpy(b.data() + at, &value, sizeof(value));
    return b;
  };
  const size_t sh2 = 0x600 + 2 * sizeof(Elf64_Shdr);  // the .symtab header
  CHECK(load_with(patch(offsetof(Elf64_Ehdr, e_shoff), uint64_t{0xfffffffffffffff0})) == 0);
  CHECK(load_with(patch(offsetof(Elf64_Ehdr, e_shnum), uint16_t{0xffff})) == 0);
  CHECK(load_with(patch(offsetof(Elf64_Ehdr, e_shentsize), uint16_t{1})) == 0);
  CHECK(load_with(patch(offsetof(Elf64_Ehdr, e_phoff), uint64_t{0xffffffffffffff00})) == 4);
  CHECK(load_with(patch(offsetof(Elf64_Ehdr, e_phentsize), uint16_t{0})) == 4);
  CHECK(load_with(patch(sh2 + offsetof(Elf64_Shdr, sh_size), uint64_t{1} << 62)) == 0);
  CHECK(load_with(patch(sh2 + offsetof(Elf64_Shdr, sh_offset), uint64_t{0x10ff})) == 0);
  CHECK(load_with(patch(sh2 + offsetof(Elf64_Shdr, sh_link), uint32_t{77})) == 0);
  CHECK(load_with(patch(sh2 + offsetof(Elf64_Shdr, sh_entsize), uint64_t{3})) == 0);
  // A name offset past the string table drops that symbol only.
  CHECK(load_with(patch(0x300 + 3 * sizeof(Elf64_Sym), uint32_t{0x7fffffff})) == 3);
  // Random bytes anywhere in the headers and tables (fixed seed).
  std::mt19937 rng(14);
  for (int round = 0; round < 500; ++round) {
    std::vector<char> b = good;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      const size_t at = rng() % 0x800;
      b[at] = static_cast<char>(rng());
    }
    (void)load_with(b);
  }
  fs::remove_all(dir);
}

TEST_CASE("attribution: scripted records: self, inclusive once per sample, threads, fork, exec") {
  const std::string dir = scratch_dir();
  const std::string path = dir + "/prog";
  write_file(path, synthetic_elf());
  rprof::SampleAttribution a;
  const uint64_t map = 0x7f0000000000;  // file offset 0 mapped here
  a.on_mmap(10, map, 0x2000, 0, path);
  a.on_mmap(10, 0x7fff0000, 0x1000, 0, "[vdso]");
  a.on_mmap(10, 0x60000000, 0x1000, 0, "//anon");
  const uint64_t in_sized = map + 0x1005, in_zero = map + 0x1030, in_ifunc = map + 0x1044;
  // f_zero called from f_sized (recursively, twice) called from f_ifunc.
  const uint64_t chain[] = {in_zero, in_sized + 1, in_sized + 1, in_ifunc + 1};
  for (int i = 0; i < 5; ++i) a.on_sample(10, 10, in_zero, chain, 4, 1000000);
  for (int i = 0; i < 3; ++i) a.on_sample(10, 11, in_zero, chain, 4, 1000000);  // a second thread
  a.on_sample(10, 10, map + 0x1012, nullptr, 0, 1000000);        // no symbol: a range
  a.on_sample(10, 10, 0x7fff0010, nullptr, 0, 1000000);          // [vdso]
  a.on_sample(10, 10, 0x60000100, nullptr, 0, 1000000);          // JIT code
  a.on_sample(10, 10, 0x1234, nullptr, 0, 1000000);              // nothing mapped there
  a.on_sample(10, 10, 0xffffffff81000000, nullptr, 0, 1000000);  // the kernel
  a.on_fork(20, 10);  // a forked child has its parent's mappings
  a.on_sample(20, 20, in_sized, nullptr, 0, 1000000);
  a.on_exec(20);  // ... until it execs
  a.on_sample(20, 20, in_sized, nullptr, 0, 1000000);
  a.on_lost(2);
  const rprof::FunctionTimes t = a.finish(1000000);
  CHECK(t.sampled);
  CHECK(t.samples == 15);
  CHECK(t.lost == 2);
  CHECK(t.callchains);
  CHECK(t.period_s == Approx(1e-3));
  CHECK(t.threads == 3u);  // every thread with a sample: 10/10, 10/11 and 20/20
  auto get = [&](const std::string& object, const std::string& symbol) {
    for (const rprof::FunctionTime& f : t.functions) {
      if (f.object == object && f.symbol == symbol) return f;
    }
    FAIL("no function " << object << " " << symbol);
    return rprof::FunctionTime{};
  };
  const rprof::FunctionTime zero = get(path, "f_zero");
  CHECK(zero.start == kText + 0x20);
  CHECK(zero.self_samples == 8);
  CHECK(zero.inclusive_samples == 8);
  CHECK(zero.threads == 2u);
  CHECK(zero.self_s == Approx(8e-3));
  const rprof::FunctionTime sized = get(path, "f_sized");
  CHECK(sized.self_samples == 1);       // the forked child, before its exec
  CHECK(sized.inclusive_samples == 9);  // recursion counted once per sample
  CHECK(get(path, "f_ifunc").inclusive_samples == 8);
  CHECK(get(path, "f_ifunc").self_samples == 0);
  const rprof::FunctionTime range = get(path, "");
  CHECK(range.start == kText);  // the 4 KiB range, file-relative address
  CHECK(range.self_samples == 1);
  CHECK(get("[vdso]", "").self_samples == 1);
  CHECK(get("[anon]", "").self_samples == 1);
  CHECK(t.functions.front().symbol == "f_zero");  // most self samples first
  uint64_t attributed = 0;
  for (const rprof::FunctionTime& f : t.functions) attributed += f.self_samples;
  CHECK(attributed == 12);  // unmapped, kernel, after exec: counted, unattributed
  fs::remove_all(dir);
}

TEST_CASE("attribution: without call chains, inclusive counts are 0") {
  const std::string dir = scratch_dir();
  write_file(dir + "/prog", synthetic_elf());
  rprof::SampleAttribution a;
  a.on_mmap(1, 0x10000, 0x2000, 0, dir + "/prog");
  const uint64_t ip = 0x10000 + 0x1005;
  for (int i = 0; i < 4; ++i) a.on_sample(1, 1, ip, &ip, 1, 250000);
  const rprof::FunctionTimes t = a.finish(1000000);
  CHECK_FALSE(t.callchains);
  REQUIRE(t.functions.size() == 1);
  CHECK(t.functions[0].self_samples == 4);
  CHECK(t.functions[0].inclusive_samples == 0);
  CHECK(t.period_s == Approx(250e-6));  // the samples' own period
  fs::remove_all(dir);
}

TEST_CASE("ring buffer: records that wrap around the end are read whole, in order") {
  alignas(8) static perf_event_mmap_page meta;
  std::memset(&meta, 0, sizeof(meta));
  std::vector<char> data(64, 0);
  auto put = [&](uint64_t pos, uint32_t type, uint16_t size, char fill) {
    std::vector<char> rec(size, fill);
    perf_event_header h{type, 0, size};
    std::memcpy(rec.data(), &h, sizeof(h));
    for (uint16_t i = 0; i < size; ++i) data[(pos + i) % data.size()] = rec[i];
  };
  put(48, 1, 24, 'a');  // bytes 48..63 then 0..7
  put(72, 2, 16, 'b');
  meta.data_tail = 48;
  meta.data_head = 88;
  std::vector<std::string> seen;
  rprof::drain_ring(&meta, data.data(), data.size(), [&](const char* rec, size_t size) {
    seen.emplace_back(rec + sizeof(perf_event_header), size - sizeof(perf_event_header));
  });
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::string(16, 'a'));
  CHECK(seen[1] == std::string(8, 'b'));
  CHECK(meta.data_tail == 88);
  // A record claiming more than was written ends the reading; the space is freed.
  put(88, 1, 8, 'c');
  data[(88 + 6) % 64] = 64;  // size 64 > head - tail
  meta.data_head = 96;
  seen.clear();
  rprof::drain_ring(&meta, data.data(), data.size(),
                    [&](const char*, size_t) { seen.emplace_back(); });
  CHECK(seen.empty());
  CHECK(meta.data_tail == 96);
}

TEST_CASE("records: samples, mmap2, exec, fork and lost are decoded") {
  auto record = [](uint32_t type, uint16_t misc, const std::vector<uint64_t>& words,
                   const std::string& tail = "") {
    std::vector<char> r(sizeof(perf_event_header) + 8 * words.size() + tail.size());
    perf_event_header h{type, misc, static_cast<uint16_t>(r.size())};
    std::memcpy(r.data(), &h, sizeof(h));
    std::memcpy(r.data() + sizeof(h), words.data(), 8 * words.size());
    std::memcpy(r.data() + sizeof(h) + 8 * words.size(), tail.data(), tail.size());
    return r;
  };
  auto pid_tid = [](uint32_t pid, uint32_t tid) { return uint64_t{tid} << 32 | pid; };
  rprof::SamplerRecord r;
  uint64_t lost = 0;
  const auto sample =
      record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
             {0x401000, pid_tid(7, 8), 5000, 1000000, 4, static_cast<uint64_t>(PERF_CONTEXT_USER),
              0x401000, 0x402000, 0x403000});
  REQUIRE(rprof::decode_sampler_record(sample.data(), sample.size(), &r, &lost));
  CHECK(r.addr == 0x401000);
  CHECK(r.pid == 7);
  CHECK(r.tid == 8);
  CHECK(r.time == 5000);
  CHECK(r.period == 1000000);
  CHECK(r.user);
  CHECK(r.chain == std::vector<uint64_t>{0x401000, 0x402000, 0x403000});
  // A chain that claims more entries than the record holds is refused.
  auto bad = sample;
  const uint64_t many = 1000;
  std::memcpy(bad.data() + sizeof(perf_event_header) + 32, &many, 8);
  CHECK_FALSE(rprof::decode_sampler_record(bad.data(), bad.size(), &r, &lost));
  // MMAP2: pid/tid, addr, len, pgoff, 3 words of inode, prot/flags, name,
  // then sample_id (pid/tid, time).
  std::string name("/usr/lib/libfoo.so\0\0\0\0\0\0", 24);
  const uint64_t id = pid_tid(7, 7);
  name += std::string(reinterpret_cast<const char*>(&id), 8);
  const uint64_t t = 6000;
  name += std::string(reinterpret_cast<const char*>(&t), 8);
  const auto mmap2 =
      record(PERF_RECORD_MMAP2, 0, {pid_tid(7, 7), 0x7f0000, 0x3000, 0x1000, 0, 0, 0, 5}, name);
  REQUIRE(rprof::decode_sampler_record(mmap2.data(), mmap2.size(), &r, &lost));
  CHECK(r.type == PERF_RECORD_MMAP);
  CHECK(r.pid == 7);
  CHECK(r.addr == 0x7f0000);
  CHECK(r.len == 0x3000);
  CHECK(r.pgoff == 0x1000);
  CHECK(r.name == "/usr/lib/libfoo.so");
  CHECK(r.time == 6000);
  const auto comm = record(PERF_RECORD_COMM, 1 << 13, {pid_tid(9, 9), 0x707061, pid_tid(9, 9), 7});
  REQUIRE(rprof::decode_sampler_record(comm.data(), comm.size(), &r, &lost));
  CHECK(r.pid == 9);
  CHECK(r.time == 7);
  const auto rename = record(PERF_RECORD_COMM, 0, {pid_tid(9, 9), 0x707061, pid_tid(9, 9), 7});
  CHECK_FALSE(rprof::decode_sampler_record(rename.data(), rename.size(), &r, &lost));
  const auto fork =
      record(PERF_RECORD_FORK, 0, {pid_tid(12, 10), pid_tid(12, 10), 8, pid_tid(12, 12), 8});
  REQUIRE(rprof::decode_sampler_record(fork.data(), fork.size(), &r, &lost));
  CHECK(r.pid == 12);
  CHECK(r.tid == 10);  // the parent
  const auto lost_rec = record(PERF_RECORD_LOST, 0, {1, 42, pid_tid(1, 1), 9});
  CHECK_FALSE(rprof::decode_sampler_record(lost_rec.data(), lost_rec.size(), &r, &lost));
  CHECK(lost == 42);
  const auto tiny = record(PERF_RECORD_MMAP2, 0, {1});
  CHECK_FALSE(rprof::decode_sampler_record(tiny.data(), tiny.size(), &r, &lost));
}

TEST_CASE("sample period (--sample-period): times and rates, validated with one-line errors") {
  using namespace rprof;
  CHECK(parse_sample_period("250us") == 250000);
  CHECK(parse_sample_period("1ms") == 1000000);
  CHECK(parse_sample_period("0.5ms") == 500000);
  CHECK(parse_sample_period("100000ns") == 100000);
  CHECK(parse_sample_period("1s") == 1000000000);
  CHECK(parse_sample_period("4kHz") == 250000);
  CHECK(parse_sample_period("1000Hz") == 1000000);
  // The default gives a 50 ms function at least 200 samples.
  CHECK(50000000 / kSamplingPeriodNs >= 200);
  for (const char* bad : {"", "250", "abc", "-1ms", "5us", "2s", "0Hz", "1 ms", "1min", "inf"}) {
    INFO(bad);
    try {
      parse_sample_period(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.exit_code() == 2);
      const std::string what = e.what();
      CHECK(what.rfind(std::string("--sample-period=") + bad + ": ", 0) == 0);
      CHECK(what.find('\n') == std::string::npos);
      CHECK_THAT(what, Catch::Contains("from 10 us to 1 s"));
    }
  }
}

TEST_CASE("sample period (--sample-period): the kernel's maximum sample rate raises the period, with a note") {
  using namespace rprof;
  const GrantedPeriod asked = grant_sample_period(250000, 100000);
  CHECK(asked.period_ns == 250000);
  CHECK(asked.note.empty());
  const GrantedPeriod unknown = grant_sample_period(20000, 0);
  CHECK(unknown.period_ns == 20000);
  // A kernel lowered to 1000 Hz: 1 ms, and the note says why.
  const GrantedPeriod low = grant_sample_period(250000, 1000);
  CHECK(low.period_ns == 1000000);
  CHECK_THAT(low.note, Catch::Contains("sampling period 1 ms instead of the 250 us asked for"));
  CHECK_THAT(low.note, Catch::Contains("kernel.perf_event_max_sample_rate is 1000 Hz"));
}
