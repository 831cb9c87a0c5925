/* rprof-sim: which IR ops are FP arithmetic, and how an instruction is
 * classified (rules in rp_flops.h). */
#include "rp_flops.h"

#include "sim_protocol.h"

enum { K_OTHER = 0, K_ADD = 1, K_SUB = 2 };

typedef struct {
   UChar prec;  /* 0 = SP, 1 = DP */
   UChar lanes; /* lanes computed */
   UShort bits; /* vector width in bits; 0 for scalar ops */
   UChar fma;
   UChar kind;
} OpInfo;

static Bool op_info(IROp op, OpInfo* o)
{
   o->fma = 0;
   o->kind = K_OTHER;
   switch (op) {
   /* Scalar DP: x87 and SSE lowest-lane ops. */
   case Iop_AddF64: case Iop_SubF64: case Iop_MulF64: case Iop_DivF64:
   case Iop_AddF64r32: case Iop_SubF64r32: case Iop_MulF64r32:
   case Iop_DivF64r32: case Iop_SqrtF64:
   case Iop_MaxNumF64: case Iop_MinNumF64:
   case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Mul64F0x2:
   case Iop_Div64F0x2: case Iop_Max64F0x2: case Iop_Min64F0x2:
   case Iop_Sqrt64F0x2:
      o->prec = 1; o->lanes = 1; o->bits = 0; return True;
   /* Scalar SP. */
   case Iop_AddF32: case Iop_SubF32: case Iop_MulF32: case Iop_DivF32:
   case Iop_SqrtF32: case Iop_MaxNumF32: case Iop_MinNumF32:
   case Iop_Add32F0x4: case Iop_Sub32F0x4: case Iop_Mul32F0x4:
   case Iop_Div32F0x4: case Iop_Max32F0x4: case Iop_Min32F0x4:
   case Iop_Sqrt32F0x4: case Iop_RecipEst32F0x4: case Iop_RSqrtEst32F0x4:
      o->prec = 0; o->lanes = 1; o->bits = 0; return True;
   /* Fused multiply-add: one lane each, 2 FLOPs. */
   case Iop_MAddF64: case Iop_MSubF64: case Iop_MAddF64r32:
   case Iop_MSubF64r32:
      o->prec = 1; o->lanes = 1; o->bits = 0; o->fma = 1; return True;
   case Iop_MAddF32: case Iop_MSubF32:
      o->prec = 0; o->lanes = 1; o->bits = 0; o->fma = 1; return True;
   /* 128-bit DP. */
   case Iop_Add64Fx2:
      o->kind = K_ADD; o->prec = 1; o->lanes = 2; o->bits = 128; return True;
   case Iop_Sub64Fx2:
      o->kind = K_SUB; o->prec = 1; o->lanes = 2; o->bits = 128; return True;
   case Iop_Mul64Fx2: case Iop_Div64Fx2: case Iop_Max64Fx2:
   case Iop_Min64Fx2: case Iop_Sqrt64Fx2: case Iop_RecipEst64Fx2:
   case Iop_RSqrtEst64Fx2:
      o->prec = 1; o->lanes = 2; o->bits = 128; return True;
   /* 128-bit SP. */
   case Iop_Add32Fx4:
      o->kind = K_ADD; o->prec = 0; o->lanes = 4; o->bits = 128; return True;
   case Iop_Sub32Fx4:
      o->kind = K_SUB; o->prec = 0; o->lanes = 4; o->bits = 128; return True;
   case Iop_Mul32Fx4: case Iop_Div32Fx4: case Iop_Max32Fx4:
   case Iop_Min32Fx4: case Iop_Sqrt32Fx4: case Iop_RecipEst32Fx4:
   case Iop_RSqrtEst32Fx4:
      o->prec = 0; o->lanes = 4; o->bits = 128; return True;
   /* 64-bit SP pairs (not generated for amd64 SSE, kept for completeness). */
   case Iop_Add32Fx2:
      o->kind = K_ADD; o->prec = 0; o->lanes = 2; o->bits = 64; return True;
   case Iop_Sub32Fx2:
      o->kind = K_SUB; o->prec = 0; o->lanes = 2; o->bits = 64; return True;
   case Iop_Mul32Fx2: case Iop_Max32Fx2: case Iop_Min32Fx2:
   case Iop_RecipEst32Fx2: case Iop_RSqrtEst32Fx2: case Iop_PwAdd32Fx2:
      o->prec = 0; o->lanes = 2; o->bits = 64; return True;
   /* 256-bit DP. */
   case Iop_Add64Fx4:
      o->kind = K_ADD; o->prec = 1; o->lanes = 4; o->bits = 256; return True;
   case Iop_Sub64Fx4:
      o->kind = K_SUB; o->prec = 1; o->lanes = 4; o->bits = 256; return True;
   case Iop_Mul64Fx4: case Iop_Div64Fx4: case Iop_Sqrt64Fx4:
   case Iop_Max64Fx4: case Iop_Min64Fx4:
      o->prec = 1; o->lanes = 4; o->bits = 256; return True;
   /* 256-bit SP. */
   case Iop_Add32Fx8:
      o->kind = K_ADD; o->prec = 0; o->lanes = 8; o->bits = 256; return True;
   case Iop_Sub32Fx8:
      o->kind = K_SUB; o->prec = 0; o->lanes = 8; o->bits = 256; return True;
   case Iop_Mul32Fx8: case Iop_Div32Fx8: case Iop_Sqrt32Fx8:
   case Iop_RSqrtEst32Fx8: case Iop_RecipEst32Fx8: case Iop_Max32Fx8:
   case Iop_Min32Fx8:
      o->prec = 0; o->lanes = 8; o->bits = 256; return True;
   default:
      return False;
   }
}

