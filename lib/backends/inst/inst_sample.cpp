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
#include <numeric>

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
// The rotation (inst_sample.h): an epoch is the program's L1 bytes of
// kAuxEpochUnits units (F x 8 bytes an access), or kAuxTicksFixed times
// that many accesses of the fixed class, or kAuxTicksOwn times that many of
// the rotating class; one epoch in kAuxDuty simulates a rotating class too.
constexpr uint64_t kAuxEpochUnits = 2;
constexpr uint64_t kAuxDuty = 4;
constexpr uint64_t kAuxTicksFixed = 4;
constexpr uint64_t kAuxTicksOwn = 64;

const char* const kSampledNames[] = {
    "sample.units", "sample.l1", "sample.l1.sq", "sample.l2.read", "sample.l2.write",
    "sample.l2.sq", "sample.l2.xy", "sample.llc.read", "sample.llc.write", "sample.llc.sq",
    "sample.llc.xy", "sample.dram.read", "sample.dram.write", "sample.dram.sq", "sample.dram.xy",
    "sample.l1.all",
    // The rotating class (inst_sample.h): the L2 boundary.
    "sample.aux.units", "sample.aux.l1", "sample.aux.l1.sq", "sample.aux.l2.read",
    "sample.aux.l2.write", "sample.aux.l2.sq", "sample.aux.l2.xy", "sample.aux.l2.unsure",
    "sample.aux.classes"};
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
  unsigned long long bits = 0;  // the program's filter, B (inst_counters.h)
  uint64_t aux_step = 1;        // the rotation's stride over the other classes
};

