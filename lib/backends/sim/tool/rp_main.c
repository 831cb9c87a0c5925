/* rprof-sim: a Valgrind tool counting FLOPs (by precision and vector width)
 * and bytes at every cache boundary, per thread, for rprof's `sim` backend.
 *
 * Options (the rprof launcher passes them; sizes in bytes):
 *   --rp-l1=SIZE,WAYS,LINE  --rp-l2=...  --rp-llc=...   cache geometry
 *   --rp-out=FILE           whole-run totals written at exit
 *   --rp-functions=yes      counts per function (rp_fn.h)
 *   --rp-fn-out=FILE        the per-function table, written at exit
 * (and before an exec: FILE with ".exec<N>" before its ".txt").
 * Client requests: see sim_protocol.h.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "rp_emit.h"
#include "rp_state.h"

ULong rp_live[RPROF_SIM_NCOUNTERS];
Bool rp_suspended = False;
RpCache rp_l1, rp_l2, rp_llc;
RpGeometry rp_geom_l1 = {32768, 8, 64};
RpGeometry rp_geom_l2 = {1048576, 8, 64};
RpGeometry rp_geom_llc = {8388608, 16, 64};

static const HChar* clo_out = NULL;
static const HChar* clo_fn_out = NULL;
Bool rp_clo_count = True;
Bool rp_clo_host_fma = True;

static RpThread* threads = NULL; /* indexed by ThreadId */
static ThreadId running = VG_INVALID_THREADID;
static UInt suspend_depth = 0;   /* the running thread's; rp_suspended mirrors it */
/* Totals already written before an exec that failed (the process went on). */
static ULong written[RPROF_SIM_NCOUNTERS];

/* ---- threads ----------------------------------------------------------- */

static RpThread* thread_of(ThreadId tid)
{
   RpThread* t;
   tl_assert(tid >= 1 && tid < VG_N_THREADS);
   t = &threads[tid];
   if (!t->used) {
      t->used = True;
      rp_cache_init(&t->l1, &rp_geom_l1);
      rp_cache_init(&t->l2, &rp_geom_l2);
   }
   return t;
}

RpThread* rp_running(void)
{
   return running == VG_INVALID_THREADID ? NULL : &threads[running];
}

/* Makes `tid` the running thread: its counters and caches become the live
 * ones generated code works on. */
void rp_switch_thread(ThreadId tid)
{
   RpThread* t;
   if (tid == running) return;
   if (running != VG_INVALID_THREADID) {
      RpThread* old = &threads[running];
      if (rp_clo_functions) rp_fn_fold(); /* what ran so far was this thread's */
      VG_(memcpy)(old->cnt, rp_live, sizeof(rp_live));
      old->l1 = rp_l1;
      old->l2 = rp_l2;
      old->suspend_depth = suspend_depth;
      if (rp_clo_functions) rp_fn_save(&old->fn);
   }
   t = thread_of(tid);
   VG_(memcpy)(rp_live, t->cnt, sizeof(rp_live));
   rp_l1 = t->l1;
   rp_l2 = t->l2;
   suspend_depth = t->suspend_depth;
   rp_suspended = suspend_depth > 0;
   if (rp_clo_functions) rp_fn_load(&t->fn);
   running = tid;
}

/* A forked child starts from zero: the parent reports what ran before the
 * fork, and the totals of all processes are summed by the launcher. (The
 * runtime in the child re-reads its open regions' start counts.) */
static void on_fork_child(ThreadId tid)
{
   UInt t;
   (void)tid;
   VG_(memset)(rp_live, 0, sizeof(rp_live));
   VG_(memset)(written, 0, sizeof(written));
   for (t = 1; t < VG_N_THREADS; t++) {
      VG_(memset)(threads[t].cnt, 0, sizeof(threads[t].cnt));
      VG_(memset)(threads[t].saved, 0, sizeof(threads[t].saved));
      threads[t].fn.nframes = 0; /* the other threads do not exist in the child */
   }
   if (rp_clo_functions) rp_fn_reset();
}

static void on_start_client_code(ThreadId tid, ULong blocks)
{
   (void)blocks;
   rp_switch_thread(tid);
}

/* A new thread (or a reused ThreadId) starts with cold private caches. */
static void on_thread_create(ThreadId parent, ThreadId child)
{
   RpThread* t;
   (void)parent;
   if (child == running) return; /* cannot happen: the parent is running */
   t = thread_of(child);
   /* A reused ThreadId: its last thread's counts are already in the tree. */
   if (rp_clo_functions) rp_fn_thread_restart(&t->fn);
   rp_cache_clear(&t->l1);
   rp_cache_clear(&t->l2);
   t->suspend_depth = 0;
}

/* ---- client requests --------------------------------------------------- */

