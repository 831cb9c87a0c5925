/* rprof's cache model: the one source both simulators run. The sim backend's
 * Valgrind tool (lib/backends/sim/tool/rp_cache.c) feeds it every data access
 * of the program; the inst backend's sampled simulation (librprof,
 * lib/backends/inst/inst_sample.cpp) feeds it the accesses of its detailed
 * windows. Plain C, header-only and freestanding (no libc: the Valgrind tool
 * has none); the caller owns the tag storage.
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
 * Sampled simulation (the model sees only windows of the accesses): a line
 * the model kept across the skipped accesses may have been evicted by them.
 * With `stale_ticks` set, each tag carries the cache's insertion clock (one
 * tick per `tick` insertions) at its last touch; a hit on a line more than
 * stale_ticks ticks old is taken as a miss (the line is refetched, a dirty
 * one written back first). The clock counts the model's insertions, and the
 * user advances it over each skip by the insertions the skipped accesses
 * would have made (rpc_cache_advance: their number times the rate of
 * `evicts` in the windows, insertions that displaced a live line). Only
 * those count: an insertion into a way that held no live line (empty, or a
 * line already taken as gone) or a stale line's refetch is the model's cold
 * start, not pressure on the real cache, and counting those (as `fills`
 * does) fed a loop: a cold window aged every line at the next skip, whose
 * refetches aged them again, and a working set of half the LLC read as
 * streaming from DRAM (50-200 times its bytes). With tick = lines / stale_ticks, a line is
 * gone once the cache has taken in as many lines as it holds since its
 * last touch (LRU's rule, whatever the set). Off (stale_ticks 0) in a full
 * simulation.
 *
 * The cold start itself stays: a line the model has not seen since the
 * program touched it in a skip misses in the model and may hit in the real
 * cache. Such a miss fills a way that held no live line (`free_fill`: the
 * model cannot tell what the real set holds there); with `cold` set in the
 * path, each boundary's bytes of those fills, and of the write-backs of the
 * stale dirty lines they displace, are added there too (RpcPath), the bound
 * the estimate gives for its cold-start bias. A miss that
 * displaces a live line gives none: streaming data is certain once the
 * model holds live lines.
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
                     (stamp << 48) | (line number << 1) | dirty, or RPC_EMPTY */
  rpc_word sets;
  rpc_word set_mask; /* sets - 1 when sets is a power of two */
  unsigned ways;
  int pow2;
  /* Sampled simulation only (see above); 0 otherwise. */
  unsigned stale_ticks;
  rpc_word tick;     /* insertions per tick */
  rpc_word inserts;  /* insertions since the last tick */
  rpc_word now;      /* the clock, in ticks */
  rpc_count stale;   /* hits taken as misses */
  rpc_count fills;   /* insertions of lines not in the cache, ever */
  rpc_count evicts;  /* sampled: insertions that displaced a live line */
  int free_fill;     /* sampled: the last miss's way held no live line */
} RpcCache;

#define RPC_EMPTY (~(rpc_word)0)
/* A tag's line (with dirty bit 0) and its stamp; line numbers stay below
 * 2^47 (user-space addresses). */
#define RPC_KEY_MASK ((((rpc_word)1) << 48) - 2)
#define RPC_STAMP(t) ((t) >> 48)
#define RPC_STAMP_MASK ((rpc_word)0xffff)

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
  /* Sampled, or 0: the bytes of fills into a way with no live line, per
   * boundary (L2, LLC, DRAM: an L1, L2 or LLC miss; RpcCache::free_fill), a
   * subset of the reads in `counts`. */
  rpc_count* cold;
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
  c->stale_ticks = 0;
  c->tick = 1;
  c->inserts = 0;
  c->now = 0;
  c->stale = 0;
  c->fills = 0;
  c->evicts = 0;
  c->free_fill = 0;
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
  if (c->stale_ticks == 0) {
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
    c->fills++;
    return 0;
  }
  /* Sampled: stamps, and old lines taken as gone. */
  const rpc_word stamp = (c->now & RPC_STAMP_MASK) << 48;
  for (i = 0; i < c->ways; i++) {
    t = set[i];
    if (t != RPC_EMPTY && (t & RPC_KEY_MASK) == key) {
      const rpc_word age = (c->now - RPC_STAMP(t)) & RPC_STAMP_MASK;
      if (age <= c->stale_ticks) {
        for (; i > 0; i--) set[i] = set[i - 1];
        set[0] = stamp | (t & ~(~(rpc_word)0 << 48)) | dirty;
        return 1;
      }
      /* Evicted by the skipped accesses: refetched, its write-back (when
       * dirty) counted now. */
      c->stale++;
      c->free_fill = 0;
      *victim = t;
      for (; i > 0; i--) set[i] = set[i - 1];
      set[0] = stamp | key | dirty;
      goto clock;
    }
  }
  *victim = set[c->ways - 1];
  c->free_fill = *victim == RPC_EMPTY ||
                 ((c->now - RPC_STAMP(*victim)) & RPC_STAMP_MASK) > c->stale_ticks;
  if (!c->free_fill) c->evicts++;
  for (i = c->ways - 1; i > 0; i--) set[i] = set[i - 1];
  set[0] = stamp | key | dirty;
  c->fills++;