Bool rp_fp_add_op(RpFpAcc* acc, IROp op)
{
   OpInfo o;
   if (!op_info(op, &o)) return False;
   if (o.fma) {
      acc->fma_lanes[o.prec] += o.lanes;
   } else {
      acc->lanes[o.prec] += o.lanes;
   }
   if (o.bits > acc->vec_bits[o.prec]) acc->vec_bits[o.prec] = o.bits;
   if (o.bits >= 128 && o.kind == K_ADD) acc->add_vec[o.prec] += o.lanes;
   if (o.bits >= 128 && o.kind == K_SUB) acc->sub_vec[o.prec] += o.lanes;
   return True;
}

void rp_fp_classify(const RpFpAcc* acc, RpFpCount* out)
{
   ULong flops[2] = {0, 0};
   Int width[2] = {0, 0};
   Int p;
   out->n = 0;
   for (p = 0; p < 2; p++) {
      UInt lanes = acc->lanes[p];
      UInt total, bits;
      const UInt elem = p ? 64 : 32;
      /* addsub: Add and Sub of the same full width, merged lane by lane. */
      if (acc->add_vec[p] > 0 && acc->add_vec[p] == acc->sub_vec[p])
         lanes -= acc->sub_vec[p];
      total = lanes + acc->fma_lanes[p];
      if (total == 0) continue;
      if (acc->vec_bits[p] == 0 && total == 1) {
         width[p] = 0;
      } else {
         bits = total * elem;
         if (acc->vec_bits[p] > bits) bits = acc->vec_bits[p];
         width[p] = bits <= 128 ? 1 : 2;
      }
      flops[p] = (ULong)lanes + 2ULL * acc->fma_lanes[p];
      out->idx[out->n] = RPROF_SIM_FLOPS(p, width[p]);
      out->val[out->n] = flops[p];
      out->n++;
   }
   if (out->n > 0) {
      const Int dom = flops[1] >= flops[0] ? 1 : 0;
      out->idx[out->n] = RPROF_SIM_FPINS(dom, width[dom]);
      out->val[out->n] = 1;
      out->n++;
   }
}
