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
}  // namespace

#define RPC_LLC_BEGIN() llc_lock()
#define RPC_LLC_END() llc_unlock()
#include "common/cache_model.h"

namespace rprof {
namespace inst {
namespace {

constexpr int64_t kCalling = INT64_MIN / 2;  // a countdown that stays negative
constexpr double kSqUnit = 64.0;             // squares in 64-byte units

const char* const kSampledNames[] = {
    "sample.units",      "sample.l1",         "sample.l1.sq",      "sample.l2.read",
    "sample.l2.write",   "sample.l2.sq",      "sample.l2.xy",      "sample.llc.read",
    "sample.llc.write",  "sample.llc.sq",     "sample.llc.xy",     "sample.dram.read",
    "sample.dram.write", "sample.dram.sq",    "sample.dram.xy",    "sample.l2.cold",
    "sample.llc.cold",   "sample.dram.cold"};
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
  RpcGeometry geom[3] = {};
  uint64_t mean_skip = 0;  // accesses between windows, on average
};

Settings& settings() {
  static Settings g;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    g.ok = parse_sample_settings(std::getenv(kSampleEnv), std::getenv(kCachesEnv), &g.s, &why);
    if (!g.ok) g.s.mode = SampleSettings::kOff;
    for (int i = 0; i < 3; ++i) g.geom[i] = {g.s.size[i], g.s.ways[i], g.s.line[i]};
    if (g.s.mode == SampleSettings::kSampled) {
      const double period = static_cast<double>(g.s.window + g.s.warm) / g.s.rate;
      g.mean_skip = static_cast<uint64_t>(period) - (g.s.window + g.s.warm);
    }
  });
  return g;
}

// Sampled: a line the model kept is taken as evicted once the cache has
// seen, scaled to all accesses, as many insertions as it has lines
// (common/cache_model.h, stale_ticks).
void age_lines(RpcCache* c, const RpcGeometry& g) {
  const Settings& s = settings();
  if (s.s.mode != SampleSettings::kSampled) return;
  constexpr unsigned kTicks = 64;
  const double lines = static_cast<double>(g.size / g.line);
  c->stale_ticks = kTicks;
  c->tick = static_cast<rpc_word>(std::max(1.0, lines / kTicks));
}

// The shared LLC, made once.
RpcCache* shared_llc() {
  static RpcCache llc;
  static std::once_flag once;
  std::call_once(once, [] {
    const RpcGeometry& g = settings().geom[2];
    auto* words = static_cast<rpc_word*>(std::malloc(rpc_cache_words(&g) * sizeof(rpc_word)));
    if (words != nullptr) {
      rpc_cache_init(&llc, &g, words);
      age_lines(&llc, g);
    }
  });
  return llc.tags != nullptr ? &llc : nullptr;
}

enum class Phase { kSkip, kWarm, kMeasure };

struct Thread {
  unsigned long long* ctr = nullptr;  // the program's array (the countdown)
  RpcCache l1{}, l2{};
  rpc_word* storage = nullptr;
  Phase phase = Phase::kSkip;
  uint64_t left = 0;  // accesses left in the phase
  uint64_t rng = 0;
  // The current unit.
  double x = 0;
  rpc_count y[RPC_NCOUNTS] = {};
  rpc_count cold[3] = {};               // the unit's cold-start bytes (RpcPath)
  rpc_count scratch[RPC_NCOUNTS] = {};  // warm-up's counts, dropped
  rpc_count scratch_cold[3] = {};
  // Sums over units (sampled), or the counts (full).
  double units = 0, sx = 0, sxx = 0;
  double sy[RPC_NCOUNTS] = {};
  double syy[3] = {}, sxy[3] = {}, scold[3] = {};
  rpc_count full[RPC_NCOUNTS] = {};
  bool dead = false;
  // Sampled: the skip before the current window (accesses), and each
  // level's displacing insertions per access seen in the windows (L1, L2,
  // LLC), to age the caches' lines over the skips (common/cache_model.h).
  int64_t skip = 0;
  double rate[3] = {};
  rpc_count fills0[3] = {};
  uint64_t accesses = 0;  // in the current window
  bool seen = false;      // a window has measured the rates
  // The hot path's constants, set once.
  const Settings* g = nullptr;
  RpcPath path{};
  bool full_mode = false;
};

thread_local Thread* t_thread = nullptr;
std::atomic<uint64_t> g_ordinal{0};
pthread_key_t g_key;
std::once_flag g_key_once;

