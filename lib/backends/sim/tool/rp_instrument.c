/* rprof-sim: instrumenting a superblock.
 *
 * Pass 1 splits the superblock into guest instructions (IMark to IMark),
 * classifies each one's FP work (rp_flops.h) and decides which ones belong to
 * the marker (rp_exclude.h). Pass 2 copies the statements, adding counter
 * increments and cache-model calls (rp_emit.h) for the program's own
 * instructions, and running FMA lanes on the host (rp_fma.h).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "rp_emit.h"
#include "rp_exclude.h"
#include "rp_flops.h"
#include "rp_fma.h"
#include "rp_fn.h"
#include "rp_state.h"

typedef struct {
   Addr      addr;
   UInt      len;
   Int       imark;    /* statement index of its IMark */
   Int       first_fp; /* statement index where its FP work is counted, or -1 */
   Bool      is_call;  /* stores its own return address */
   Bool      skip;     /* marker code: not counted */
   RpFpCount fp;
} Insn;

static Insn* insns = NULL;
static Int insns_cap = 0;

static Bool is_true(const IRExpr* guard)
{
   return guard == NULL ||
          (guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1 &&
           guard->Iex.Const.con->Ico.U1);
}

/* ---- pass 1 ------------------------------------------------------------ */

static IROp op_of(const IRExpr* e)
{
   switch (e->tag) {
   case Iex_Unop: return e->Iex.Unop.op;
   case Iex_Binop: return e->Iex.Binop.op;
   case Iex_Triop: return e->Iex.Triop.details->op;
   case Iex_Qop: return e->Iex.Qop.details->op;
   default: return Iop_INVALID;
   }
}

/* Constant target of the superblock's final jump, or the value of the slot
 * it loads (`call *slot(%rip)`), or 0. */
static Addr final_target(const IRSB* sb)
{
   Int i;
   if (sb->next->tag == Iex_Const) return (Addr)sb->next->Iex.Const.con->Ico.U64;
   if (sb->next->tag != Iex_RdTmp) return 0;
   for (i = sb->stmts_used - 1; i >= 0; i--) {
      const IRStmt* st = sb->stmts[i];
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == sb->next->Iex.RdTmp.tmp) {
         const IRExpr* e = st->Ist.WrTmp.data;
         if (e->tag == Iex_Load && e->Iex.Load.addr->tag == Iex_Const)
            return rp_read_slot((Addr)e->Iex.Load.addr->Iex.Const.con->Ico.U64);
         return 0;
      }
   }
   return 0;
}

/* VEX unrolls small loops, and its common subexpression elimination then
 * turns a repeated op (a loop-invariant sqrt recomputed every iteration) into
 * a copy of the first copy's result. A repeated guest instruction is the same
 * instruction: it gets the FP work of its first copy in the superblock,
 * counted as soon as it starts. */
static void same_insn_same_fp(Int n)
{
   Int k, j;
   for (k = 1; k < n; k++) {
      for (j = 0; j < k; j++) {
         if (insns[j].addr == insns[k].addr && insns[j].len == insns[k].len) {
            insns[k].fp = insns[j].fp;
            insns[k].first_fp = insns[j].fp.n > 0 ? insns[k].imark : -1;
            break;
         }
      }
   }
}

static Int scan(const IRSB* sb)
{
   Int i, n = 0, cur = -1;
   RpFpAcc acc;
   for (i = 0; i < sb->stmts_used; i++) {
      const IRStmt* st = sb->stmts[i];
      if (st->tag == Ist_IMark) n++;
   }
   if (n > insns_cap) {
      insns_cap = n * 2;
      insns = VG_(realloc)("rp.insns", insns, insns_cap * sizeof(Insn));
   }

   for (i = 0; i < sb->stmts_used; i++) {
      const IRStmt* st = sb->stmts[i];
      if (st->tag == Ist_IMark) {
         if (cur >= 0) rp_fp_classify(&acc, &insns[cur].fp);
         cur++;
         VG_(memset)(&insns[cur], 0, sizeof(Insn));
         VG_(memset)(&acc, 0, sizeof(acc));
         insns[cur].addr = (Addr)st->Ist.IMark.addr;
         insns[cur].len = st->Ist.IMark.len;
         insns[cur].imark = i;
         insns[cur].first_fp = -1;
      } else if (cur < 0) {
         continue;
      } else if (st->tag == Ist_WrTmp) {
         const IROp op = op_of(st->Ist.WrTmp.data);
         if (op != Iop_INVALID && rp_fp_add_op(&acc, op) && insns[cur].first_fp < 0)
            insns[cur].first_fp = i;
      } else if (st->tag == Ist_Store) {
         const IRExpr* d = st->Ist.Store.data;
         if (d->tag == Iex_Const && d->Iex.Const.con->tag == Ico_U64 &&
             d->Iex.Const.con->Ico.U64 == insns[cur].addr + insns[cur].len)
            insns[cur].is_call = True;
      }
   }
   if (cur >= 0) rp_fp_classify(&acc, &insns[cur].fp);
   same_insn_same_fp(n);
   for (i = 0; i < n; i++) {
      Insn* in = &insns[i];
      in->skip = rp_is_runtime(in->addr) || rp_is_stub_into_runtime(in->addr, in->len);
      if (!in->skip && in->is_call) {
         Addr target = 0;
         const Addr fall = in->addr + in->len;
         if (i + 1 < n && insns[i + 1].addr != fall) {
            target = insns[i + 1].addr; /* VEX chased into the callee */
         } else if (i + 1 == n && sb->jumpkind == Ijk_Call) {
            target = final_target(sb);
         }
         in->skip = rp_leads_to_runtime(target);
      }
   }
   return n;
}

