/* rprof-sim: recognising the runtime's code and the stubs that lead to it. */
#include "rp_exclude.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_vki.h"

/* The rprof runtime, and the dynamic loader: what ld.so does (mapping and
 * relocating libraries, symbol lookup, running their initialisers' calls)
 * depends on which libraries are linked, rprof's among them, not on the
 * program's algorithm, so it is nobody's work (see rp_exclude.h). */
static Bool is_runtime_name(const HChar* path)
{
   const HChar* base;
   if (path == NULL) return False;
   base = VG_(strrchr)(path, '/');
   base = base ? base + 1 : path;
   return VG_(strncmp)(base, "librprof.so", 11) == 0 ||
          VG_(strncmp)(base, "ld-linux", 8) == 0 || VG_(strcmp)(base, "ld.so") == 0;
}

/* One cached text range: most instructions of a superblock share an object. */
static Addr cached_lo = 1, cached_hi = 0;
static Bool cached_runtime = False;

Bool rp_is_runtime(Addr a)
{
   const HChar* name = NULL;
   DebugInfo* di;
   Bool runtime;
   if (a >= cached_lo && a < cached_hi) return cached_runtime;
   VG_(DebugInfo_sect_kind)(&name, a);
   runtime = is_runtime_name(name);
   di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (di != NULL) {
      const Addr lo = VG_(DebugInfo_get_text_avma)(di);
      const Addr hi = lo + VG_(DebugInfo_get_text_size)(di);
      if (a >= lo && a < hi) {
         cached_lo = lo;
         cached_hi = hi;
         cached_runtime = runtime;
      }
   }
   return runtime;
}

Addr rp_read_slot(Addr slot)
{
   if (!VG_(am_is_valid_for_client)(slot, sizeof(Addr), VKI_PROT_READ))
      return 0;
   return *(const Addr*)slot;
}

/* The slot of `[bnd] jmp *disp32(%rip)` at p (n bytes readable), or 0. */
static Addr jmp_slot(Addr a, const UChar* p, UInt n)
{
   UInt pre = 0;
   Int disp;
   if (n >= 1 && p[0] == 0xf2) pre = 1; /* bnd prefix (MPX-era PLTs) */
   if (n < pre + 6 || p[pre] != 0xff || p[pre + 1] != 0x25) return 0;
   VG_(memcpy)(&disp, p + pre + 2, sizeof(disp));
   return a + pre + 6 + (Addr)(Long)disp;
}

Bool rp_is_stub_into_runtime(Addr a, UInt len)
{
   const Addr slot = jmp_slot(a, (const UChar*)a, len);
   return slot != 0 && rp_is_runtime(rp_read_slot(slot));
}

Bool rp_leads_to_runtime(Addr target)
{
   const UChar* p;
   if (target == 0) return False;
   if (rp_is_runtime(target)) return True;
   if (!VG_(am_is_valid_for_client)(target, 11, VKI_PROT_READ)) return False;
   p = (const UChar*)target;
   if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) {
      target += 4; /* endbr64 of an IBT PLT entry */
      p += 4;
   }
   {
      const Addr slot = jmp_slot(target, p, 7);
      return slot != 0 && rp_is_runtime(rp_read_slot(slot));
   }
}
