// The inst backend's cache simulation (inst_sample.h).
#include "backends/inst/inst_sample.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backends/inst/inst_counters.h"

namespace {
// The LLC is shared by the program's threads: a spin lock around each of its
// operations (held for one set's lookup).
std::atomic_flag g_llc_lock = ATOMIC_FLAG_INIT;
inline void llc_lock() {
  while (g_llc_lock.test_and_set(std::memory_order_acquire)) {
  }
}
inline void llc_unlock() { g_llc_lock.clear(std::memory_order_release); }
// Around fork(): the lock is taken before it (so no thread is inside an LLC
// operation: the child's copy is whole) and released on both sides; a child
// would otherwise inherit a lock held by a thread it does not have, and spin
// for ever at its first LLC lookup.
void llc_before_fork() { llc_lock(); }
void llc_after_fork() { llc_unlock(); }
}  // namespace

#define RPC_LLC_BEGIN() llc_lock()
#define RPC_LLC_END() llc_unlock()
#include "common/cache_model.h"

namespace rprof {
namespace inst {
namespace {

constexpr double kSqUnit = 64.0;  // squares in 64-byte units

const char* const kSampledNames[] = {
    "sample.units",      "sample.l1",         "sample.l1.sq",      "sample.l2.read",
    "sample.l2.write",   "sample.l2.sq",      "sample.l2.xy",      "sample.llc.read",
    "sample.llc.write",  "sample.llc.sq",     "sample.llc.xy",     "sample.dram.read",
    "sample.dram.write", "sample.dram.sq",    "sample.dram.xy",    "sample.l1.all"};
constexpr int kSampledCount = sizeof(kSampledNames) / sizeof(kSampledNames[0]);
const char* const kFullNames[] = {"bytes.l2.read",  "bytes.l2.write",  "bytes.llc.read",
                                  "bytes.llc.write", "bytes.dram.read", "bytes.dram.write"};
constexpr int kFullCount = RPC_NCOUNTS;
static_assert(kSampledCount == kSampledCounters && kFullCount == kFullCounters,
              "inst_sample.h's counter numbers");

bool parse_u64(const char* s, const char** end, uint64_t* v) {
  char* e = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(s, &e, 10);
  if (e == s || errno != 0 || *s == '-') return false;
  *v = x;
  *end = e;
  return true;
}

struct Settings {
  SampleSettings s;
  bool ok = false;
  RpcGeometry geom[3] = {};  // the caches simulated (1/F of the sets when sampled)
  unsigned line_shift = 6;
  unsigned sets_shift = 0;  // log2(F)
  unsigned long long mask = 0, sel = 1;  // the program's filter (inst_counters.h)
};

Settings& settings() {
  static Settings g;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    g.ok = parse_sample_settings(std::getenv(kSampleEnv), std::getenv(kCachesEnv), &g.s, &why);
    if (!g.ok) g.s.mode = SampleSettings::kOff;
    const uint64_t f = g.s.mode == SampleSettings::kSampled ? g.s.sets : 1;
    // 1/F of each level's sets (rounded down where F does not divide them:
    // then the small cache approximates the restriction, see inst_sample.h).
    for (int i = 0; i < 3; ++i) {
      const uint64_t set_bytes = uint64_t{g.s.ways[i]} * g.s.line[i];
      const uint64_t sets = set_bytes ? g.s.size[i] / set_bytes : 0;
      g.geom[i] = {std::max<uint64_t>(1, sets / f) * set_bytes, g.s.ways[i], g.s.line[i]};
    }
    g.line_shift = rpc_line_shift(g.s.line[0] > 0 ? g.s.line[0] : 64);
    while ((1ull << g.sets_shift) < f) ++g.sets_shift;
    if (g.s.mode == SampleSettings::kFull) {
      g.mask = 0, g.sel = 0;  // every access
    } else if (g.s.mode == SampleSettings::kSampled) {
      g.mask = (f - 1) << g.line_shift;
      g.sel = g.s.sel << g.line_shift;
    }
  });
  return g;
}

// The shared LLC, made once.
RpcCache* shared_llc() {
  static RpcCache llc;
  static std::once_flag once;
  std::call_once(once, [] {
    const RpcGeometry& g = settings().geom[2];
    auto* words = static_cast<rpc_word*>(std::malloc(rpc_cache_words(&g) * sizeof(rpc_word)));
    if (words != nullptr) rpc_cache_init(&llc, &g, words);
    pthread_atfork(llc_before_fork, llc_after_fork, llc_after_fork);
  });
  return llc.tags != nullptr ? &llc : nullptr;
}

struct Thread {
  RpcCache l1{}, l2{};
  rpc_word* storage = nullptr;
  // The current unit.
  uint64_t n = 0;  // simulated accesses in it
  double x = 0;
  rpc_count y[RPC_NCOUNTS] = {};
  // Sums over units (sampled), or the counts (full).
  double units = 0, sx = 0, sxx = 0;
  double sy[RPC_NCOUNTS] = {};
  double syy[3] = {}, sxy[3] = {};
  rpc_count full[RPC_NCOUNTS] = {};
  bool dead = false;
  // The hot path's constants, set once.
  const Settings* g = nullptr;
  RpcPath path{};
  bool full_mode = false;
};

thread_local Thread* t_thread = nullptr;
pthread_key_t g_key;
std::once_flag g_key_once;

// At a thread's exit its caches go (its sums stay: the runtime may still
// read them).
void release(void* p) {
  auto* t = static_cast<Thread*>(p);
  if (t == nullptr) return;
  t->dead = true;
  std::free(t->storage);
  t->storage = nullptr;
}

Thread* make_thread(unsigned long long* ctr) {
  const Settings& g = settings();
  auto* t = new Thread;
  const rpc_word w1 = rpc_cache_words(&g.geom[0]), w2 = rpc_cache_words(&g.geom[1]);
  t->storage = static_cast<rpc_word*>(std::malloc((w1 + w2) * sizeof(rpc_word)));
  if (t->storage == nullptr || shared_llc() == nullptr) {
    t->dead = true;
    return t;
  }
  rpc_cache_init(&t->l1, &g.geom[0], t->storage);
  rpc_cache_init(&t->l2, &g.geom[1], t->storage + w1);
  t->g = &g;
  t->path = RpcPath{&t->l1, &t->l2, shared_llc(), nullptr, g.line_shift};
  t->full_mode = g.s.mode == SampleSettings::kFull;
  t->path.counts = t->full_mode ? t->full : t->y;
  std::call_once(g_key_once, [] { pthread_key_create(&g_key, release); });
  pthread_setspecific(g_key, t);
  // The filter last: the program calls from now on.
  ctr[RPROF_INST_SET_MASK] = g.mask;
  ctr[RPROF_INST_SET_SEL] = g.sel;
  return t;
}

void end_unit(Thread* t) {
  t->n = 0;
  if (t->x <= 0) return;
  const double xs = t->x / kSqUnit;
  t->units += 1;
  t->sx += t->x;
  t->sxx += xs * xs;
  for (int b = 0; b < 3; ++b) {
    const rpc_count r = t->y[2 * b], w = t->y[2 * b + 1];
    t->sy[2 * b] += static_cast<double>(r);
    t->sy[2 * b + 1] += static_cast<double>(w);
    const double ys = static_cast<double>(r + w) / kSqUnit;
    t->syy[b] += ys * ys;
    t->sxy[b] += xs * ys;
  }
  t->x = 0;
  std::memset(t->y, 0, sizeof(t->y));
}

}  // namespace