/* ---- pass 2 ------------------------------------------------------------ */

/* t = a load of type ty from the tool's own variable at addr. */
static IRTemp emit_load(Out* o, IRType ty, const void* addr)
{
   IRTemp t = newIRTemp(o->sb->tyenv, ty);
   addStmtToIRSB(o->sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, ty, mkIRExpr_HWord((HWord)addr))));
   return t;
}

/* --rp-functions: `if (rp_fn_cur != fn) rp_fn_switch(fn, SP)`, after the
 * counts of the instructions before it have been added to *rp_fn_cnt.
 * `other`: the superblock ran another function just before (VEX chased a
 * call or a jump into fn): rp_fn_cur is that one, or counting is suspended
 * and the helper does nothing, so the call needs no test. */
static void emit_fn_switch(Out* o, UInt fn, Int offset_sp, Bool other)
{
   IRTemp sp = newIRTemp(o->sb->tyenv, Ity_I64);
   IRDirty* di;
   rp_emit_flush_access(o);
   rp_emit_pending(o);
   addStmtToIRSB(o->sb, IRStmt_WrTmp(sp, IRExpr_Get(offset_sp, Ity_I64)));
   di = unsafeIRDirty_0_N(2, "rp_fn_switch", VG_(fnptr_to_fnentry)(rp_fn_switch),
                          mkIRExprVec_2(mkIRExpr_HWord(fn), IRExpr_RdTmp(sp)));
   if (!other) {
      IRTemp cur = emit_load(o, Ity_I32, &rp_fn_cur);
      IRTemp ne = newIRTemp(o->sb->tyenv, Ity_I1);
      addStmtToIRSB(o->sb, IRStmt_WrTmp(ne, IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(cur),
                                                         IRExpr_Const(IRConst_U32(fn)))));
      di->guard = IRExpr_RdTmp(ne);
   }
   addStmtToIRSB(o->sb, IRStmt_Dirty(di));
   o->fn_cnt = IRTemp_INVALID;
}

/* A leaf call site (rp_fn.h): the call at insns[k] chased into fn, or fn's
 * entry at the start of the superblock, and the rest of the superblock is fn
 * alone, ending in its return. A side exit taken leaves with the caller's
 * counters (rp_instrument stores them before each exit, and the callee's
 * after it): where it lands in fn the running function changes, as at any
 * jump into a function, and the helper gives it the node the site used. */
static Bool leaf_rest(const IRSB* sb, Int n, Int k, UInt fn)
{
   Int j;
   if (sb->jumpkind != Ijk_Ret) return False;
   for (j = k + 1; j < n; j++) {
      if (insns[j].skip) return False;
      if (insns[j - 1].addr + insns[j - 1].len != insns[j].addr && rp_fn_id_of(insns[j].addr) != fn)
         return False;
   }
   return True;
}

/* Entering a leaf call site (rp_fn.h):
 *    saved = rp_fn_cnt;
 *    if (s->caller != saved) rp_fn_leaf_resolve(s);
 *    rp_fn_cnt = to = s->callee;
 * (suspended, saved is the scratch array and so is s->callee). Returns
 * saved, stored back before the return and around each side exit (with `to`
 * after it), and sets *to. Plain stores, and `saved` used twice: with guarded
 * stores (IRStmt_StoreG) the caller's counts landed on the callee under
 * Valgrind 3.19, most likely because VEX's tree builder moved the single-use
 * load of `saved` past the guarded store to the same place (it was read after
 * the repointing). */