// At a thread's exit its caches go (its sums stay: the runtime may still
// read them).
void release(void* p) {
  auto* t = static_cast<Thread*>(p);
  if (t == nullptr) return;
  t->dead = true;
  t->phase = Phase::kSkip;
  std::free(t->storage);
  t->storage = nullptr;
}

uint64_t next_random(uint64_t* s) {  // xorshift64*
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

// A skip drawn uniformly in [0.5, 1.5] times the mean.
int64_t draw_skip(Thread* t) {
  const uint64_t mean = settings().mean_skip;
  if (mean == 0) return 0;
  const double u = static_cast<double>(next_random(&t->rng) >> 11) / 9007199254740992.0;
  return static_cast<int64_t>(static_cast<double>(mean) * (0.5 + u));
}

void set_countdown(Thread* t, int64_t v) {
  if (t->ctr != nullptr) t->ctr[RPROF_INST_COUNTDOWN] = static_cast<unsigned long long>(v);
}

Thread* make_thread(unsigned long long* ctr) {
  const Settings& g = settings();
  auto* t = new Thread;
  t->ctr = ctr;
  const rpc_word w1 = rpc_cache_words(&g.geom[0]), w2 = rpc_cache_words(&g.geom[1]);
  t->storage = static_cast<rpc_word*>(std::malloc((w1 + w2) * sizeof(rpc_word)));
  if (t->storage == nullptr || shared_llc() == nullptr) {
    t->dead = true;
    return t;
  }
  rpc_cache_init(&t->l1, &g.geom[0], t->storage);
  rpc_cache_init(&t->l2, &g.geom[1], t->storage + w1);
  t->g = &g;
  t->path = RpcPath{&t->l1, &t->l2, shared_llc(), nullptr, rpc_line_shift(g.geom[0].line), nullptr};
  t->full_mode = g.s.mode == SampleSettings::kFull;
  age_lines(&t->l1, g.geom[0]);
  age_lines(&t->l2, g.geom[1]);
  const uint64_t ordinal = g_ordinal.fetch_add(1, std::memory_order_relaxed);
  t->rng = (g.s.seed * 0x9E3779B97F4A7C15ull) ^ ((ordinal + 1) * 0xD1B54A32D192ED03ull);
  if (t->rng == 0) t->rng = 1;
  std::call_once(g_key_once, [] { pthread_key_create(&g_key, release); });
  pthread_setspecific(g_key, t);
  if (g.s.mode == SampleSettings::kFull) {
    t->phase = Phase::kMeasure;
    set_countdown(t, kCalling);
  } else {
    // The first window at a random point of the first period.
    const double u = static_cast<double>(next_random(&t->rng) >> 11) / 9007199254740992.0;
    set_countdown(t, static_cast<int64_t>(u * static_cast<double>(g.mean_skip + g.s.warm +
                                                                  g.s.window)));
  }
  return t;
}

// The insertion rates are measured over a window's measured part (its
// warm-up refills what the skip took: a cold cache's rate), and count only
// insertions that displaced a line (common/cache_model.h: a fill into a
// free way is the model's cold start).
void start_rates(Thread* t, RpcCache* llc) {
  t->fills0[0] = t->l1.evicts;
  t->fills0[1] = t->l2.evicts;
  llc_lock();
  t->fills0[2] = llc->evicts;
  llc_unlock();
  t->accesses = 0;
}

// A window starts: the caches' clocks advance over the skip before it, at
// the insertion rates the earlier windows saw (none before the first).
void start_window(Thread* t, RpcCache* llc) {
  if (t->seen && t->skip > 0) {
    const double s = static_cast<double>(t->skip);
    rpc_cache_advance(&t->l1, static_cast<rpc_word>(s * t->rate[0]));
    rpc_cache_advance(&t->l2, static_cast<rpc_word>(s * t->rate[1]));
    llc_lock();
    rpc_cache_advance(llc, static_cast<rpc_word>(s * t->rate[2]));
    llc_unlock();
  }
  start_rates(t, llc);
}

// A window ends: the insertion rates it saw, averaged with the earlier ones.
void end_window(Thread* t, RpcCache* llc) {
  if (t->accesses == 0) return;
  llc_lock();
  const rpc_count llc_evicts = llc->evicts;
  llc_unlock();
  const rpc_count now[3] = {t->l1.evicts, t->l2.evicts, llc_evicts};
  for (int i = 0; i < 3; ++i) {
    const double r = static_cast<double>(now[i] - t->fills0[i]) / static_cast<double>(t->accesses);
    t->rate[i] = t->seen ? 0.5 * (t->rate[i] + r) : r;
  }
  t->seen = true;
}

void end_unit(Thread* t) {
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
    t->scold[b] += static_cast<double>(t->cold[b]);
  }
  t->x = 0;
  std::memset(t->y, 0, sizeof(t->y));
  std::memset(t->cold, 0, sizeof(t->cold));
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
  for (int b = 0; b < 3; ++b) out[k++] = u(t->scold[b]);
}

