/* rprof-sim: the cache model's hooks (see rp_cache.h; the model is
 * lib/common/cache_model.h). */
#include "rp_cache.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "rp_state.h"

UInt rp_line_shift = 6;

const HChar* rp_geometry_check(const RpGeometry* g)
{
   return rpc_geometry_check(g);
}

void rp_cache_setup(UInt line)
{
   rp_line_shift = rpc_line_shift(line);
}

void rp_cache_clear(RpCache* c)
{
   rpc_cache_clear(c);
}

void rp_cache_init(RpCache* c, const RpGeometry* g)
{
   rpc_cache_init(c, g, VG_(malloc)("rp.cache", rpc_cache_words(g) * sizeof(rpc_word)));
}

/* The running thread's way through the hierarchy; its counts go to the
 * running function's counters (rp_fn.h), L2 read to DRAM write in the
 * model's order. */
static __inline__ void access(Addr a, UWord size, UWord dirty)
{
   const RpcPath p = {&rp_l1, &rp_l2, &rp_llc, rp_fn_cnt + RPROF_SIM_L2_READ, rp_line_shift};
   rpc_access(&p, a, size, dirty);
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
   rp_fn_cnt[RPROF_SIM_L1_READ] += size;
   if (LIKELY(!rp_suspended)) access(a, size, 0);
}

VG_REGPARM(2) void rp_write_counted(Addr a, UWord size)
{
   rp_fn_cnt[RPROF_SIM_L1_WRITE] += size;
   if (LIKELY(!rp_suspended)) access(a, size, 1);
}
