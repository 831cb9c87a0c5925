/* rprof's cache model: the one source both simulators run. The sim backend's
 * Valgrind tool (lib/backends/sim/tool/rp_cache.c) feeds it every data access
 * of the program; the inst backend's simulation (librprof,
 * lib/backends/inst/inst_sample.cpp) every access of the instrumented code,
 * or those to 1 line in F, in caches of 1/F the sets (set sampling). Plain
 * C, header-only and freestanding (no libc: the Valgrind tool has none); the
 * caller owns the tag storage.
 *
 * Private L1 and L2 per thread, one shared LLC; set-associative, LRU,
 * write-back, write-allocate; one line size for all levels. Levels are
 * non-inclusive: a fill installs the line in every level it passes, and an
 * eviction never invalidates other levels. No coherence between threads.
 *
 * Bytes counted (whole lines), into the access's counts (RpcCounts order):
 *   L1 miss                  -> l2 read   (fill L2->L1)
 *   dirty L1 victim          -> l2 write  (write-back L1->L2)
 *   L2 miss on a fill        -> llc read, dirty L2 victim -> llc write
 *   LLC miss on a fill       -> dram read, dirty LLC victim -> dram write
 * A write-back that misses the level below allocates the line there, dirty,
 * without reading it (the whole line is written).
 *
 * A user with several threads on one LLC defines RPC_LLC_BEGIN() and
 * RPC_LLC_END() (a lock around every LLC operation) before including this. */
#ifndef RPROF_COMMON_CACHE_MODEL_H_
#define RPROF_COMMON_CACHE_MODEL_H_

#ifndef RPC_LLC_BEGIN
#define RPC_LLC_BEGIN()
#define RPC_LLC_END()
#endif

#if defined(__GNUC__)
#define RPC_LIKELY(x) __builtin_expect(!!(x), 1)
#define RPC_NOINLINE __attribute__((noinline, unused))
#else
#define RPC_LIKELY(x) (x)
#define RPC_NOINLINE
#endif

typedef unsigned long rpc_word; /* an address, a line number, a tag */
typedef unsigned long long rpc_count;

typedef struct {
  unsigned long long size; /* bytes */
  unsigned assoc;          /* ways */
  unsigned line;           /* bytes, a power of two, the same for all levels */
} RpcGeometry;

typedef struct {
  rpc_word* tags; /* sets * ways, most recent first in each set:
                     (line number << 1) | dirty, or RPC_EMPTY */
  rpc_word sets;
  rpc_word set_mask; /* sets - 1 when sets is a power of two */
  unsigned ways;
  int pow2;
} RpcCache;

#define RPC_EMPTY (~(rpc_word)0)
/* Where an access's bytes are added, in this order. */
enum {
  RPC_L2_READ,
  RPC_L2_WRITE,
  RPC_LLC_READ,
  RPC_LLC_WRITE,
  RPC_DRAM_READ,
  RPC_DRAM_WRITE,
  RPC_NCOUNTS
};

/* One thread's way through the hierarchy: its caches, the shared LLC, where
 * its counts go. */
typedef struct {
  RpcCache* l1;
  RpcCache* l2;
  RpcCache* llc;
  rpc_count* counts; /* RPC_NCOUNTS */
  unsigned line_shift;
} RpcPath;

/* Checks a geometry; on error returns a message for people, else 0. */
static __inline__ const char* rpc_geometry_check(const RpcGeometry* g) {
  if (g->line < 8 || g->line > 4096 || (g->line & (g->line - 1)) != 0)
    return "line size must be a power of two between 8 and 4096 bytes";
  if (g->assoc < 1 || g->assoc > 64) return "associativity must be between 1 and 64 ways";
  if (g->size == 0 || g->size % ((unsigned long long)g->assoc * g->line) != 0)
    return "size must be a non-zero multiple of ways * line size";
  if (g->size > (1ULL << 34)) return "size must be at most 16 GiB";
  return 0;
}

static __inline__ unsigned rpc_line_shift(unsigned line) {
  unsigned s = 0;
  while ((1u << s) < line) s++;
  return s;
}

/* Words of tag storage a cache of geometry g needs (a checked geometry). */
static __inline__ rpc_word rpc_cache_words(const RpcGeometry* g) {
  return (rpc_word)(g->size / g->line);
}

static __inline__ void rpc_cache_clear(RpcCache* c) {
  rpc_word i, n = c->sets * c->ways;
  for (i = 0; i < n; i++) c->tags[i] = RPC_EMPTY;
}