// The filter's bits (inst_counters.h: bit j for the 64-byte lines j modulo
// 64) of the lines c modulo F: exact for 64-byte lines and F <= 64; a
// superset otherwise (every 64-byte line of another size's line, or the
// lines c modulo 64 for F > 64), which sample_access narrows.
unsigned long long class_bits(const Settings& g, uint64_t c) {
  const uint64_t f = uint64_t{1} << g.sets_shift;
  if (g.line_shift != 6) return ~0ull;
  unsigned long long b = 0;
  for (uint64_t j = 0; j < 64; ++j) {
    if (j % std::min<uint64_t>(f, 64) == c % std::min<uint64_t>(f, 64)) b |= 1ull << j;
  }
  return b;
}

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
      g.bits = ~0ull;  // every access
    } else if (g.s.mode == SampleSettings::kSampled) {
      g.bits = class_bits(g, g.s.sel);
      // A stride coprime with F - 1 visits every other class once in F - 1
      // epochs, far apart from one epoch to the next (about 0.62 (F - 1)).
      const uint64_t others = f - 1;
      uint64_t step = std::max<uint64_t>(1, others * 62 / 100);
      while (step > 1 && std::gcd(step, others) != 1) --step;
      g.aux_step = step;
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

// The rotating class's sums over its units (the L2 boundary's bytes of the
// accesses counted, below).
struct AuxSums {
  double units = 0, sx = 0, sxx = 0;
  double sy[2] = {};  // l2 read, l2 write
  double syy = 0, sxy = 0;
  double unsure = 0;   // bytes of fills that may be hits in the full model
  double classes = 0;  // epochs with a rotating class begun
};

struct Thread {
  RpcCache l1{}, l2{};
  RpcCache aux_l1{};  // the rotating class's L1
  rpc_word* storage = nullptr;
  unsigned long long* ctr = nullptr;  // the program's counter array (its filter)
  // The rotation: the class simulated beside the fixed one during active
  // epochs (every kAuxDuty-th), from a cold L1.
  uint64_t tick = 0;         // the fixed class's accesses in this epoch
  uint64_t aux_tick = 0;     // the rotating class's
  uint64_t epoch_bytes = 0;  // the program's L1 bytes when this epoch began
  uint64_t epoch = 0;        // epochs so far
  uint64_t aux_class = 0;    // the class, when aux_on
  bool aux_on = false;
  double aux_x = 0;
  double aux_y[2] = {};   // certain fills (read) and write-backs, this unit
  double aux_unsure = 0;  // uncertain fills, this unit
  AuxSums aux;
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

void next_epoch(Thread* t);

Thread* make_thread(unsigned long long* ctr) {
  const Settings& g = settings();
  auto* t = new Thread;
  const rpc_word w1 = rpc_cache_words(&g.geom[0]), w2 = rpc_cache_words(&g.geom[1]);
  const bool sampled = g.s.mode == SampleSettings::kSampled;
  const rpc_word words = w1 + w2 + (sampled ? w1 : 0);
  t->storage = static_cast<rpc_word*>(std::malloc(words * sizeof(rpc_word)));
  if (t->storage == nullptr || shared_llc() == nullptr) {
    t->dead = true;
    return t;
  }
  rpc_cache_init(&t->l1, &g.geom[0], t->storage);
  rpc_cache_init(&t->l2, &g.geom[1], t->storage + w1);
  if (sampled) {
    rpc_cache_init(&t->aux_l1, &g.geom[0], t->storage + w1 + w2);
  }
  t->ctr = ctr;
  t->g = &g;
  t->path = RpcPath{&t->l1, &t->l2, shared_llc(), nullptr, g.line_shift};
  t->full_mode = g.s.mode == SampleSettings::kFull;
  t->path.counts = t->full_mode ? t->full : t->y;
  std::call_once(g_key_once, [] { pthread_key_create(&g_key, release); });
  pthread_setspecific(g_key, t);
  // The filter last: the program calls from now on.
  ctr[RPROF_INST_SET_BITS] = g.bits;
  next_epoch(t);  // the first epoch simulates a rotating class (its bits)
  return t;
}

// A unit of the rotating class is its epoch (or the part of it between two
// reads of the counters): its accesses share one class, so the interval
// counts classes, not runs of accesses within one.
void end_aux_unit(Thread* t) {
  if (t->aux_x <= 0) return;
  AuxSums& a = t->aux;
  const double xs = t->aux_x / kSqUnit;
  a.units += 1;
  a.sx += t->aux_x;
  a.sxx += xs * xs;
  a.sy[0] += t->aux_y[0];
  a.sy[1] += t->aux_y[1];
  a.unsure += t->aux_unsure;
  // The unit's y: an uncertain fill as half a line (the middle of what it
  // can be; the estimator adds the other half to the interval).
  const double ys = (t->aux_y[0] + t->aux_y[1] + 0.5 * t->aux_unsure) / kSqUnit;
  a.syy += ys * ys;
  a.sxy += xs * ys;
  t->aux_x = 0;
  t->aux_y[0] = t->aux_y[1] = 0;
  t->aux_unsure = 0;
}

// The next epoch: every kAuxDuty-th one simulates a class of its own, the
// next in the rotation, from a cold L1; the others none (the fixed
// class's bits alone).
void next_epoch(Thread* t) {
  end_aux_unit(t);
  t->tick = 0;
  t->aux_tick = 0;
  t->epoch_bytes = t->ctr[RPROF_INST_BYTES_READ] + t->ctr[RPROF_INST_BYTES_WRITE];
  const Settings& g = *t->g;
  const uint64_t f = uint64_t{1} << g.sets_shift;
  t->aux_on = f > 1 && t->epoch % kAuxDuty == 0;
  if (t->aux_on) {
    t->aux.classes += 1;
    const uint64_t k = (t->epoch / kAuxDuty) * g.aux_step % (f - 1);
    t->aux_class = (g.s.sel + 1 + k) % f;
    rpc_cache_clear(&t->aux_l1);
    t->ctr[RPROF_INST_SET_BITS] = g.bits | class_bits(g, t->aux_class);
  } else {
    t->ctr[RPROF_INST_SET_BITS] = g.bits;
  }
  ++t->epoch;
}

// A set of `c` holding `ways` lines: every way filled since it was last
// cleared, so (LRU) it holds what the full model's set holds.
inline bool set_full(const RpcCache* c, rpc_word ln) {
  const rpc_word* set = c->tags + (c->pow2 ? (ln & c->set_mask) : (ln % c->sets)) * c->ways;
  return set[c->ways - 1] != RPC_EMPTY;
}

// One access of the rotating class to small line `ln` (`bytes` of it), in
// its L1, which starts cold at each epoch. An LRU set holds the last `ways`
// distinct lines referenced in it, whatever came before: once full, its
// content and every outcome in it are the full model's. Before, a hit is
// the full model's too (the line was referenced in this epoch, so it is
// among the set's most recent), but a miss may not be: the line may have
// been there before the epoch. Every access counts; such a fill is
// "unsure" (the estimator counts half of it and puts the rest in the
// interval). A write-back needs a full set: always certain.
void aux_access(Thread* t, rpc_word ln, rpc_word bytes, rpc_word dirty) {
  const double line = static_cast<double>(rpc_word{1} << t->g->line_shift);
  const bool warm = set_full(&t->aux_l1, ln);
  rpc_word v = RPC_EMPTY;
  t->aux_x += static_cast<double>(bytes);
  if (!rpc_ref(&t->aux_l1, ln, dirty, &v)) {
    if (warm) {
      t->aux_y[0] += line;
    } else {
      t->aux_unsure += line;
    }
    if (rpc_is_dirty(v)) t->aux_y[1] += line;
  }
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
  end_aux_unit(t);
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
  const AuxSums& a = t->aux;
  out[k++] = u(a.units);
  out[k++] = u(a.sx);
  out[k++] = u(a.sxx);
  out[k++] = u(a.sy[0]);
  out[k++] = u(a.sy[1]);
  out[k++] = u(a.syy);
  out[k++] = u(a.sxy);
  out[k++] = u(a.unsure);
  out[k++] = u(a.classes);
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
    ++t->tick;
  }
  if (t->aux_on) {
    // The rotating class (lines d modulo F), in its own L1.
    const rpc_word d = t->aux_class;
    for (rpc_word ln = first + ((d - first) & (f - 1)); ln <= last; ln += f) {
      const rpc_word lo = std::max(a, ln << ls), hi = std::min(end, (ln + 1) << ls);
      aux_access(t, ln >> g.sets_shift, hi - lo, is_store ? 1 : 0);
      ++t->aux_tick;
    }
  }
  // Epochs are timed by the program's progress: its exact L1 bytes (the
  // counters the instrumented code keeps), F x 8 bytes per access of a unit,
  // so each rotating class gets its accesses in proportion to its own rate
  // at that time. A loop whose bytes are counted once at its entry moves
  // that clock before it runs: there the fixed class's accesses time it
  // (kAuxTicksFixed units), and the rotating class's own (kAuxTicksOwn
  // times as many) where the fixed class is never touched.
  const uint64_t epoch = kAuxEpochUnits * g.s.unit;
  const uint64_t progress =
      t->ctr[RPROF_INST_BYTES_READ] + t->ctr[RPROF_INST_BYTES_WRITE] - t->epoch_bytes;
  if (progress >= 8 * f * epoch || t->tick >= kAuxTicksFixed * epoch ||
      t->aux_tick >= kAuxTicksOwn * epoch) {
    next_epoch(t);
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
