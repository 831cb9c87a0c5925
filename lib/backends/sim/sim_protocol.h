/* The contract between rprof's Valgrind tool (lib/backends/sim/tool, C, built
 * against Valgrind's headers) and the runtime's `sim` backend (linked into user
 * programs): client-request numbers and the counters, in order.
 *
 * Plain C with no includes, so both sides (and the launcher) can use it.
 * Counter names are the canonical ones of lib/profile/metrics.h:
 *   flops.<sp|dp>.<scalar|128|256>   FLOPs, FMA = 2, one per lane
 *   fpins.<sp|dp>.<scalar|128|256>   FP arithmetic instructions
 *   bytes.l1.read/write    bytes the program loads/stores (core<->L1)
 *   bytes.l2.read/write    L2->L1 fills / L1->L2 write-backs
 *   bytes.llc.read/write   LLC->L2 fills / L2->LLC write-backs
 *   bytes.dram.read/write  DRAM->LLC fills / LLC->DRAM write-backs
 * 512-bit classes are absent: Valgrind 3.19 cannot run AVX-512 code at all.
 */
#ifndef RPROF_BACKENDS_SIM_SIM_PROTOCOL_H_
#define RPROF_BACKENDS_SIM_SIM_PROTOCOL_H_

/* Client requests: VG_USERREQ_TOOL_BASE('R','P') + offset. */
#define RPROF_SIM_REQ_PING 0    /* returns RPROF_SIM_PROTOCOL */
#define RPROF_SIM_REQ_READ 1    /* (uint64_t* out, n): running thread's counters; returns n copied */
#define RPROF_SIM_REQ_SUSPEND 2 /* stop counting on this thread (rprof's own work) */
#define RPROF_SIM_REQ_RESUME 3  /* undo what was counted since SUSPEND, count again */
#define RPROF_SIM_REQ_PUSH 4    /* (region id, const char* name): a marked region opened */
#define RPROF_SIM_REQ_POP 5     /* the innermost marked region closed */

/* SUSPEND/RESUME bracket everything the runtime does outside its own code:
 * marker bookkeeping, start-up, thread registration, flushes and the writer
 * at exit. They nest per thread (a flush from a signal handler may run inside
 * a marker): counting resumes at the RESUME matching the outermost SUSPEND,
 * and a RESUME without a SUSPEND is ignored. While suspended, the cache
 * model sees no access, so rprof's work leaves the simulated caches as the
 * program left them.
 *
 * Bump when the request set, their meaning or the counter list changes.
 * PUSH/POP tell the tool the running thread's innermost marked region (for
 * the function view's region/function counts); the runtime sends them while
 * counting is suspended, after a successful begin and end.
 *
 * 2: SUSPEND/RESUME nest. 3: PUSH/POP. */
#define RPROF_SIM_PROTOCOL 0x52500003u

/* X-macro of the counters: X(index, name). */
#define RPROF_SIM_COUNTERS(X)      \
  X(0, "flops.sp.scalar")          \
  X(1, "flops.sp.128")             \
  X(2, "flops.sp.256")             \
  X(3, "flops.dp.scalar")          \
  X(4, "flops.dp.128")             \
  X(5, "flops.dp.256")             \
  X(6, "fpins.sp.scalar")          \
  X(7, "fpins.sp.128")             \
  X(8, "fpins.sp.256")             \
  X(9, "fpins.dp.scalar")          \
  X(10, "fpins.dp.128")            \
  X(11, "fpins.dp.256")            \
  X(12, "bytes.l1.read")           \
  X(13, "bytes.l1.write")          \
  X(14, "bytes.l2.read")           \
  X(15, "bytes.l2.write")          \
  X(16, "bytes.llc.read")          \
  X(17, "bytes.llc.write")         \
  X(18, "bytes.dram.read")         \
  X(19, "bytes.dram.write")

#define RPROF_SIM_NCOUNTERS 20

/* Index helpers: precision p (0 = SP, 1 = DP), width class w (0 = scalar,
 * 1 = 128-bit, 2 = 256-bit). */
#define RPROF_SIM_FLOPS(p, w) ((p) * 3 + (w))
#define RPROF_SIM_FPINS(p, w) (6 + (p) * 3 + (w))
#define RPROF_SIM_L1_READ 12
#define RPROF_SIM_L1_WRITE 13
#define RPROF_SIM_L2_READ 14
#define RPROF_SIM_L2_WRITE 15
#define RPROF_SIM_LLC_READ 16
#define RPROF_SIM_LLC_WRITE 17
#define RPROF_SIM_DRAM_READ 18
#define RPROF_SIM_DRAM_WRITE 19

/* The Valgrind tool's name (file rprof-sim-amd64-linux in VALGRIND_LIB). */
#define RPROF_SIM_TOOL_NAME "rprof-sim"

#endif /* RPROF_BACKENDS_SIM_SIM_PROTOCOL_H_ */
