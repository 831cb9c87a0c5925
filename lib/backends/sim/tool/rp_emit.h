/* rprof-sim: what the tool emits: instrumentation into a superblock (counter
 * increments known at translation time, and calls into the cache model for
 * data accesses), and its output files (the totals and the per-function
 * table, at the end of the functions below).
 *
 * Increments (FLOPs, FP instructions, L1 bytes) are summed while the
 * superblock is copied and added inline to rp_live (with --rp-functions, to
 * *rp_fn_cnt instead) before each side exit and at the end, so an exit taken
 * counts exactly what ran before it.
 *
 * A data access's cache call is placed where the access is, and consecutive
 * accesses merge into one call when nothing else touches memory in between:
 *  - contiguous loads (a packed FMA's memory operand arrives as one scalar
 *    load per lane), or contiguous stores, become one wider access;
 *  - a load then a store of the same bytes (a read-modify-write, or daxpy's
 *    load of y[i] and the next instruction's store to it) becomes one call.
 * A merged call behaves exactly as the separate ones: same lines, same order;
 * the write always hits the line the read brought in.
 */
#ifndef RP_EMIT_H
#define RP_EMIT_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "sim_protocol.h"

enum { ACC_NONE, ACC_READ, ACC_WRITE, ACC_MODIFY };

typedef struct {
   Int     kind;
   IRExpr* addr;   /* address of the first byte */
   IRTemp  base;   /* addr = base + off when base != IRTemp_INVALID */
   Long    off;
   UWord   size;
} Access;

typedef struct {
   IRSB*  sb;
   ULong  pending[RPROF_SIM_NCOUNTERS];
   Access acc;
   /* tmp -> (base tmp, offset) for tmps defined as Add64(tmp, const). */
   IRTemp* base_of;
   Long*   off_of;
   /* --rp-functions: a tmp holding rp_fn_cnt's value here, or
    * IRTemp_INVALID (set to it where a helper may change rp_fn_cnt). */
   IRTemp  fn_cnt;
} Out;

/* Starts emitting into a copy of sbIn's header. */
void rp_emit_start(Out* o, const IRSB* sbIn);
/* --rp-functions: rp_fn_cnt's value, loaded if not known. */
IRTemp rp_emit_fn_cnt(Out* o);
/* Emits the pending increments (before an exit, at the end). */
void rp_emit_pending(Out* o);
/* A call to a cache-model helper fn(addr, size), under `guard` if not NULL. */
void rp_emit_call(Out* o, void* fn, const HChar* name, IRExpr* addr, UWord size,
                  IRExpr* guard);
/* A load or store of the program: counted, and merged or called. */
void rp_emit_access(Out* o, Int kind, IRExpr* addr, UWord size);
/* Emits the access being merged, if any. */
void rp_emit_flush_access(Out* o);
/* Records tmp = Add64(tmp', const) definitions, for merging. */
void rp_emit_note_tmp(Out* o, const IRStmt* st);

/* ---- output files: every file the tool writes is written here ----------
 * Both return False, having said so on the terminal, when path cannot be
 * written. */

/* --rp-out: "<counter name> <value>" lines, one per counter in
 * sim_protocol.h order. */
Bool rp_emit_totals(const HChar* path, const ULong* value);

/* --rp-fn-out: the per-function table (rp_fn.h), built first. Tab-separated
 * lines:
 *   rprof-sim-functions 1
 *   ctx <id> <parent id> <region name>
 *   fn <id> <object> <symbol> <start hex> <file> <line>
 *   c <ctx id> <fn id> <20 self counters in sim_protocol.h order>
 *   i <ctx id> <fn id> <20 inclusive counters>
 * and "overflow contexts" when marked regions were too many to tell apart,
 * "overflow calls <nodes>" when call paths were (inclusive counts are then
 * lower bounds). */
Bool rp_emit_functions(const HChar* path);

#endif