clock:
  if (++c->inserts >= c->tick) {
    c->inserts = 0;
    c->now++;
  }
  return 0;
}

/* The clock over accesses the model did not see: n insertions. */
static __inline__ void rpc_cache_advance(RpcCache* c, rpc_word n) {
  if (c->stale_ticks == 0 || c->tick == 0) return;
  n += c->inserts;
  c->now += n / c->tick;
  c->inserts = n % c->tick;
}

static __inline__ int rpc_is_dirty(rpc_word tag) { return tag != RPC_EMPTY && (tag & 1); }
/* A victim's line number (stamp dropped). */
static __inline__ rpc_word rpc_line_of(rpc_word tag) { return (tag & RPC_KEY_MASK) >> 1; }

/* LLC: a fill for an L2 miss, and a write-back of a dirty L2 victim. */
static __inline__ void rpc_llc_fill(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  const rpc_count line = (rpc_count)1 << p->line_shift;
  p->counts[RPC_LLC_READ] += line;
  RPC_LLC_BEGIN();
  const int hit = rpc_ref(p->llc, ln, 0, &v);
  const int cold = !hit && p->cold && p->llc->free_fill;
  RPC_LLC_END();
  if (!hit) {
    p->counts[RPC_DRAM_READ] += line;
    if (rpc_is_dirty(v)) p->counts[RPC_DRAM_WRITE] += line;
    if (cold) p->cold[2] += rpc_is_dirty(v) ? 2 * line : line;
  }
}

static __inline__ void rpc_llc_writeback(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  const rpc_count line = (rpc_count)1 << p->line_shift;
  p->counts[RPC_LLC_WRITE] += line;
  RPC_LLC_BEGIN();
  const int hit = rpc_ref(p->llc, ln, 1, &v);
  const int cold = !hit && p->cold && p->llc->free_fill;
  RPC_LLC_END();
  if (!hit && rpc_is_dirty(v)) {
    p->counts[RPC_DRAM_WRITE] += line;
    if (cold) p->cold[2] += line;
  }
}

static __inline__ void rpc_l2_fill(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  p->counts[RPC_L2_READ] += (rpc_count)1 << p->line_shift;
  if (!rpc_ref(p->l2, ln, 0, &v)) {
    if (p->cold && p->l2->free_fill) p->cold[1] += (rpc_count)(rpc_is_dirty(v) ? 2 : 1) << p->line_shift;
    rpc_llc_fill(p, ln);
    if (rpc_is_dirty(v)) rpc_llc_writeback(p, rpc_line_of(v));
  }
}

static __inline__ void rpc_l2_writeback(const RpcPath* p, rpc_word ln) {
  rpc_word v = RPC_EMPTY;
  p->counts[RPC_L2_WRITE] += (rpc_count)1 << p->line_shift;
  if (!rpc_ref(p->l2, ln, 1, &v) && rpc_is_dirty(v)) {
    if (p->cold && p->l2->free_fill) p->cold[1] += (rpc_count)1 << p->line_shift;
    rpc_llc_writeback(p, rpc_line_of(v));
  }
}

static RPC_NOINLINE void rpc_l1_miss(const RpcPath* p, rpc_word ln, rpc_word victim) {
  if (p->cold && p->l1->free_fill) {
    p->cold[0] += (rpc_count)(rpc_is_dirty(victim) ? 2 : 1) << p->line_shift;
  }
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
