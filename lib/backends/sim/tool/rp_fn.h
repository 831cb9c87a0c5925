/* rprof-sim: counts per function (--rp-functions=yes), for rprof's function
 * view (docs/functions.md).
 *
 * Every superblock knows, from translation time, the function of each of its
 * guest instructions (the symbol covering the address: object path and raw,
 * mangled name; no symbol: the object and its 4 KiB address range). Where the
 * running function may change (the superblock's first counted instruction,
 * and any instruction not contiguous with the previous one, where VEX chased
 * a jump or a call) the generated code tests `rp_fn_cur != K` and only then
 * calls rp_fn_switch(K, SP); where the superblock ran another
 * function just before (VEX chased a call or a jump), it calls without the
 * test.
 *
 * Counts go straight where they belong: generated code and the cache model
 * add every increment to *rp_fn_cnt, the counters of the running function in
 * its calling context: a node of a calling-context tree (parent node,
 * function, innermost marked region at entry). rp_fn_switch only moves along
 * the tree (the stack pointer tells a call, deeper, from a return or a
 * longjmp, shallower) and repoints rp_fn_cnt; it never touches a counter. The
 * thread's totals (rp_live) are not counted twice: rp_fn_fold adds to them
 * what the counters written since the last fold gained (the first time a
 * node's counters become rp_fn_cnt in an epoch, a copy of them is kept). At
 * the end a function's self counts are the sum of its nodes, and its
 * inclusive counts the sums of the subtrees of its outermost nodes (no
 * ancestor runs the same function: recursion is counted once).
 *
 * The marked-region context (the runtime tells the tool with
 * RPROF_SIM_REQ_PUSH/POP while it has counting suspended) is part of a node's
 * key at entry; a region opened or closed while a function runs gives that
 * node a counter cell per region, so self counts always land in the
 * innermost region open.
 */
#ifndef RP_FN_H
#define RP_FN_H

#include "pub_tool_basics.h"
#include "sim_protocol.h"

/* The functions open on a thread: each frame is a node of the tree, with
 * the stack pointer at its entry, and its counters in region ctx; and the
 * child it called last (function, region, node, counters: memo_fn 0 = none),
 * so that a call per element touches no node. 64 bytes: a frame's address
 * is a shift away. */
typedef struct {
   UInt   node, fn, ctx;
   Addr   sp;
   ULong* cell;
   UInt   memo_fn, memo_ctx, memo_node;
   ULong* memo_cell;
   ULong  pad;
} RpFrame;

/* Per thread: what rp_fn keeps while the thread is not running. */
#define RP_FN_MAX_DEPTH 64
typedef struct {
   RpFrame* frames;
   UInt   nframes, frames_cap;
   UInt   cur;                       /* function id, 0 = none yet */
   UInt   node;                      /* the running node, 0 = the root */
   ULong* cell;                      /* its counters in ctx[depth]; NULL: not started */
   UInt   depth;                     /* open marked regions (at most RP_FN_MAX_DEPTH) */
   UInt   deeper;                    /* open beyond that: counted to the deepest */
   UInt   ctx[RP_FN_MAX_DEPTH + 1];  /* ctx[depth] is the innermost (0 = none) */
} RpFnThread;

extern Bool rp_clo_functions;
extern Bool rp_clo_fn_inclusive; /* --rp-fn-inclusive=no: self counts only */
extern UInt rp_clo_fn_max_paths; /* --rp-fn-max-paths: calling-context tree nodes */
/* The running thread's function; generated code compares with it. */
extern UInt rp_fn_cur;
/* Where the running thread's counts go: its running node's counters, or a
 * scratch array while it is suspended; rp_live without --rp-functions.
 * Never NULL. */
extern ULong* rp_fn_cnt;
/* Adds to rp_live what the running thread counted since the last fold. Before
 * rp_live is read or saved, and at every thread switch. */
void rp_fn_fold(void);

/* A leaf call site. Where a function K is entered (VEX chased a call into
 * it, or the superblock starts at K's entry: a call VEX did not follow) and
 * the rest of the superblock is K alone, ending in K's return (a small
 * function called in a loop), the generated code does not switch: while K
 * runs it points rp_fn_cnt at the counters of K called from the running
 * node (its child K in the current region; the node itself if it runs K),
 * and back at the caller's before the return and before each side exit (a
 * branch taken within K then changes function where it lands, to the same
 * node, through the helper). rp_fn_cur stays the caller's, so the call and
 * the return cost no helper call. The site remembers the callee's counters
 * for the last caller counters it saw (`caller`: a (node, region) has
 * counters of its own, so they name it); only another caller calls
 * rp_fn_leaf_resolve. While suspended, rp_fn_cnt is the scratch array: a
 * site resolved then has scratch for callee too (a caller like no other). */
typedef struct {
   ULong* caller; /* rp_fn_cnt in the caller when `callee` was resolved */
   ULong* callee; /* the counters of fn called from there */
   UInt   fn;
} RpLeaf;

/* Translation time: a new site calling function fn. */
RpLeaf* rp_fn_leaf_new(UInt fn);
/* Translation time: is a the entry of fn (a symbol's start)? */
Bool rp_fn_is_entry(UInt fn, Addr a);
/* Generated code, when the caller is not the one the site remembers. */
void rp_fn_leaf_resolve(RpLeaf* s);

/* After the options: the tree's root. */
void rp_fn_init(void);
/* Translation time: the function id of guest address a. */
UInt rp_fn_id_of(Addr a);
/* The dirty helper: the running thread now runs function `fn`, with the
 * stack pointer at sp. */
void rp_fn_switch(UWord fn, UWord sp);
/* rp_fn_cnt follows rp_suspended (call after it changes). */
void rp_fn_repoint(void);

/* Thread switch: save the running thread's state into t, load it from t. */
void rp_fn_save(RpFnThread* t);
void rp_fn_load(const RpFnThread* t);
/* Marked regions on the running thread (the runtime calls these while
 * suspended). */
void rp_fn_push(UWord region_id, const HChar* name);
void rp_fn_pop(void);
/* A forked child, or a process whose exec failed after its table was
 * written: start every count from zero. */
void rp_fn_reset(void);
/* A thread ended (its ThreadId is reused): it starts again at the root. */
void rp_fn_thread_restart(RpFnThread* t);

/* The table: self and inclusive counts per (context, function), for
 * rp_emit_functions (rp_emit.h), which writes it. */
/* Sums the tree into the table. Destroys the node counters (the program has
 * ended, or execs). */
void rp_fn_table_build(void);
/* Marked regions were too many to tell apart; call paths were (beyond
 * rp_clo_fn_max_paths nodes: inclusive counts are then lower bounds). */
Bool rp_fn_ctx_overflow(void);
Bool rp_fn_tree_overflow(void);
/* Contexts 0 .. rp_fn_nctx()-1 (0: outside every marked region): the
 * enclosing context and the region's name. */
UInt rp_fn_nctx(void);
void rp_fn_ctx_of(UInt c, UInt* parent, const HChar** name);
/* Functions 1 .. rp_fn_nfns()-1 (0: none yet). */
UInt rp_fn_nfns(void);
void rp_fn_describe(UInt f, const HChar** obj, const HChar** sym, Addr* start,
                    const HChar** file, UInt* line);
/* Context c's counts of function f (f < rp_fn_counts_end(c)): 2 x
 * RPROF_SIM_NCOUNTERS, self then inclusive, or NULL where none. */
UInt rp_fn_counts_end(UInt c);
const ULong* rp_fn_counts(UInt c, UInt f);

#endif
