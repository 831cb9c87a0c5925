/* rprof-sim: state shared by the tool's files.
 *
 * Valgrind runs one client thread at a time, so the running thread's counters
 * live in one global array (rp_live) that generated code adds to directly
 * (with --rp-functions it adds to the running function's counters instead,
 * and rp_fn_fold brings rp_live up to date: rp_fn.h), and
 * its private caches in rp_l1/rp_l2. A thread switch (track_start_client_code)
 * swaps them with the thread's saved copies. The LLC is shared by all threads.
 */
#ifndef RP_STATE_H
#define RP_STATE_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "rp_cache.h"
#include "rp_fn.h"
#include "sim_protocol.h"

typedef struct {
   ULong    cnt[RPROF_SIM_NCOUNTERS];   /* counters while not running */
   ULong    saved[RPROF_SIM_NCOUNTERS]; /* snapshot taken at the outermost SUSPEND */
   UInt     suspend_depth;              /* SUSPENDs not yet matched by a RESUME */
   Bool     used;
   RpCache  l1, l2;
   RpFnThread fn;                       /* --rp-functions: see rp_fn.h */
} RpThread;

/* The running thread's counters; generated code adds to these (with
 * --rp-functions, up to date after rp_fn_fold). */
extern ULong rp_live[RPROF_SIM_NCOUNTERS];
/* True while the running thread does rprof's own work (suspend depth > 0). */
extern Bool rp_suspended;
/* The running thread's private caches and the shared last-level cache. */
extern RpCache rp_l1, rp_l2, rp_llc;

/* Cache geometry from the command line. */
extern RpGeometry rp_geom_l1, rp_geom_l2, rp_geom_llc;

/* rp_main.c */
extern Bool rp_clo_count;    /* --rp-count=no: instrument nothing */
extern Bool rp_clo_host_fma; /* --rp-host-fma=no: keep VEX's FMA emulation */
void rp_switch_thread(ThreadId tid);
RpThread* rp_running(void);

/* rp_instrument.c */
IRSB* rp_instrument(VgCallbackClosure* closure, IRSB* sbIn,
                    const VexGuestLayout* layout,
                    const VexGuestExtents* vge,
                    const VexArchInfo* archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
