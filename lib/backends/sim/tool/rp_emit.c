/* rprof-sim: emitting instrumentation (see rp_emit.h). */
#include "rp_emit.h"

#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "rp_cache.h"
#include "rp_state.h"

static IRTemp* base_tab = NULL;
static Long* off_tab = NULL;
static Int tab_cap = 0;

void rp_emit_start(Out* o, const IRSB* sbIn)
{
   const Int ntmps = sbIn->tyenv->types_used;
   Int i;
   VG_(memset)(o, 0, sizeof(*o));
   o->sb = deepCopyIRSBExceptStmts((IRSB*)sbIn);
   if (ntmps > tab_cap) {
      tab_cap = ntmps * 2;
      base_tab = VG_(realloc)("rp.base", base_tab, tab_cap * sizeof(IRTemp));
      off_tab = VG_(realloc)("rp.off", off_tab, tab_cap * sizeof(Long));
   }
   for (i = 0; i < ntmps; i++) base_tab[i] = IRTemp_INVALID;
   o->base_of = base_tab;
   o->off_of = off_tab;
}

static void emit_counter_add(IRSB* sb, Int k, ULong v)
{
   IRExpr* addr = mkIRExpr_HWord((HWord)&rp_live[k]);
   IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, addr)));
   addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
                                                   IRExpr_Const(IRConst_U64(v)))));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, addr, IRExpr_RdTmp(t2)));
}

void rp_emit_pending(Out* o)
{
   Int k;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) {
      if (o->pending[k] != 0) {
         emit_counter_add(o->sb, k, o->pending[k]);
         o->pending[k] = 0;
      }
   }
}

void rp_emit_call(Out* o, void* fn, const HChar* name, IRExpr* addr, UWord size,
                  IRExpr* guard)
{
   IRDirty* di = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn),
                                   mkIRExprVec_2(addr, mkIRExpr_HWord(size)));
   if (guard != NULL) di->guard = guard;
   addStmtToIRSB(o->sb, IRStmt_Dirty(di));
}

static IRExpr* tmp_of(IRSB* sb, IRExpr* e)
{
   IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
   return IRExpr_RdTmp(t);
}

static IRExpr* c64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }
static IRExpr* c8(UInt v) { return IRExpr_Const(IRConst_U8((UChar)v)); }

static Int log2_exact(ULong v)
{
   Int k = 0;
   if (v == 0 || (v & (v - 1)) != 0) return -1;
   while ((1ULL << k) < v) k++;
   return k;
}

/* The L1 hit filter, inline in the generated code: the guard "the access may
 * change the cache state", under which the helper is called. It is false
 * when the access lies in one line that is already the most recent way of its
 * L1 set (dirty already, for a write): the helper would change nothing (the
 * L1 bytes are added statically), so skipping it changes no count. Streaming
 * code hits so 7 of 8 scalar accesses cost a load and a compare instead of a
 * helper call. NULL (call always) when the geometry is not a power of two. */
static IRExpr* l1_may_change(Out* o, IRExpr* addr, UWord size, Bool write)
{
   IRSB* sb = o->sb;
   const ULong sets = rp_geom_l1.size / ((ULong)rp_geom_l1.assoc * rp_geom_l1.line);
   const Int set_bytes_log2 = log2_exact((ULong)rp_geom_l1.assoc * sizeof(UWord));
   IRExpr *ln, *tag, *want, *diff;
   if (log2_exact(sets) < 0 || set_bytes_log2 < 0) return NULL;
   ln = tmp_of(sb, IRExpr_Binop(Iop_Shr64, addr, c8(rp_line_shift)));
   tag = tmp_of(sb, IRExpr_Binop(
                        Iop_Add64,
                        tmp_of(sb, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&rp_l1.tags))),
                        tmp_of(sb, IRExpr_Binop(Iop_Shl64,
                                                tmp_of(sb, IRExpr_Binop(Iop_And64, ln, c64(sets - 1))),
                                                c8((UInt)set_bytes_log2)))));
   tag = tmp_of(sb, IRExpr_Load(Iend_LE, Ity_I64, tag));
   want = tmp_of(sb, IRExpr_Binop(Iop_Shl64, ln, c8(1)));
   if (write) {
      want = tmp_of(sb, IRExpr_Binop(Iop_Or64, want, c64(1)));
   } else {
      tag = tmp_of(sb, IRExpr_Binop(Iop_And64, tag, c64(~1ULL)));
   }
   diff = tmp_of(sb, IRExpr_Binop(Iop_Xor64, tag, want));
   if (size > 1) { /* and the last byte in the same line */
      IRExpr* last = tmp_of(sb, IRExpr_Binop(Iop_Add64, addr, c64(size - 1)));
      last = tmp_of(sb, IRExpr_Binop(Iop_Shr64, last, c8(rp_line_shift)));
      diff = tmp_of(sb, IRExpr_Binop(Iop_Or64, diff,
                                     tmp_of(sb, IRExpr_Binop(Iop_Xor64, last, ln))));
   }
   {
      IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
      addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE64, diff, c64(0))));
      return IRExpr_RdTmp(g);
   }
}