static IRTemp emit_leaf_enter(Out* o, RpLeaf* s, IRTemp* to_out)
{
   IRTemp saved, known, to;
   IRTemp other = newIRTemp(o->sb->tyenv, Ity_I1);
   IRDirty* di;
   rp_emit_flush_access(o);
   rp_emit_pending(o);
   saved = rp_emit_fn_cnt(o);
   known = emit_load(o, Ity_I64, &s->caller);
   addStmtToIRSB(o->sb, IRStmt_WrTmp(other, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(known),
                                                         IRExpr_RdTmp(saved))));
   di = unsafeIRDirty_0_N(1, "rp_fn_leaf_resolve", VG_(fnptr_to_fnentry)(rp_fn_leaf_resolve),
                          mkIRExprVec_1(mkIRExpr_HWord((HWord)s)));
   di->guard = IRExpr_RdTmp(other);
   addStmtToIRSB(o->sb, IRStmt_Dirty(di));
   to = emit_load(o, Ity_I64, &s->callee);
   addStmtToIRSB(o->sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rp_fn_cnt), IRExpr_RdTmp(to)));
   o->fn_cnt = to;
   *to_out = to;
   return saved;
}

IRSB* rp_instrument(VgCallbackClosure* closure, IRSB* sbIn,
                    const VexGuestLayout* layout, const VexGuestExtents* vge,
                    const VexArchInfo* archinfo_host, IRType gWordTy,
                    IRType hWordTy)
{
   Out o;
   Int i, k = -1, j, n, prev = -1;
   UInt sb_fn = 0;
   Bool host_fma;
   IRTemp leaf_saved = IRTemp_INVALID, leaf_to = IRTemp_INVALID;
   (void)closure; (void)vge; (void)archinfo_host;
   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
   if (!rp_clo_count) return sbIn;
   host_fma = rp_clo_host_fma && rp_fma_host_ok(archinfo_host);
   n = scan(sbIn);
   rp_emit_start(&o, sbIn);
   for (i = 0; i < sbIn->stmts_used; i++) {
      IRStmt* st = sbIn->stmts[i];
      const Insn* in = k >= 0 ? &insns[k] : NULL;
      if (st->tag == Ist_IMark) {
         k++;
         tl_assert(k < n);
         addStmtToIRSB(o.sb, st);
         if (rp_clo_functions && !insns[k].skip) {
            /* The function can only change where control did not fall
             * through from the previous instruction. */
            if (prev < 0 || insns[prev].addr + insns[prev].len != insns[k].addr) {
               const UInt fn = rp_fn_id_of(insns[k].addr);
               if (fn != sb_fn && ((prev >= 0 && insns[prev].is_call && sb_fn != 0) ||
                                   (prev < 0 && rp_fn_is_entry(fn, insns[k].addr))) &&
                   leaf_rest(sbIn, n, k, fn)) {
                  leaf_saved = emit_leaf_enter(&o, rp_fn_leaf_new(fn), &leaf_to);
               } else if (fn != sb_fn) {
                  emit_fn_switch(&o, fn, layout->offset_SP, sb_fn != 0);
               }
               sb_fn = fn;
            }
            prev = k;
         }
         if (insns[k].first_fp == i && !insns[k].skip) {
            for (j = 0; j < (Int)insns[k].fp.n; j++)
               o.pending[insns[k].fp.idx[j]] += insns[k].fp.val[j];
         }
         continue;
      }
      if (st->tag == Ist_Exit) {
         rp_emit_flush_access(&o);
         rp_emit_pending(&o);
         if (leaf_saved != IRTemp_INVALID) { /* taken: with the caller's counters */
            addStmtToIRSB(o.sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rp_fn_cnt),
                                             IRExpr_RdTmp(leaf_saved)));
            addStmtToIRSB(o.sb, st);
            addStmtToIRSB(o.sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rp_fn_cnt),
                                             IRExpr_RdTmp(leaf_to)));
            continue;
         }
         addStmtToIRSB(o.sb, st);
         continue;
      }
      if (st->tag == Ist_WrTmp) rp_emit_note_tmp(&o, st);
      if (in == NULL || in->skip) {
         addStmtToIRSB(o.sb, st);
         continue;
      }
      switch (st->tag) {
      case Ist_WrTmp: {
         IRExpr* e = st->Ist.WrTmp.data;
         if (i == in->first_fp) {
            for (j = 0; j < (Int)in->fp.n; j++) o.pending[in->fp.idx[j]] += in->fp.val[j];
         }
         if (!(host_fma && rp_fma_rewrite(o.sb, st))) addStmtToIRSB(o.sb, st);
         if (e->tag == Iex_Load)
            rp_emit_access(&o, ACC_READ, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty));
         break;
      }
      case Ist_Store:
         rp_emit_access(&o, ACC_WRITE, st->Ist.Store.addr,
                   sizeofIRType(typeOfIRExpr(sbIn->tyenv, st->Ist.Store.data)));
         addStmtToIRSB(o.sb, st);
         break;
      case Ist_LoadG: {
         IRLoadG* lg = st->Ist.LoadG.details;
         IRType ty = Ity_INVALID, wide = Ity_INVALID;
         typeOfIRLoadGOp(lg->cvt, &wide, &ty);
         rp_emit_flush_access(&o);
         addStmtToIRSB(o.sb, st);
         rp_emit_call(&o, rp_read_counted, "rp_read_counted", lg->addr,
                   sizeofIRType(ty), lg->guard);
         break;
      }
      case Ist_StoreG: {
         IRStoreG* sg = st->Ist.StoreG.details;
         rp_emit_flush_access(&o);
         rp_emit_call(&o, rp_write_counted, "rp_write_counted", sg->addr,
                   sizeofIRType(typeOfIRExpr(sbIn->tyenv, sg->data)), sg->guard);
         addStmtToIRSB(o.sb, st);
         break;
      }
      case Ist_CAS: {
         IRCAS* cas = st->Ist.CAS.details;
         UWord size = sizeofIRType(typeOfIRExpr(sbIn->tyenv, cas->dataLo));
         if (cas->dataHi != NULL) size *= 2;
         /* lock cmpxchg writes the location even when the compare fails. */
         rp_emit_flush_access(&o);
         o.pending[RPROF_SIM_L1_READ] += size;
         o.pending[RPROF_SIM_L1_WRITE] += size;
         rp_emit_call(&o, rp_modify, "rp_modify", cas->addr, size, NULL);
         addStmtToIRSB(o.sb, st);
         break;
      }
      case Ist_LLSC: {
         rp_emit_flush_access(&o);
         if (st->Ist.LLSC.storedata == NULL) {
            const UWord size = sizeofIRType(typeOfIRTemp(sbIn->tyenv, st->Ist.LLSC.result));
            rp_emit_call(&o, rp_read_counted, "rp_read_counted", st->Ist.LLSC.addr, size, NULL);
         } else {
            const UWord size = sizeofIRType(typeOfIRExpr(sbIn->tyenv, st->Ist.LLSC.storedata));
            rp_emit_call(&o, rp_write_counted, "rp_write_counted", st->Ist.LLSC.addr, size, NULL);
         }
         addStmtToIRSB(o.sb, st);
         break;
      }
      case Ist_Dirty: {
         IRDirty* d = st->Ist.Dirty.details;
         rp_emit_flush_access(&o);
         if (d->mFx != Ifx_None) {
            const UWord size = (UWord)d->mSize;
            const Bool rd = d->mFx == Ifx_Read || d->mFx == Ifx_Modify;
            const Bool wr = d->mFx == Ifx_Write || d->mFx == Ifx_Modify;
            if (is_true(d->guard)) {
               if (rd) o.pending[RPROF_SIM_L1_READ] += size;
               if (wr) o.pending[RPROF_SIM_L1_WRITE] += size;
               if (rd) rp_emit_call(&o, rp_read, "rp_read", d->mAddr, size, NULL);
               if (wr) rp_emit_call(&o, rp_write, "rp_write", d->mAddr, size, NULL);
            } else {
               if (rd) rp_emit_call(&o, rp_read_counted, "rp_read_counted", d->mAddr, size, d->guard);
               if (wr) rp_emit_call(&o, rp_write_counted, "rp_write_counted", d->mAddr, size, d->guard);
            }
         }
         addStmtToIRSB(o.sb, st);
         break;
      }
      default:
         addStmtToIRSB(o.sb, st);
         break;
      }
   }
   rp_emit_flush_access(&o);
   rp_emit_pending(&o);
   if (leaf_saved != IRTemp_INVALID) /* back to the caller's counters */
      addStmtToIRSB(o.sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rp_fn_cnt),
                                       IRExpr_RdTmp(leaf_saved)));
   return o.sb;
}
