#include "sampling/sample_attribution.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "common/elf_file.h"

namespace rprof {
namespace {

// Kernel addresses (the upper half): never attributed to a function.
constexpr uint64_t kKernelStart = 0x8000000000000000ull;
// Code without a symbol is grouped by 4 KiB address range.
constexpr uint64_t kRangeMask = ~uint64_t{0xfff};

// "[vdso]", "[heap]" stay; anonymous memory (JIT code) is "[anon]".
std::string object_name(const std::string& filename) {
  if (filename.empty() || filename.rfind("//anon", 0) == 0) return "[anon]";
  if (filename[0] == '[' || filename[0] == '/') return filename;
  return "[anon]";
}

bool is_file(const std::string& object) { return !object.empty() && object[0] == '/'; }

}  // namespace

size_t SampleAttribution::VecHash::operator()(const std::vector<uint32_t>& v) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the 32-bit words
  for (const uint32_t x : v) h = (h ^ x) * 1099511628211ull;
  return static_cast<size_t>(h);
}

uint32_t SampleAttribution::intern_object(const std::string& name) {
  const auto [it, added] = object_index_.try_emplace(name, static_cast<uint32_t>(objects_.size()));
  if (added) objects_.push_back(name);
  return it->second;
}

void SampleAttribution::on_mmap(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
                                const std::string& filename) {
  if (len == 0 || addr > UINT64_MAX - len) return;
  auto& m = maps_[pid];
  const uint64_t end = addr + len;
  // A new mapping replaces what it covers.
  auto it = m.lower_bound(addr);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->second.addr + prev->second.len > addr) prev->second.len = addr - prev->second.addr;
  }
  while (it != m.end() && it->first < end) it = m.erase(it);
  m[addr] = Mapping{addr, len, pgoff, intern_object(object_name(filename))};
}

void SampleAttribution::on_fork(uint32_t pid, uint32_t ppid) {
  if (pid == ppid) return;
  const auto parent = maps_.find(ppid);
  if (parent != maps_.end()) {
    maps_[pid] = parent->second;
  } else {
    maps_.erase(pid);
  }
}

void SampleAttribution::on_exec(uint32_t pid) { maps_.erase(pid); }

uint32_t SampleAttribution::location(uint32_t pid, uint64_t ip) {
  if (ip >= kKernelStart) return kNone;
  const auto pm = maps_.find(pid);
  if (pm == maps_.end()) return kNone;
  auto it = pm->second.upper_bound(ip);
  if (it == pm->second.begin()) return kNone;
  const Mapping& m = std::prev(it)->second;
  if (ip - m.addr >= m.len) return kNone;
  // Files: the offset in the file; other objects are one bucket each.
  const uint64_t offset = is_file(objects_[m.object]) ? ip - m.addr + m.pgoff : 0;
  const auto key = std::make_pair(m.object, offset);
  const auto [li, added] =
      location_index_.try_emplace(key, static_cast<uint32_t>(locations_.size()));
  if (added) locations_.push_back(key);
  return li->second;
}

void SampleAttribution::on_sample(uint32_t pid, uint32_t tid, uint64_t ip, const uint64_t* chain,
                                  size_t chain_len, uint64_t period) {
  ++samples_;
  period_sum_ += period;
  const auto [ti, added] = thread_index_.try_emplace(std::make_pair(pid, tid),
                                                     static_cast<uint32_t>(thread_index_.size()));
  std::vector<uint32_t> key{ti->second, location(pid, ip)};
  if (chain_len > 1) multi_frame_ = true;
  // chain[0] is the sample's own address; the others are return addresses:
  // one byte back lands inside the call (a call that ends a function must
  // not count for the function after it).
  for (size_t i = 1; i < chain_len; ++i) {
    const uint32_t loc = location(pid, chain[i] - 1);
    if (loc != kNone) key.push_back(loc);
  }
  ++stacks_[std::move(key)];
}

FunctionTimes SampleAttribution::finish(uint64_t period_ns) const {
  FunctionTimes out;
  out.sampled = true;
  out.samples = samples_;
  out.lost = lost_;
  out.callchains = multi_frame_;
  out.threads = static_cast<unsigned>(thread_index_.size());
  const double period = samples_ > 0 && period_sum_ > 0
                            ? static_cast<double>(period_sum_) / static_cast<double>(samples_)
                            : static_cast<double>(period_ns);
  out.period_s = period * 1e-9;

  // Each object's symbols, read once.
  std::vector<std::optional<ElfFile>> elves(objects_.size());
  for (size_t o = 0; o < objects_.size(); ++o) {
    if (is_file(objects_[o])) elves[o] = ElfFile::load(objects_[o], nullptr);
  }
  // Each location's function.
  std::map<std::tuple<std::string, std::string, uint64_t>, uint32_t> fn_index;
  std::vector<uint32_t> fn_of(locations_.size());
  for (size_t l = 0; l < locations_.size(); ++l) {
    const auto& [object, offset] = locations_[l];
    std::string symbol;
    uint64_t start = 0;
    if (is_file(objects_[object])) {
      const std::optional<ElfFile>& elf = elves[object];
      const std::optional<uint64_t> va = elf ? elf->vaddr_of_offset(offset) : std::nullopt;
      const ElfSymbol* sym = va ? elf->lookup(*va) : nullptr;
      if (sym != nullptr) {
        symbol = sym->name;
        start = sym->start;
      } else {
        start = (va ? *va : offset) & kRangeMask;
      }
    }
    const auto [fi, added] = fn_index.try_emplace(std::make_tuple(objects_[object], symbol, start),
                                                  static_cast<uint32_t>(out.functions.size()));
    if (added) {
      FunctionTime f;
      f.object = objects_[object];
      f.symbol = symbol;
      f.start = start;
      out.functions.push_back(std::move(f));
    }
    fn_of[l] = fi->second;
  }

  std::vector<std::set<uint32_t>> threads(out.functions.size());
  std::vector<uint32_t> seen;
  for (const auto& [key, count] : stacks_) {
    seen.clear();
    if (key[1] != kNone) {
      const uint32_t self = fn_of[key[1]];
      out.functions[self].self_samples += count;
      seen.push_back(self);
    }
    for (size_t i = 2; i < key.size(); ++i) seen.push_back(fn_of[key[i]]);
    // Each function once per sample, however often it recurs in the chain.
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (const uint32_t f : seen) {
      out.functions[f].inclusive_samples += count;
      threads[f].insert(key[0]);
    }
  }
  for (size_t f = 0; f < out.functions.size(); ++f) {
    FunctionTime& fn = out.functions[f];
    if (!out.callchains) fn.inclusive_samples = 0;
    fn.self_s = static_cast<double>(fn.self_samples) * out.period_s;
    fn.inclusive_s = static_cast<double>(fn.inclusive_samples) * out.period_s;
    fn.threads = static_cast<unsigned>(threads[f].size());
  }
  // Functions only reached through addresses no sample counted are dropped.
  out.functions.erase(std::remove_if(out.functions.begin(), out.functions.end(),
                                     [](const FunctionTime& f) {
                                       return f.self_samples == 0 && f.inclusive_samples == 0;
                                     }),
                      out.functions.end());
  std::sort(out.functions.begin(), out.functions.end(),
            [](const FunctionTime& a, const FunctionTime& b) {
              return std::tie(b.self_samples, b.inclusive_samples, a.object, a.symbol, a.start) <
                     std::tie(a.self_samples, a.inclusive_samples, b.object, b.symbol, b.start);
            });
  return out;
}

}  // namespace rprof
