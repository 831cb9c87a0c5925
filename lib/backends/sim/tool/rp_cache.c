/* rprof-sim: the cache model (see rp_cache.h for the rules). */
#include "rp_cache.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "rp_state.h"

UInt rp_line_shift = 6;
static UWord line_bytes = 64;

/* Counts go to the running function's counters, or to the thread's totals
 * without --rp-functions (rp_fn.h). */
#define COUNT(k, v) (rp_fn_cnt[k] += (v))

const HChar* rp_geometry_check(const RpGeometry* g)
{
   if (g->line < 8 || g->line > 4096 || (g->line & (g->line - 1)) != 0)
      return "line size must be a power of two between 8 and 4096 bytes";
   if (g->assoc < 1 || g->assoc > 64)
      return "associativity must be between 1 and 64 ways";
   if (g->size == 0 || g->size % ((ULong)g->assoc * g->line) != 0)
      return "size must be a non-zero multiple of ways * line size";
   if (g->size > (1ULL << 34))
      return "size must be at most 16 GiB";
   return NULL;
}

void rp_cache_setup(UInt line)
{
   line_bytes = line;
   rp_line_shift = 0;
   while ((1u << rp_line_shift) < line) rp_line_shift++;
}

void rp_cache_clear(RpCache* c)
{
   UWord i, n = c->sets * c->ways;
   for (i = 0; i < n; i++) c->tags[i] = RP_EMPTY;
}

void rp_cache_init(RpCache* c, const RpGeometry* g)
{
   c->ways = g->assoc;
   c->sets = (UWord)(g->size / ((ULong)g->assoc * g->line));
   c->pow2 = (c->sets & (c->sets - 1)) == 0;
   c->set_mask = c->sets - 1;
   c->tags = VG_(malloc)("rp.cache", c->sets * c->ways * sizeof(UWord));
   rp_cache_clear(c);
}

/* Looks line `ln` up and makes it the most recent of its set, or'ing in
 * `dirty`. On a miss it is inserted and *victim receives the evicted tag
 * (RP_EMPTY when the way was free). Returns True on a hit. */
static __inline__ Bool ref(RpCache* c, UWord ln, UWord dirty, UWord* victim)
{
   UWord* set = c->tags + (c->pow2 ? (ln & c->set_mask) : (ln % c->sets)) * c->ways;
   const UWord key = ln << 1;
   UWord t = set[0];
   UInt i;
   if (LIKELY((t & ~(UWord)1) == key)) {
      set[0] = t | dirty;
      return True;
   }
   for (i = 1; i < c->ways; i++) {
      t = set[i];
      if ((t & ~(UWord)1) == key) {
         for (; i > 0; i--) set[i] = set[i - 1];
         set[0] = t | dirty;
         return True;
      }
   }
   *victim = set[c->ways - 1];
   for (i = c->ways - 1; i > 0; i--) set[i] = set[i - 1];
   set[0] = key | dirty;
   return False;
}

static __inline__ Bool is_dirty(UWord tag)
{
   return tag != RP_EMPTY && (tag & 1);
}

/* LLC: a fill for an L2 miss, and a write-back of a dirty L2 victim. */
static void llc_fill(UWord ln)
{
   UWord v;
   COUNT(RPROF_SIM_LLC_READ, line_bytes);
   if (!ref(&rp_llc, ln, 0, &v)) {
      COUNT(RPROF_SIM_DRAM_READ, line_bytes);
      if (is_dirty(v)) COUNT(RPROF_SIM_DRAM_WRITE, line_bytes);
   }
}

static void llc_writeback(UWord ln)
{
   UWord v;
   COUNT(RPROF_SIM_LLC_WRITE, line_bytes);
   if (!ref(&rp_llc, ln, 1, &v) && is_dirty(v))
      COUNT(RPROF_SIM_DRAM_WRITE, line_bytes);
}

static void l2_fill(UWord ln)
{
   UWord v;
   COUNT(RPROF_SIM_L2_READ, line_bytes);
   if (!ref(&rp_l2, ln, 0, &v)) {
      llc_fill(ln);
      if (is_dirty(v)) llc_writeback(v >> 1);
   }
}

static void l2_writeback(UWord ln)
{
   UWord v;
   COUNT(RPROF_SIM_L2_WRITE, line_bytes);
   if (!ref(&rp_l2, ln, 1, &v) && is_dirty(v)) llc_writeback(v >> 1);
}

static __attribute__((noinline)) void l1_miss(UWord ln, UWord victim)
{
   l2_fill(ln);
   if (is_dirty(victim)) l2_writeback(victim >> 1);
}

/* One access of `size` bytes at `a`: every line it touches, in order. */
static __inline__ void access(Addr a, UWord size, UWord dirty)
{
   UWord ln = a >> rp_line_shift;
   const UWord last = (a + size - 1) >> rp_line_shift;
   UWord v;
   for (;;) {
      if (!ref(&rp_l1, ln, dirty, &v)) l1_miss(ln, v);
      if (LIKELY(ln == last)) return;
      ln++;
   }
}

VG_REGPARM(2) void rp_read(Addr a, UWord size)
{
   if (LIKELY(!rp_suspended)) access(a, size, 0);
}

VG_REGPARM(2) void rp_write(Addr a, UWord size)
{
   if (LIKELY(!rp_suspended)) access(a, size, 1);
}

/* A read then a write of the same bytes (read-modify-write instructions):
 * the write always hits the line the read brought in. */
VG_REGPARM(2) void rp_modify(Addr a, UWord size)
{
   if (LIKELY(!rp_suspended)) access(a, size, 1);
}

VG_REGPARM(2) void rp_read_counted(Addr a, UWord size)
{
   COUNT(RPROF_SIM_L1_READ, size);
   if (LIKELY(!rp_suspended)) access(a, size, 0);
}

VG_REGPARM(2) void rp_write_counted(Addr a, UWord size)
{
   COUNT(RPROF_SIM_L1_WRITE, size);
   if (LIKELY(!rp_suspended)) access(a, size, 1);
}