/* storage: rpc_cache_words(g) words, the cache's from now on. */
static __inline__ void rpc_cache_init(RpcCache* c, const RpcGeometry* g, rpc_word* storage) {
  c->ways = g->assoc;
  c->sets = (rpc_word)(g->size / ((unsigned long long)g->assoc * g->line));
  c->pow2 = (c->sets & (c->sets - 1)) == 0;
  c->set_mask = c->sets - 1;
  c->tags = storage;
  rpc_cache_clear(c);
}

/* Looks line `ln` up and makes it the most recent of its set, or'ing in
 * `dirty`. On a miss it is inserted and *victim receives the evicted tag
 * (RPC_EMPTY when the way was free). Returns 1 on a hit. */
static __inline__ int rpc_ref(RpcCache* c, rpc_word ln, rpc_word dirty, rpc_word* victim) {
  rpc_word* set = c->tags + (c->pow2 ? (ln & c->set_mask) : (ln % c->sets)) * c->ways;
  const rpc_word key = ln << 1;
  rpc_word t = set[0];
  unsigned i;
  if (RPC_LIKELY((t & ~(rpc_word)1) == key)) {
    set[0] = t | dirty;
    return 1;
  }
  for (i = 1; i < c->ways; i++) {
    t = set[i];
    if ((t & ~(rpc_word)1) == key) {
      for (; i > 0; i--) set[i] = set[i - 1];
      set[0] = t | dirty;
      return 1;
    }
  }
  *victim = set[c->ways - 1];
  for (i = c->ways - 1; i > 0; i--) set[i] = set[i - 1];
  set[0] = key | dirty;
  return 0;
}

static __inline__ int rpc_is_dirty(rpc_word tag) { return tag != RPC_EMPTY && (tag & 1); }
/* A victim's line number. */
static __inline__ rpc_word rpc_line_of(rpc_word tag) { return tag >> 1; }

/* LLC: a fill for an L2 miss, and a write-back of a dirty L2 victim. */
static __inline__ void rpc_llc_fill(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  const rpc_count line = (rpc_count)1 << p->line_shift;
  p->counts[RPC_LLC_READ] += line;
  RPC_LLC_BEGIN();
  const int hit = rpc_ref(p->llc, ln, 0, &v);
  RPC_LLC_END();
  if (!hit) {
    p->counts[RPC_DRAM_READ] += line;
    if (rpc_is_dirty(v)) p->counts[RPC_DRAM_WRITE] += line;
  }
}

static __inline__ void rpc_llc_writeback(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  const rpc_count line = (rpc_count)1 << p->line_shift;
  p->counts[RPC_LLC_WRITE] += line;
  RPC_LLC_BEGIN();
  const int hit = rpc_ref(p->llc, ln, 1, &v);
  RPC_LLC_END();
  if (!hit && rpc_is_dirty(v)) p->counts[RPC_DRAM_WRITE] += line;
}

static __inline__ void rpc_l2_fill(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  p->counts[RPC_L2_READ] += (rpc_count)1 << p->line_shift;
  if (!rpc_ref(p->l2, ln, 0, &v)) {
    rpc_llc_fill(p, ln);
    if (rpc_is_dirty(v)) rpc_llc_writeback(p, rpc_line_of(v));
  }
}

static __inline__ void rpc_l2_writeback(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  p->counts[RPC_L2_WRITE] += (rpc_count)1 << p->line_shift;
  if (!rpc_ref(p->l2, ln, 1, &v) && rpc_is_dirty(v)) rpc_llc_writeback(p, rpc_line_of(v));
}

static RPC_NOINLINE void rpc_l1_miss(const RpcPath* p, rpc_word ln, rpc_word victim) {
  rpc_l2_fill(p, ln);
  if (rpc_is_dirty(victim)) rpc_l2_writeback(p, rpc_line_of(victim));
}

/* One access of `size` bytes (> 0) at `a`: every line it touches, in order;
 * dirty 1 for a store. Returns the number of L1 misses. */
static __inline__ unsigned rpc_access(const RpcPath* p, rpc_word a, rpc_word size, rpc_word dirty) {
  rpc_word ln = a >> p->line_shift;
  const rpc_word last = (a + size - 1) >> p->line_shift;
  unsigned misses = 0;
  rpc_word v;
  for (;;) {
    if (!rpc_ref(p->l1, ln, dirty, &v)) {
      rpc_l1_miss(p, ln, v);
      misses++;
    }
    if (RPC_LIKELY(ln == last)) return misses;
    ln++;
  }
}

#endif /* RPROF_COMMON_CACHE_MODEL_H_ */