int sample_num_counters() {
  switch (settings().s.mode) {
    case SampleSettings::kSampled:
      return kSampledCount;
    case SampleSettings::kFull:
      return kFullCount;
    default:
      return 0;
  }
}

const char* sample_counter_name(int i) {
  if (settings().s.mode == SampleSettings::kFull) return i < kFullCount ? kFullNames[i] : "";
  return i < kSampledCount ? kSampledNames[i] : "";
}

void sample_thread_start(unsigned long long* program_counters) {
  if (t_thread != nullptr || program_counters == nullptr) return;
  if (settings().s.mode == SampleSettings::kOff) return;
  t_thread = make_thread(program_counters);
}

void sample_read(uint64_t* out) {
  const int n = sample_num_counters();
  Thread* t = t_thread;
  if (t == nullptr) {
    std::memset(out, 0, sizeof(uint64_t) * static_cast<size_t>(n));
    return;
  }
  if (settings().s.mode == SampleSettings::kFull) {
    for (int i = 0; i < kFullCount; ++i) out[i] = t->full[i];
    return;
  }
  end_unit(t);
  auto u = [](double v) { return static_cast<uint64_t>(std::llround(v)); };
  int k = 0;
  out[k++] = u(t->units);
  out[k++] = u(t->sx);
  out[k++] = u(t->sxx);
  for (int b = 0; b < 3; ++b) {
    out[k++] = u(t->sy[2 * b]);
    out[k++] = u(t->sy[2 * b + 1]);
    out[k++] = u(t->syy[b]);
    out[k++] = u(t->sxy[b]);
  }
  out[k++] = u(t->sx * static_cast<double>(uint64_t{1} << t->g->sets_shift));
}