void sample_access(const void* addr, unsigned long bytes, int is_store) {
  Thread* t = t_thread;
  if (t == nullptr || t->dead || bytes == 0) return;
  const rpc_word a = reinterpret_cast<rpc_word>(addr);
  RpcPath& path = t->path;
  if (t->full_mode) {  // every access, counted
    path.counts = t->full;
    rpc_access(&path, a, bytes, is_store ? 1 : 0);
    return;
  }
  const Settings& g = *t->g;
  switch (t->phase) {
    case Phase::kSkip:
      // A block that saw the countdown negative before the last window
      // ended passes its remaining accesses: not a new window.
      if (static_cast<int64_t>(t->ctr[RPROF_INST_COUNTDOWN]) >= 0) return;
      t->phase = g.s.warm > 0 ? Phase::kWarm : Phase::kMeasure;
      t->left = g.s.warm > 0 ? g.s.warm : g.s.window;
      set_countdown(t, kCalling);
      start_window(t, path.llc);
      [[fallthrough]];
    case Phase::kWarm:
      if (t->phase == Phase::kWarm) {
        path.counts = t->scratch;
        path.cold = t->scratch_cold;
        rpc_access(&path, a, bytes, is_store ? 1 : 0);
        if (--t->left == 0) {
          t->phase = Phase::kMeasure;
          t->left = g.s.window;
          start_rates(t, path.llc);
        }
        return;
      }
      [[fallthrough]];
    case Phase::kMeasure:
      if (g.s.mode == SampleSettings::kFull) {
        path.counts = t->full;
        rpc_access(&path, a, bytes, is_store ? 1 : 0);
        return;
      }
      path.counts = t->y;
      path.cold = t->cold;
      t->accesses++;
      rpc_access(&path, a, bytes, is_store ? 1 : 0);
      t->x += static_cast<double>(bytes);
      if (--t->left == 0) {
        end_unit(t);
        end_window(t, path.llc);
        t->phase = Phase::kSkip;
        t->skip = draw_skip(t);
        set_countdown(t, t->skip);
      }
      return;
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
  // rate=R,window=M,warm=W,seed=S (rate first; the others optional).
  out->mode = SampleSettings::kSampled;
  out->window = 10000;
  out->warm = 40000;
  out->seed = 1;
  std::string s = sample;
  size_t at = 0;
  bool have_rate = false;
  while (at < s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(at, comma - at);
    at = comma + 1;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : item.substr(eq + 1);
    char* e = nullptr;
    if (key == "rate") {
      const double r = std::strtod(val.c_str(), &e);
      if (val.empty() || *e != '\0' || !(r > 0) || r > 1) {
        *why = std::string(kSampleEnv) + ": rate must be in (0, 1]";
        return false;
      }
      out->rate = r;
      have_rate = true;
      continue;
    }
    uint64_t v = 0;
    const char* end = nullptr;
    if (val.empty() || !parse_u64(val.c_str(), &end, &v) || *end != '\0') {
      *why = std::string(kSampleEnv) + ": " + item + ": expected KEY=NUMBER";
      return false;
    }
    if (key == "window" && v > 0) {
      out->window = v;
    } else if (key == "warm") {
      out->warm = v;
    } else if (key == "seed") {
      out->seed = v;
    } else {
      *why = std::string(kSampleEnv) + ": unknown or bad setting " + item;
      return false;
    }
  }
  if (!have_rate) {
    *why = std::string(kSampleEnv) + ": no rate";
    return false;
  }
  return true;
}

}  // namespace inst
}  // namespace rprof

// Called by an instrumented program's run-time object (inst_rt.c) for each
// access while its countdown is negative (inst_counters.h).
extern "C" __attribute__((visibility("default"))) void rprof_inst_mem(const void* addr,
                                                                      unsigned long bytes,
                                                                      int is_store) {
  rprof::inst::sample_access(addr, bytes, is_store);
}
