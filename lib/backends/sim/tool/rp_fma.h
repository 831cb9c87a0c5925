/* rprof-sim: fused multiply-add on the host's FMA unit.
 *
 * VEX 3.19 turns every FMA lane (MAddF64/MSubF64/MAddF32/MSubF32) into a call
 * to h_generic_calc_MAddF64, a software emulation of a correctly rounded fused
 * multiply-add that saves and restores MXCSR: it dominates the run time of FMA
 * code under any Valgrind tool (about two thirds of an AVX2 daxpy's). When the
 * host has FMA3, this replaces each such op, after it was counted, by a clean
 * call doing the same operation with one host vfmadd/vfmsub instruction: the
 * same correctly rounded result, several times faster. Only ops in
 * round-to-nearest (the mode amd64 guest code always passes) are replaced.
 * --rp-host-fma=no keeps Valgrind's emulation.
 */
#ifndef RP_FMA_H
#define RP_FMA_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* True when the host can run FMA3 (asked once, with CPUID). */
Bool rp_fma_host_ok(const VexArchInfo* host);
/* When `st` is `t = MAdd/MSub F32/F64 (nearest, x, y, z)`, adds its host-FMA
 * replacement to `sb` and returns True; otherwise returns False. */
Bool rp_fma_rewrite(IRSB* sb, const IRStmt* st);

#endif
