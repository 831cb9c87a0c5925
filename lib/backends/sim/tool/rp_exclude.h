/* rprof-sim: which guest code is rprof's (or the loader's), not the program's.
 *
 * rprof must not add to any count, [program] included. Three pieces of code
 * are left uninstrumented (decided once, at translation time):
 *  - everything in the runtime (an object whose file name starts with
 *    "librprof.so") and in the dynamic loader (ld-linux*.so, ld.so): the
 *    loader's work is mostly loading and relocating libraries, and linking
 *    rprof adds libraries (librprof, libstdc++, libm, libgcc_s) whose loading
 *    would otherwise be counted as the program's (+1.4 MB at L2 for a C
 *    program). The cost: a program's own loader work (its libraries' loading,
 *    __tls_get_addr, dlopen) is not counted either;
 *  - a stub `jmp *slot(%rip)` (a PLT entry) whose slot holds an address in
 *    the runtime: its 8-byte load of the slot;
 *  - a call whose target is the runtime or such a stub: the 8-byte push of
 *    the return address (and, for `call *slot(%rip)`, the slot load).
 * Slots are read at translation time, so they must be bound by then: the
 * launcher sets LD_BIND_NOW=1 (a lazily bound stub is counted, 8 B a call).
 * What the runtime calls outside itself (clock_gettime, malloc, the writer's
 * open/write) runs while the runtime has suspended counting
 * (RPROF_SIM_REQ_SUSPEND, sim_protocol.h).
 */
#ifndef RP_EXCLUDE_H
#define RP_EXCLUDE_H

#include "pub_tool_basics.h"

/* True when guest code at `a` belongs to the rprof runtime or the loader. */
Bool rp_is_runtime(Addr a);
/* True when the instruction at `a` (`len` bytes, already decoded by VEX) is
 * `jmp *slot(%rip)` with a slot pointing into the runtime. */
Bool rp_is_stub_into_runtime(Addr a, UInt len);
/* True when control transferred to `target` enters the runtime, directly or
 * through such a stub (optionally after an endbr64). */
Bool rp_leads_to_runtime(Addr target);
/* The value of a code-pointer slot (GOT entry) of the client, or 0 when it
 * cannot be read. */
Addr rp_read_slot(Addr slot);

#endif
