/* rprof-sim: the cache model's hooks. The model itself is rprof's one cache
 * model, lib/common/cache_model.h (its rules are there), shared with the inst
 * backend's sampled simulation: this file feeds it the program's accesses
 * and sends its counts to the running function's counters (rp_fn_cnt: rp_live,
 * or the running function's counters with --rp-functions).
 *
 * Bytes counted into *rp_fn_cnt (whole lines):
 *   L1 miss                  -> bytes.l2.read   (fill L2->L1)
 *   dirty L1 victim          -> bytes.l2.write  (write-back L1->L2)
 *   L2 miss on a fill        -> bytes.llc.read, dirty L2 victim -> bytes.llc.write
 *   LLC miss on a fill       -> bytes.dram.read, dirty LLC victim -> bytes.dram.write
 */
#ifndef RP_CACHE_H
#define RP_CACHE_H

#include "pub_tool_basics.h"
#include "common/cache_model.h"

typedef RpcGeometry RpGeometry;
typedef RpcCache RpCache;

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
