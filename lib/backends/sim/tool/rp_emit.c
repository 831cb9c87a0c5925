/* rprof-sim: emitting instrumentation and output files (see rp_emit.h). */
#include "rp_emit.h"

#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "rp_cache.h"
#include "pub_tool_vki.h"
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
   o->fn_cnt = IRTemp_INVALID;
}

/* *addr += v, the counter's address given for the load and for the store
 * (the same place: two expressions, so that each may be used once). */
static void emit_add(IRSB* sb, IRExpr* load_at, IRExpr* store_at, ULong v)
{
   IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, load_at)));
   addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
                                                   IRExpr_Const(IRConst_U64(v)))));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, store_at, IRExpr_RdTmp(t2)));
}

/* A new temporary: the address of counter k in the array at base. */
static IRExpr* cnt_at(IRSB* sb, IRTemp base, Int k)
{
   IRTemp at;
   if (k == 0) return IRExpr_RdTmp(base);
   at = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(at, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base),
                                                   IRExpr_Const(IRConst_U64(k * sizeof(ULong))))));
   return IRExpr_RdTmp(at);
}

IRTemp rp_emit_fn_cnt(Out* o)
{
   if (o->fn_cnt == IRTemp_INVALID) {
      o->fn_cnt = newIRTemp(o->sb->tyenv, Ity_I64);
      addStmtToIRSB(o->sb, IRStmt_WrTmp(o->fn_cnt, IRExpr_Load(Iend_LE, Ity_I64,
                                                               mkIRExpr_HWord((HWord)&rp_fn_cnt))));
   }
   return o->fn_cnt;
}

void rp_emit_pending(Out* o)
{
   Int k;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) {
      if (o->pending[k] == 0) continue;
      if (!rp_clo_functions) {
         IRExpr* at = mkIRExpr_HWord((HWord)&rp_live[k]);
         emit_add(o->sb, at, at, o->pending[k]);
      } else {
         /* To the running function's counters (rp_fn.h), the thread's totals
          * from them: the pointer is read after any switch before it. The
          * load and the store each get an address temporary of their own:
          * used once, VEX folds it into the instruction. */
         const IRTemp fn_cnt = rp_emit_fn_cnt(o);
         emit_add(o->sb, cnt_at(o->sb, fn_cnt, k), cnt_at(o->sb, fn_cnt, k), o->pending[k]);
      }
      o->pending[k] = 0;
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

void rp_emit_flush_access(Out* o)
{
   Access* a = &o->acc;
   switch (a->kind) {
   case ACC_READ: rp_emit_call(o, rp_read, "rp_read", a->addr, a->size, NULL); break;
   case ACC_WRITE: rp_emit_call(o, rp_write, "rp_write", a->addr, a->size, NULL); break;
   case ACC_MODIFY: rp_emit_call(o, rp_modify, "rp_modify", a->addr, a->size, NULL); break;
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

/* ---- output files ------------------------------------------------------ */

typedef struct {
   Int   fd;
   HChar buf[8192];
   Int   used;
} Writer;

static Writer w;

static Bool w_open(const HChar* path)
{
   SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
   if (sr_isError(sr)) {
      VG_(umsg)("rprof-sim: cannot write %s\n", path);
      return False;
   }
   w.fd = (Int)sr_Res(sr);
   w.used = 0;
   return True;
}

static void w_flush(void)
{
   if (w.used > 0) VG_(write)(w.fd, w.buf, w.used);
   w.used = 0;
}

static void w_close(void)
{
   w_flush();
   VG_(close)(w.fd);
}

static void w_str(const HChar* s)
{
   while (*s) {
      if (w.used == (Int)sizeof(w.buf)) w_flush();
      w.buf[w.used++] = *s++;
   }
}

static void w_fmt_ull(const HChar* fmt, ULong v)
{
   HChar tmp[64];
   VG_(snprintf)(tmp, sizeof(tmp), fmt, v);
   w_str(tmp);
}

static const HChar* const counter_names[RPROF_SIM_NCOUNTERS] = {
#define RP_NAME(i, name) name,
   RPROF_SIM_COUNTERS(RP_NAME)
#undef RP_NAME
};

Bool rp_emit_totals(const HChar* path, const ULong* value)
{
   Int k;
   if (!w_open(path)) return False;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) {
      w_str(counter_names[k]);
      w_fmt_ull(" %llu\n", value[k]);
   }
   w_close();
   return True;
}

Bool rp_emit_functions(const HChar* path)
{
   const UInt nctx = rp_fn_nctx(), nfns = rp_fn_nfns();
   UInt c, f;
   Int k;
   if (!w_open(path)) return False;
   rp_fn_table_build();
   w_str("rprof-sim-functions 1\n");
   if (rp_fn_ctx_overflow()) w_str("overflow contexts\n");
   if (rp_fn_tree_overflow()) w_fmt_ull("overflow calls %llu\n", rp_clo_fn_max_paths);
   for (c = 1; c < nctx; c++) {
      UInt parent;
      const HChar* name;
      rp_fn_ctx_of(c, &parent, &name);
      w_fmt_ull("ctx\t%llu", c);
      w_fmt_ull("\t%llu\t", parent);
      w_str(name);
      w_str("\n");
   }
   for (f = 1; f < nfns; f++) {
      const HChar *obj, *sym, *file;
      Addr start;
      UInt line;
      rp_fn_describe(f, &obj, &sym, &start, &file, &line);
      w_fmt_ull("fn\t%llu\t", f);
      w_str(obj);
      w_str("\t");
      w_str(sym);
      w_fmt_ull("\t%llx\t", start);
      w_str(file);
      w_fmt_ull("\t%llu\n", line);
   }
   for (c = 0; c < nctx; c++) {
      const UInt end = rp_fn_counts_end(c);
      for (f = 0; f < end; f++) {
         const ULong* v = rp_fn_counts(c, f);
         Bool any = False;
         if (v == NULL) continue;
         for (k = 0; k < 2 * RPROF_SIM_NCOUNTERS; k++) any = any || v[k] != 0;
         if (!any) continue;
         w_fmt_ull("c\t%llu", c);
         w_fmt_ull("\t%llu", f);
         for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) w_fmt_ull("\t%llu", v[k]);
         w_fmt_ull("\ni\t%llu", c);
         w_fmt_ull("\t%llu", f);
         for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) w_fmt_ull("\t%llu", v[RPROF_SIM_NCOUNTERS + k]);
         w_str("\n");
      }
   }
   w_close();
   return True;
}
