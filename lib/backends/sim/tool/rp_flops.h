/* rprof-sim: floating-point work of one guest instruction, from its IR.
 *
 * Convention (as hardware FLOP counters): one FLOP per lane for add, sub,
 * mul, div, min, max, sqrt and the reciprocal estimates; FMA = 2 FLOPs per
 * lane; compares, conversions, negation, abs, rounding are not FLOPs.
 *
 * VEX loses some widths: a packed FMA arrives as one scalar MAddF64/MAddF32
 * per lane, a 256-bit horizontal add may arrive as two 128-bit adds, and
 * addsubpd as a full Add64Fx2 plus a full Sub64Fx2 merged lane by lane. So the
 * ops of one instruction (between two IMarks) are summed into lanes first and
 * the instruction is classified once:
 *   lanes  = lanes of all its ops (FMA lanes separately), minus the Sub lanes
 *            when Add and Sub vectors of the same shape both appear (addsub);
 *   width  = scalar for a single lane of scalar ops, else the smallest of
 *            128/256 bits holding max(widest vector op, lanes * element size);
 *   FLOPs  = lanes + 2 * FMA lanes, counted under that width;
 *   one FP instruction, under its dominant precision.
 */
#ifndef RP_FLOPS_H
#define RP_FLOPS_H

#include "pub_tool_basics.h"
#include "libvex_ir.h"

typedef struct {
   UInt lanes[2];     /* [0 = SP, 1 = DP]: non-FMA lanes */
   UInt fma_lanes[2];
   UInt vec_bits[2];  /* widest vector op, 0 when only scalar ops */
   UInt add_vec[2];   /* lanes of vector Add ops, for the addsub rule */
   UInt sub_vec[2];
} RpFpAcc;

/* FLOPs and FP instruction counts of one instruction, by counter index. */
typedef struct {
   UInt  n;           /* entries used */
   Int   idx[4];
   ULong val[4];
} RpFpCount;

/* Adds op's contribution to acc; False when op is not FP arithmetic. */
Bool rp_fp_add_op(RpFpAcc* acc, IROp op);
/* Turns an instruction's accumulated ops into counter increments. */
void rp_fp_classify(const RpFpAcc* acc, RpFpCount* out);

#endif