static Bool handle_request(ThreadId tid, UWord* arg, UWord* ret)
{
   RpThread* t;
   if (!VG_IS_TOOL_USERREQ('R', 'P', arg[0])) return False;
   rp_switch_thread(tid);
   t = &threads[tid];
   *ret = 0;
   switch (arg[0] - VG_USERREQ_TOOL_BASE('R', 'P')) {
   case RPROF_SIM_REQ_PING:
      *ret = RPROF_SIM_PROTOCOL;
      return True;
   case RPROF_SIM_REQ_READ: {
      UWord n = arg[2] < RPROF_SIM_NCOUNTERS ? arg[2] : RPROF_SIM_NCOUNTERS;
      const ULong* src = rp_suspended ? t->saved : rp_live;
      if (rp_clo_functions && !rp_suspended) rp_fn_fold();
      if (n > 0 && VG_(am_is_valid_for_client)(arg[1], n * sizeof(ULong), VKI_PROT_WRITE)) {
         VG_(memcpy)((void*)arg[1], src, n * sizeof(ULong));
         *ret = n;
      }
      return True;
   }
   case RPROF_SIM_REQ_SUSPEND:
      if (suspend_depth++ == 0) {
         if (rp_clo_functions) rp_fn_fold();
         VG_(memcpy)(t->saved, rp_live, sizeof(rp_live));
         rp_suspended = True;
         if (rp_clo_functions) rp_fn_repoint();
      }
      return True;
   case RPROF_SIM_REQ_RESUME:
      if (suspend_depth > 0 && --suspend_depth == 0) {
         VG_(memcpy)(rp_live, t->saved, sizeof(rp_live));
         rp_suspended = False;
         if (rp_clo_functions) rp_fn_repoint();
      }
      return True;
   case RPROF_SIM_REQ_PUSH:
   case RPROF_SIM_REQ_POP: {
      /* Sent while the runtime has counting suspended: what the program
       * counted so far is already in its function's counters. */
      if (!rp_clo_functions) return True;
      if (arg[0] - VG_USERREQ_TOOL_BASE('R', 'P') == RPROF_SIM_REQ_POP) {
         rp_fn_pop();
      } else {
         const HChar* name = (const HChar*)arg[2];
         if (!VG_(am_is_valid_for_client)(arg[2], 1, VKI_PROT_READ)) name = "?";
         rp_fn_push(arg[1], name);
      }
      return True;
   }
   default:
      return False;
   }
}

/* ---- options ----------------------------------------------------------- */

/* "SIZE,WAYS,LINE" in bytes. */
static Bool parse_geometry(const HChar* s, RpGeometry* g)
{
   HChar* end;
   const Long size = VG_(strtoll10)(s, &end);
   Long ways, line;
   if (*end != ',') return False;
   ways = VG_(strtoll10)(end + 1, &end);
   if (*end != ',') return False;
   line = VG_(strtoll10)(end + 1, &end);
   if (*end != '\0' || size <= 0 || ways <= 0 || line <= 0) return False;
   g->size = (ULong)size;
   g->assoc = (UInt)ways;
   g->line = (UInt)line;
   return True;
}

static Bool process_option(const HChar* arg)
{
   const HChar* v;
   RpGeometry* g = NULL;
   if (VG_STR_CLO(arg, "--rp-l1", v)) g = &rp_geom_l1;
   else if (VG_STR_CLO(arg, "--rp-l2", v)) g = &rp_geom_l2;
   else if (VG_STR_CLO(arg, "--rp-llc", v)) g = &rp_geom_llc;
   else if (VG_STR_CLO(arg, "--rp-out", clo_out)) return True;
   else if (VG_STR_CLO(arg, "--rp-fn-out", clo_fn_out)) return True;
   else if (VG_BOOL_CLO(arg, "--rp-functions", rp_clo_functions)) return True;
   else if (VG_BOOL_CLO(arg, "--rp-fn-inclusive", rp_clo_fn_inclusive)) return True;
   else if (VG_BOOL_CLO(arg, "--rp-count", rp_clo_count)) return True;
   else if (VG_BINT_CLO(arg, "--rp-fn-max-paths", rp_clo_fn_max_paths, 1, 1u << 24)) return True;
   else if (VG_BOOL_CLO(arg, "--rp-host-fma", rp_clo_host_fma)) return True;
   else return False;
   if (!parse_geometry(v, g)) {
      VG_(fmsg_bad_option)(arg, "expected SIZE,WAYS,LINE in bytes\n");
   } else {
      const HChar* why = rp_geometry_check(g);
      if (why != NULL) VG_(fmsg_bad_option)(arg, "%s\n", why);
   }
   return True;
}

static void print_usage(void)
{
   VG_(printf)(
      "    --rp-l1=SIZE,WAYS,LINE   private L1 per thread [32768,8,64]\n"
      "    --rp-l2=SIZE,WAYS,LINE   private L2 per thread [1048576,8,64]\n"
      "    --rp-llc=SIZE,WAYS,LINE  shared last-level cache [8388608,16,64]\n"
      "    --rp-out=FILE            write whole-run counter totals to FILE\n"
      "    --rp-functions=yes       count per function (and innermost marked region)\n"
      "    --rp-fn-out=FILE         write the per-function counts to FILE\n");
}

static void print_debug_usage(void)
{
   VG_(printf)("    --rp-count=no            instrument nothing (measures Valgrind's own cost)\n"
               "    --rp-fn-inclusive=no     --rp-functions without inclusive counts\n"
               "    --rp-fn-max-paths=N      call paths told apart [524288]\n"
               "    --rp-host-fma=no         keep Valgrind's software FMA emulation\n");
}

