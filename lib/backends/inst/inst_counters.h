/* The counters an rprof-instrumented program keeps: the contract between the
 * GCC plugin (plugin/rprof_inst_plugin.cpp), which writes the updates into the
 * program, the program's run-time object (inst_rt.c), and the runtime backend
 * (inst_backend.cpp), which reads them at every marker.
 *
 * Each thread of the program has one array of RPROF_INST_NCOUNTERS unsigned
 * 64-bit counters, __rprof_inst_ctr (thread-local, initial-exec). Index i
 * counts what rprof_inst_counter_names[i] says, in the runtime's canonical
 * counter names (docs/profile-schema.md). Plain C: included by the plugin
 * (C++), the run-time object (C) and the runtime (C++). */
#ifndef RPROF_BACKENDS_INST_INST_COUNTERS_H_
#define RPROF_BACKENDS_INST_INST_COUNTERS_H_

/* FLOPs (FMA = 2 per lane) and FP arithmetic instructions by precision
 * (0 sp, 1 dp) and width (0 scalar, 1 128, 2 256, 3 512):
 *   flops  at  p * 4 + w,   fp instructions at 8 + p * 4 + w;
 * then bytes loaded and stored by the program's own (instrumented) code. */
#define RPROF_INST_FLOPS(p, w) ((p) * 4 + (w))
#define RPROF_INST_FPINS(p, w) (8 + (p) * 4 + (w))
#define RPROF_INST_BYTES_READ 16
#define RPROF_INST_BYTES_WRITE 17
#define RPROF_INST_NCOUNTERS 18

/* The array's size in the program: room to grow without breaking binaries
 * built with an older plugin. */
#define RPROF_INST_ARRAY 32

/* Memory accesses for the cache model (plugin option memory=on, the
 * default): set sampling. counters[RPROF_INST_SET_BITS] (B, 64 bits)
 * selects the accesses passed on: each statement that accesses memory,
 * before it runs, calls RPROF_INST_LOAD_SYMBOL(addr, bytes) or
 * RPROF_INST_STORE_SYMBOL(addr, bytes) for each of its accesses (a
 * read-modify-write of memory: a load, then a store) when for one of them
 * bit ((addr >> 6) & 63) of B is set, or that of (addr + bytes - 1), or
 * bytes > 64 and B != 0: a bit per 64-byte line modulo 64, one test (x86's
 * bt) per end of an access. With 1 line in F sampled, F <= 64, B has the
 * bits c, c + F, c + 2F, ... of the fixed class c, and those of the
 * rotating class d while one runs (inst_sample.h): every access that
 * touches a line whose number is c or d modulo F (and the accesses beside
 * them in the statement, and every access of more than 64 bytes: the
 * callee keeps the lines it samples); F > 64, or lines of another size: a
 * superset, which the callee narrows. B = all ones: every access; B = 0:
 * none. The accesses are exactly those the byte counters count, with the
 * same sizes (memcpy/memmove/mempcpy: a load of n bytes at the source, then
 * a store of n at the destination; memset: a store of n), so with every
 * access passed the bytes add up to what RPROF_INST_BYTES_READ/WRITE count.
 * The run-time object starts every thread's B = 0 (nothing is called) and
 * forwards the calls to librprof's RPROF_INST_RT_MEM(addr, bytes,
 * is_store), which sets B. A unit built with memory=on says so in its calls
 * note (an entry "M"). */
#define RPROF_INST_SET_BITS 24
#define RPROF_INST_LOAD_SYMBOL "__rprof_inst_load"
#define RPROF_INST_STORE_SYMBOL "__rprof_inst_store"
#define RPROF_INST_RT_MEM "rprof_inst_mem"

/* Loop versions (plugin option versions=on, the default when optimizing):
 * each loop nest is compiled as a plain copy that counts nothing and passes
 * no access on (it keeps the nest's region entry and exit), a counted copy,
 * and, in a unit built with memory=on, a counted copy that also passes its
 * accesses on (RPROF_INST_SET_BITS). Where the nest is entered the int
 * RPROF_INST_COUNTING_SYMBOL (process-wide, the run-time object's) picks
 * one: 0 plain, 1 counted, 2 counted with accesses. The run-time object
 * sets it at start-up from RPROF_INST_COUNTING_ENV ("1" or "2"); unset, the
 * program's loops run at native speed. A unit with a versioned nest says so
 * in its calls note (an entry "V"). */
#define RPROF_INST_COUNTING_SYMBOL "__rprof_inst_counting"
#define RPROF_INST_COUNTING_ENV "RPROF_INST_COUNTING"
/* The symbol names the plugin, the run-time object and the runtime share. */
#define RPROF_INST_COUNTERS_SYMBOL "__rprof_inst_ctr"
/* Called by the program's run-time object at start-up (found with dlsym in
 * the runtime, librprof): hands the runtime the function that returns the
 * calling thread's counter array, and the counters' layout version. */
#define RPROF_INST_ATTACH_SYMBOL "rprof_inst_attach"
#define RPROF_INST_LAYOUT_VERSION 3

/* Functions and loop nests as regions (plugin option regions=, on by
 * default): instrumented code calls RPROF_INST_ENTER_SYMBOL(name, kind, cfa)
 * (cfa: the function's canonical frame address, __builtin_dwarf_cfa()) when
 * a function that has loops starts and when a loop nest (an outermost loop)
 * is entered, and RPROF_INST_EXIT_SYMBOL(name) when it returns or the nest is
 * left. name: a string constant, one per function or loop ("daxpy()",
 * "loop daxpy.c:12"), the same pointer at entry and exit; kind: 1 function, 2
 * loop nest. Both are the program's run-time object's (inst_rt.c), which
 * forwards them to librprof's RPROF_INST_RT_ENTER/EXIT when rprof runs it. */
#define RPROF_INST_ENTER_SYMBOL "__rprof_inst_enter"
#define RPROF_INST_EXIT_SYMBOL "__rprof_inst_exit"
#define RPROF_INST_KIND_FUNCTION 1
#define RPROF_INST_KIND_LOOP 2
#define RPROF_INST_RT_ENTER "rprof_inst_enter"
#define RPROF_INST_RT_EXIT "rprof_inst_exit"
/* Set by the inst driver for the run: "all" (functions and loop nests are
 * regions everywhere: a program without markers), "marked" (only inside a
 * marker's region: the program has markers), "none". Unset: none (another
 * backend's run of an instrumented program keeps the marked regions only). */
#define RPROF_INST_REGIONS_ENV "RPROF_INST_REGIONS"

/* Calls from instrumented code to functions it does not define (code that may
 * be built without the plugin): one note per translation unit, in section
 * RPROF_INST_CALLS_SECTION (not loaded), owner "rprof", type
 * RPROF_INST_CALLS_TYPE, descriptor: NUL-terminated assembler names, each
 * prefixed 'C' (called) or 'D' (defined in that unit), "M" when the unit's
 * memory accesses are instrumented (RPROF_INST_SET_BITS), and "V" when a loop
 * nest of it has a plain version (RPROF_INST_COUNTING_SYMBOL). */
#define RPROF_INST_CALLS_SECTION ".note.rprof.calls"
#define RPROF_INST_CALLS_TYPE 2

/* The ELF note every instrumented program carries (section .note.rprof.inst,
 * owner "rprof", type 1, descriptor: the layout version as 4 bytes). */
#define RPROF_INST_NOTE_SECTION ".note.rprof.inst"
#define RPROF_INST_NOTE_OWNER "rprof"
#define RPROF_INST_NOTE_TYPE 1

#endif /* RPROF_BACKENDS_INST_INST_COUNTERS_H_ */