void sample_access(const void* addr, unsigned long bytes, int is_store) {
  Thread* t = t_thread;
  if (t == nullptr || t->dead || bytes == 0) return;
  const rpc_word a = reinterpret_cast<rpc_word>(addr);
  if (t->full_mode) {  // every access, counted
    rpc_access(&t->path, a, bytes, is_store ? 1 : 0);
    return;
  }
  // The sampled lines the access touches (the plugin passes every access of
  // a statement that touches one, and every access over 64 bytes), each as
  // its line of the small caches.
  const Settings& g = *t->g;
  const unsigned ls = g.line_shift;
  const rpc_word f = rpc_word{1} << g.sets_shift;
  const rpc_word end = a + bytes;  // exclusive
  const rpc_word first = a >> ls, last = (end - 1) >> ls;
  const rpc_word c = g.s.sel;
  for (rpc_word ln = first + ((c - first) & (f - 1)); ln <= last; ln += f) {
    const rpc_word lo = std::max(a, ln << ls), hi = std::min(end, (ln + 1) << ls);
    const rpc_word small = ((ln >> g.sets_shift) << ls) | (lo & ((rpc_word{1} << ls) - 1));
    rpc_access(&t->path, small, hi - lo, is_store ? 1 : 0);
    t->x += static_cast<double>(hi - lo);
    if (++t->n >= g.s.unit) end_unit(t);
  }
}

bool parse_sample_settings(const char* sample, const char* caches, SampleSettings* out,
                           std::string* why) {
  *out = SampleSettings{};
  if (sample == nullptr || *sample == '\0' || std::strcmp(sample, "off") == 0) return true;
  if (caches == nullptr || *caches == '\0') {
    *why = std::string(kCachesEnv) + " is not set";
    return false;
  }
  // The geometry.
  const char* p = caches;
  for (int i = 0; i < 3; ++i) {
    uint64_t size = 0, ways = 0, line = 0;
    if (!parse_u64(p, &p, &size) || *p++ != ':' || !parse_u64(p, &p, &ways) || *p++ != ':' ||
        !parse_u64(p, &p, &line) || (i < 2 ? *p++ != ',' : *p != '\0')) {
      *why = std::string(kCachesEnv) + "=" + caches + ": expected SIZE:WAYS:LINE three times";
      return false;
    }
    RpcGeometry geom{size, static_cast<unsigned>(ways), static_cast<unsigned>(line)};
    if (ways > 64 || line > 4096) geom.assoc = 0;
    if (const char* bad = rpc_geometry_check(&geom)) {
      *why = std::string(kCachesEnv) + ": " + bad;
      return false;
    }
    out->size[i] = size;
    out->ways[i] = static_cast<unsigned>(ways);
    out->line[i] = static_cast<unsigned>(line);
  }
  if (out->line[0] != out->line[1] || out->line[1] != out->line[2]) {
    *why = std::string(kCachesEnv) + ": every level needs the same line size";
    return false;
  }
  if (std::strcmp(sample, "full") == 0) {
    out->mode = SampleSettings::kFull;
    return true;
  }
  // sets=F,sel=C,unit=U (sets first; the others optional).
  out->mode = SampleSettings::kSampled;
  std::string s = sample;
  size_t at = 0;
  bool have_sets = false;
  while (at < s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(at, comma - at);
    at = comma + 1;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : item.substr(eq + 1);
    uint64_t v = 0;
    const char* end = nullptr;
    if (val.empty() || !parse_u64(val.c_str(), &end, &v) || *end != '\0') {
      *why = std::string(kSampleEnv) + ": " + item + ": expected KEY=NUMBER";
      return false;
    }
    if (key == "sets") {
      if (v < 2 || (v & (v - 1)) != 0) {
        *why = std::string(kSampleEnv) + ": sets must be a power of two, at least 2";
        return false;
      }
      out->sets = v;
      have_sets = true;
    } else if (key == "sel") {
      out->sel = v;
    } else if (key == "unit" && v > 0) {
      out->unit = v;
    } else {
      *why = std::string(kSampleEnv) + ": unknown or bad setting " + item;
      return false;
    }
  }
  if (!have_sets) {
    *why = std::string(kSampleEnv) + ": no sets";
    return false;
  }
  if (out->sel >= out->sets) {
    *why = std::string(kSampleEnv) + ": sel must be below sets";
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    const uint64_t level_sets = out->size[i] / (uint64_t{out->ways[i]} * out->line[i]);
    if (level_sets < out->sets) {
      *why = std::string(kSampleEnv) + ": sets=" + std::to_string(out->sets) +
             " is more than a level's set count";
      return false;
    }
  }
  return true;
}

}  // namespace inst
}  // namespace rprof

// Called by an instrumented program's run-time object (inst_rt.c) for each
// access its set filter passes (inst_counters.h).
extern "C" __attribute__((visibility("default"))) void rprof_inst_mem(const void* addr,
                                                                      unsigned long bytes,
                                                                      int is_store) {
  rprof::inst::sample_access(addr, bytes, is_store);
}
