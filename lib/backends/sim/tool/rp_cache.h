/* rprof-sim: the cache model.
 *
 * Private L1 and L2 per thread, one shared LLC; set-associative, LRU,
 * write-back, write-allocate; one line size for all levels. Levels are
 * non-inclusive: a fill installs the line in every level it passes, and an
 * eviction never invalidates other levels. No coherence between threads.
 *
 * Bytes counted (into *rp_fn_cnt: rp_live, or the running function's
 * counters with --rp-functions; whole lines):
 *   L1 miss                  -> bytes.l2.read   (fill L2->L1)
 *   dirty L1 victim          -> bytes.l2.write  (write-back L1->L2)
 *   L2 miss on a fill        -> bytes.llc.read, dirty L2 victim -> bytes.llc.write
 *   LLC miss on a fill       -> bytes.dram.read, dirty LLC victim -> bytes.dram.write
 * A write-back that misses the level below allocates the line there, dirty,
 * without reading it (the whole line is written).
 */
#ifndef RP_CACHE_H
#define RP_CACHE_H

#include "pub_tool_basics.h"

typedef struct {
   ULong size;  /* bytes */
   UInt  assoc; /* ways */
   UInt  line;  /* bytes, a power of two, the same for all levels */
} RpGeometry;

typedef struct {
   UWord* tags;     /* sets * ways, most recent first in each set:
                       (line number << 1) | dirty, or RP_EMPTY */
   UWord  sets;
   UWord  set_mask; /* sets - 1 when sets is a power of two */
   UInt   ways;
   Bool   pow2;
} RpCache;

#define RP_EMPTY (~(UWord)0)

/* log2 of the line size, set by rp_cache_setup(). */
extern UInt rp_line_shift;

/* Checks a geometry; on error returns a message for people, else NULL. */
const HChar* rp_geometry_check(const RpGeometry* g);
void rp_cache_setup(UInt line_bytes);
void rp_cache_init(RpCache* c, const RpGeometry* g);
void rp_cache_clear(RpCache* c);

/* Called from generated code for each data access of the program. They do
 * nothing while the running thread is suspended. The _counted variants also
 * add the access to the L1 byte counters (guarded accesses, whose bytes
 * cannot be added statically). */
VG_REGPARM(2) void rp_read(Addr a, UWord size);
VG_REGPARM(2) void rp_write(Addr a, UWord size);
VG_REGPARM(2) void rp_modify(Addr a, UWord size);
VG_REGPARM(2) void rp_read_counted(Addr a, UWord size);
VG_REGPARM(2) void rp_write_counted(Addr a, UWord size);

#endif
