/* rprof-sim: fused multiply-add on the host's FMA unit (see rp_fma.h). */
#include "rp_fma.h"

#include "pub_tool_machine.h"

/* x * y + z and x * y - z on bit patterns (clean helpers take integers),
 * moved straight between general and vector registers. */
#define RP_FMA_HELPER(fn, mov, insn)                                        \
   static ULong fn(ULong x, ULong y, ULong z)                               \
   {                                                                        \
      ULong r;                                                              \
      __asm__(mov " %1, %%xmm0\n\t" mov " %2, %%xmm1\n\t" mov " %3, %%xmm2\n\t" \
              insn " %%xmm1, %%xmm0, %%xmm2\n\t" mov " %%xmm2, %0"          \
              : "=r"(r) : "r"(x), "r"(y), "r"(z) : "xmm0", "xmm1", "xmm2"); \
      return r;                                                             \
   }

RP_FMA_HELPER(fma_f64, "vmovq", "vfmadd231sd")
RP_FMA_HELPER(fms_f64, "vmovq", "vfmsub231sd")
RP_FMA_HELPER(fma_f32, "vmovd", "vfmadd231ss")
RP_FMA_HELPER(fms_f32, "vmovd", "vfmsub231ss")

Bool rp_fma_host_ok(const VexArchInfo* host)
{
   static Int known = -1;
   if (known < 0) {
      UInt a = 1, b, c = 0, d;
      known = 0;
      /* FMA3 needs the AVX register state, which VEX only reports (as
         AVX2) when the OS enables it. */
      if (host->hwcaps & VEX_HWCAPS_AMD64_AVX2) {
         __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
         known = (c >> 12) & 1;
      }
   }
   return known == 1;
}

static IRExpr* as_i64(IRSB* sb, IRExpr* e, Bool f64)
{
   IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
   if (f64) {
      addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_ReinterpF64asI64, e)));
   } else {
      IRTemp t32 = newIRTemp(sb->tyenv, Ity_I32);
      addStmtToIRSB(sb, IRStmt_WrTmp(t32, IRExpr_Unop(Iop_ReinterpF32asI32, e)));
      addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_32Uto64, IRExpr_RdTmp(t32))));
   }
   return IRExpr_RdTmp(t);
}

Bool rp_fma_rewrite(IRSB* sb, const IRStmt* st)
{
   const IRExpr* e = st->Ist.WrTmp.data;
   const IRQop* q;
   void* fn;
   const HChar* name;
   Bool f64;
   IRExpr *x, *y, *z;
   IRTemp r;
   if (e->tag != Iex_Qop) return False;
   q = e->Iex.Qop.details;
   switch (q->op) {
   case Iop_MAddF64: fn = fma_f64; name = "rp_fma_f64"; f64 = True; break;
   case Iop_MSubF64: fn = fms_f64; name = "rp_fms_f64"; f64 = True; break;
   case Iop_MAddF32: fn = fma_f32; name = "rp_fma_f32"; f64 = False; break;
   case Iop_MSubF32: fn = fms_f32; name = "rp_fms_f32"; f64 = False; break;
   default: return False;
   }
   if (q->arg1->tag != Iex_Const || q->arg1->Iex.Const.con->tag != Ico_U32 ||
       q->arg1->Iex.Const.con->Ico.U32 != Irrm_NEAREST)
      return False;
   x = as_i64(sb, q->arg2, f64);
   y = as_i64(sb, q->arg3, f64);
   z = as_i64(sb, q->arg4, f64);
   r = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(r, IRExpr_CCall(mkIRCallee(0, name, VG_(fnptr_to_fnentry)(fn)),
                                                  Ity_I64, mkIRExprVec_3(x, y, z))));
   if (f64) {
      addStmtToIRSB(sb, IRStmt_WrTmp(st->Ist.WrTmp.tmp,
                                     IRExpr_Unop(Iop_ReinterpI64asF64, IRExpr_RdTmp(r))));
   } else {
      IRTemp r32 = newIRTemp(sb->tyenv, Ity_I32);
      addStmtToIRSB(sb, IRStmt_WrTmp(r32, IRExpr_Unop(Iop_64to32, IRExpr_RdTmp(r))));
      addStmtToIRSB(sb, IRStmt_WrTmp(st->Ist.WrTmp.tmp,
                                     IRExpr_Unop(Iop_ReinterpI32asF32, IRExpr_RdTmp(r32))));
   }
   return True;
}