/* ---- start and end ----------------------------------------------------- */

static void post_clo_init(void)
{
   if (rp_geom_l1.line != rp_geom_l2.line || rp_geom_l1.line != rp_geom_llc.line) {
      VG_(fmsg_bad_option)("--rp-l1/--rp-l2/--rp-llc",
                           "all levels must have the same line size\n");
   }
   rp_cache_setup(rp_geom_l1.line);
   rp_cache_init(&rp_llc, &rp_geom_llc);
   threads = VG_(calloc)("rp.threads", VG_N_THREADS, sizeof(RpThread));
   if (rp_clo_functions) rp_fn_init();
   else rp_fn_cnt = rp_live; /* the cache model's counts (rp_fn.h) */
   VG_(atfork)(NULL, NULL, on_fork_child);
}

/* The file an option names (%p expanded), with `suffix` (may be "") put
 * before its ".txt": totals.<pid>.exec1.txt. */
static HChar* output_path(const HChar* option, const HChar* value, const HChar* suffix)
{
   HChar* base = VG_(expand_file_name)(option, value);
   const SizeT len = VG_(strlen)(base);
   const SizeT stem = len >= 4 && VG_(strcmp)(base + len - 4, ".txt") == 0 ? len - 4 : len;
   HChar* path = VG_(malloc)("rp.path", len + VG_(strlen)(suffix) + 1);
   VG_(memcpy)(path, base, stem);
   VG_(strcpy)(path + stem, suffix);
   VG_(strcat)(path, base + stem);
   VG_(free)(base);
   return path;
}

/* Totals over all threads since the last write, as "name value" lines. */
static void write_totals(const HChar* suffix)
{
   ULong total[RPROF_SIM_NCOUNTERS], since[RPROF_SIM_NCOUNTERS];
   HChar* path;
   Bool ok;
   Int k;
   UInt t;
   if (clo_out == NULL) return;
   if (running != VG_INVALID_THREADID) {
      if (rp_clo_functions) rp_fn_fold();
      VG_(memcpy)(threads[running].cnt, rp_live, sizeof(rp_live));
   }
   VG_(memset)(total, 0, sizeof(total));
   for (t = 1; t < VG_N_THREADS; t++) {
      if (!threads[t].used) continue;
      for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) total[k] += threads[t].cnt[k];
   }
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) since[k] = total[k] - written[k];
   path = output_path("--rp-out", clo_out, suffix);
   ok = rp_emit_totals(path, since);
   VG_(free)(path);
   if (ok) VG_(memcpy)(written, total, sizeof(written));
}

/* Every count is already in its function's node of the calling-context tree. */
static void write_functions(const HChar* suffix)
{
   HChar* path;
   if (!rp_clo_functions || clo_fn_out == NULL) return;
   path = output_path("--rp-fn-out", clo_fn_out, suffix);
   rp_emit_functions(path);
   VG_(free)(path);
}

static void fini(Int exitcode)
{
   (void)exitcode;
   write_totals("");
   write_functions("");
}

/* An exec replaces the process image without a fini, and the new image
 * writes the files of the same pid: what this image counted is written
 * before it, to files of its own (totals.<pid>.exec<N>.txt, ...), which the
 * launcher sums with the others. Should the exec fail, the process goes on
 * from zero (its table starts again; the totals count from what was
 * written), so nothing is counted twice. */
static void pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs)
{
   HChar suffix[32];
   UInt n;
   (void)tid;
   (void)args;
   (void)nargs;
   if (sysno != __NR_execve && sysno != __NR_execveat) return;
   /* The first N no earlier image of this pid used (an image an exec started
    * may exec again, counting from 1 itself). */
   for (n = 1; n < 100000; n++) {
      struct vg_stat st;
      HChar* path;
      Bool taken;
      VG_(snprintf)(suffix, sizeof(suffix), ".exec%u", n);
      if (clo_out == NULL) break;
      path = output_path("--rp-out", clo_out, suffix);
      taken = !sr_isError(VG_(stat)(path, &st));
      VG_(free)(path);
      if (!taken) break;
   }
   write_totals(suffix);
   write_functions(suffix);
   if (rp_clo_functions) rp_fn_reset();
}

static void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs, SysRes res)
{
   (void)tid;
   (void)sysno;
   (void)args;
   (void)nargs;
   (void)res;
}

static void pre_clo_init(void)
{
   VG_(details_name)(RPROF_SIM_TOOL_NAME);
   VG_(details_version)("1");
   VG_(details_description)("rprof: FLOPs and bytes per cache boundary");
   VG_(details_copyright_author)("the rprof authors");
   VG_(details_bug_reports_to)("the rprof issue tracker");
   VG_(details_avg_translation_sizeB)(400);
   VG_(basic_tool_funcs)(post_clo_init, rp_instrument, fini);
   VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
   VG_(needs_client_requests)(handle_request);
   VG_(track_start_client_code)(on_start_client_code);
   VG_(track_pre_thread_ll_create)(on_thread_create);
   VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
