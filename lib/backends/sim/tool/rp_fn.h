/* rprof-sim: counts per function (--rp-functions=yes), for rprof's function
 * view (docs/functions.md).
 *
 * Every superblock knows, from translation time, the function of each of its
 * guest instructions (the symbol covering the address: object path and raw,
 * mangled name; no symbol: the object and its 4 KiB address range). Where the
 * running function may change (the superblock's first counted instruction,
 * and any instruction not contiguous with the previous one, where VEX chased
 * a jump or a call) the generated code tests `rp_fn_cur != K` and only then
 * calls rp_fn_switch(K), which adds what rp_live gained since the last switch
 * to the previous function's counts. So a function's counts are its self
 * counts, exactly: every counter increment lands between two switches.
 *
 * Counts are kept per (context, function), the context being the innermost
 * marked region open on the thread (the runtime tells the tool with
 * RPROF_SIM_REQ_PUSH/POP while it has counting suspended).
 */
#ifndef RP_FN_H
#define RP_FN_H

#include "pub_tool_basics.h"
#include "sim_protocol.h"

/* Inclusive counts: a shadow stack of the functions entered, kept at
 * switches (the stack pointer tells a call, deeper, from a return or a
 * longjmp, shallower), with the thread's counters at entry. */
typedef struct {
   UInt  fn, ctx;
   Addr  sp;                         /* the stack pointer at entry */
   ULong entry[RPROF_SIM_NCOUNTERS];
} RpFrame;

/* Per thread: what rp_fn keeps while the thread is not running. */
#define RP_FN_MAX_DEPTH 64
typedef struct {
   RpFrame* frames;
   UInt  nframes, frames_cap;
   UInt  cur;                        /* function id, 0 = none yet */
   UInt  depth;                      /* open marked regions (at most RP_FN_MAX_DEPTH) */
   UInt  deeper;                     /* open beyond that: counted to the deepest */
   UInt  ctx[RP_FN_MAX_DEPTH + 1];   /* ctx[depth] is the innermost (0 = none) */
   ULong last[RPROF_SIM_NCOUNTERS];  /* the thread's counters at the last switch */
} RpFnThread;

extern Bool rp_clo_functions;
extern Bool rp_clo_fn_inclusive; /* --rp-fn-inclusive=no: self counts only */
/* The running thread's function; generated code compares with it. */
extern UInt rp_fn_cur;

/* Translation time: the function id of guest address a. */
UInt rp_fn_id_of(Addr a);
/* The dirty helper: the running thread now runs function `fn`, with the
 * stack pointer at sp. */
void rp_fn_switch(UWord fn, UWord sp);

/* Thread switch: save the running thread's state into t, load it from t. */
void rp_fn_save(RpFnThread* t);
void rp_fn_load(const RpFnThread* t);
/* Marked regions on the running thread; `now` = its counters at this point
 * (the snapshot taken at SUSPEND: the runtime calls these while suspended). */
void rp_fn_push(const ULong* now, UWord region_id, const HChar* name);
void rp_fn_pop(const ULong* now);
/* A forked child: start every count from zero. */
void rp_fn_reset(void);
/* Attributes what thread t counted since its last switch (cnt = its counters);
 * with `end`, also closes its open frames (the thread or the program ends). */
void rp_fn_flush_thread(RpFnThread* t, const ULong* cnt, Bool end);
/* Writes the table to path (the tool's --rp-fn-out). */
void rp_fn_write(const HChar* path);

#endif