void rp_emit_flush_access(Out* o)
{
   Access* a = &o->acc;
   switch (a->kind) {
   case ACC_READ:
      rp_emit_call(o, rp_read, "rp_read", a->addr, a->size,
                   l1_may_change(o, a->addr, a->size, False));
      break;
   case ACC_WRITE:
      rp_emit_call(o, rp_write, "rp_write", a->addr, a->size,
                   l1_may_change(o, a->addr, a->size, True));
      break;
   case ACC_MODIFY:
      rp_emit_call(o, rp_modify, "rp_modify", a->addr, a->size,
                   l1_may_change(o, a->addr, a->size, True));
      break;
   default: break;
   }
   a->kind = ACC_NONE;
}

/* Splits an address atom into (base tmp, constant offset). */
static void split_addr(const Out* o, IRExpr* addr, IRTemp* base, Long* off)
{
   *base = IRTemp_INVALID;
   *off = 0;
   if (addr->tag == Iex_RdTmp) {
      const IRTemp t = addr->Iex.RdTmp.tmp;
      if (o->base_of[t] != IRTemp_INVALID) {
         *base = o->base_of[t];
         *off = o->off_of[t];
      } else {
         *base = t;
      }
   }
}

void rp_emit_access(Out* o, Int kind, IRExpr* addr, UWord size)
{
   Access* a = &o->acc;
   IRTemp base;
   Long off;
   split_addr(o, addr, &base, &off);
   o->pending[kind == ACC_READ ? RPROF_SIM_L1_READ : RPROF_SIM_L1_WRITE] += size;
   if (a->kind != ACC_NONE && base != IRTemp_INVALID && base == a->base) {
      if (kind == a->kind && kind != ACC_MODIFY && off == a->off + (Long)a->size) {
         a->size += size; /* contiguous */
         return;
      }
      if (kind == ACC_WRITE && a->kind == ACC_READ && off == a->off && size == a->size) {
         a->kind = ACC_MODIFY;
         return;
      }
   }
   rp_emit_flush_access(o);
   a->kind = kind;
   a->addr = addr;
   a->base = base;
   a->off = off;
   a->size = size;
}

void rp_emit_note_tmp(Out* o, const IRStmt* st)
{
   const IRExpr* e = st->Ist.WrTmp.data;
   if (e->tag == Iex_Binop && e->Iex.Binop.op == Iop_Add64 &&
       e->Iex.Binop.arg1->tag == Iex_RdTmp && e->Iex.Binop.arg2->tag == Iex_Const) {
      const IRTemp b = e->Iex.Binop.arg1->Iex.RdTmp.tmp;
      const Long c = (Long)e->Iex.Binop.arg2->Iex.Const.con->Ico.U64;
      const IRTemp t = st->Ist.WrTmp.tmp;
      if (o->base_of[b] != IRTemp_INVALID) {
         o->base_of[t] = o->base_of[b];
         o->off_of[t] = o->off_of[b] + c;
      } else {
         o->base_of[t] = b;
         o->off_of[t] = c;
      }
   }
}
