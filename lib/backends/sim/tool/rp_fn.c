/* rprof-sim: counts per function (see rp_fn.h). */
#include "rp_fn.h"

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "rp_state.h"

/* In libcoregrind but not in the tool headers: the symbol as the ELF file
 * spells it (no C++ demangling), the join key with the sampled times. */
extern Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar** buf);

Bool rp_clo_functions = False;
Bool rp_clo_fn_inclusive = True;
UInt rp_fn_cur = 0;

/* ---- functions: id -> (object, symbol, entry), interned ---------------- */

typedef struct {
   HChar* obj;
   HChar* sym;   /* "" when no symbol covers the address */
   Addr   start; /* entry, or the 4 KiB range (file-relative) without a symbol */
   HChar* file;  /* source of the entry, "" without debug info */
   UInt   line;
   UInt   hash;
} RpFn;

static RpFn* fns = NULL; /* fns[0]: "no function yet" */
static UInt nfns = 0, fns_cap = 0;
static UInt* fn_index = NULL; /* open addressing: fn id or 0 */
static UInt index_cap = 0;

static UInt str_hash(const HChar* s, UInt h)
{
   while (*s) h = (h ^ (UChar)*s++) * 16777619u;
   return h;
}

static UInt fn_hash(const HChar* obj, const HChar* sym, Addr start)
{
   return str_hash(sym, str_hash(obj, 2166136261u)) ^ (UInt)(start * 2654435761u);
}

static HChar* clean_dup(const HChar* s)
{
   HChar* d = VG_(strdup)("rp.fn.str", s != NULL ? s : "");
   HChar* p;
   for (p = d; *p; p++) {
      if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
   }
   return d;
}

static void index_insert(UInt id)
{
   UInt i = fns[id].hash & (index_cap - 1);
   while (fn_index[i] != 0) i = (i + 1) & (index_cap - 1);
   fn_index[i] = id;
}

static UInt fn_intern(const HChar* obj, const HChar* sym, Addr start, Addr entry)
{
   const UInt h = fn_hash(obj, sym, start);
   UInt i, id;
   if (index_cap == 0 || 2 * (nfns + 1) > index_cap) {
      UInt k;
      index_cap = index_cap == 0 ? 1024 : index_cap * 2;
      VG_(free)(fn_index);
      fn_index = VG_(calloc)("rp.fn.index", index_cap, sizeof(UInt));
      for (k = 1; k < nfns; k++) index_insert(k);
   }
   for (i = h & (index_cap - 1); fn_index[i] != 0; i = (i + 1) & (index_cap - 1)) {
      const RpFn* f = &fns[fn_index[i]];
      if (f->hash == h && f->start == start && VG_(strcmp)(f->sym, sym) == 0 &&
          VG_(strcmp)(f->obj, obj) == 0)
         return fn_index[i];
   }
   if (nfns == 0) nfns = 1; /* id 0 is reserved */
   if (nfns >= fns_cap) {
      fns_cap = fns_cap == 0 ? 256 : fns_cap * 2;
      fns = VG_(realloc)("rp.fn.fns", fns, fns_cap * sizeof(RpFn));
      if (nfns == 1) VG_(memset)(&fns[0], 0, sizeof(RpFn));
   }
   id = nfns++;
   fns[id].obj = clean_dup(obj);
   fns[id].sym = clean_dup(sym);
   fns[id].start = start;
   fns[id].hash = h;
   fns[id].file = clean_dup("");
   fns[id].line = 0;
   if (sym[0] != '\0') {
      const HChar *file = NULL, *dir = NULL;
      UInt line = 0;
      if (VG_(get_filename_linenum)(VG_(current_DiEpoch)(), entry, &file, &dir, &line)) {
         HChar* full = VG_(malloc)("rp.fn.file", VG_(strlen)(dir) + VG_(strlen)(file) + 2);
         if (dir != NULL && dir[0] != '\0' && file[0] != '/')
            VG_(sprintf)(full, "%s/%s", dir, file);
         else
            VG_(strcpy)(full, file);
         VG_(free)(fns[id].file);
         fns[id].file = clean_dup(full);
         VG_(free)(full);
         fns[id].line = line;
      }
   }
   index_insert(id);
   return id;
}

/* The "+N" offset VG_(get_fnname_w_offset) appends, or 0. */
static Addr offset_in(const HChar* s)
{
   const HChar* plus = VG_(strrchr)(s, '+');
   Addr off = 0;
   if (plus == NULL || plus[1] == '\0') return 0;
   for (plus++; *plus; plus++) {
      if (*plus < '0' || *plus > '9') return 0;
      off = off * 10 + (Addr)(*plus - '0');
   }
   return off;
}

UInt rp_fn_id_of(Addr a)
{
   const DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *obj = NULL, *sym = NULL, *wo = NULL;
   HChar* sym_copy;
   DebugInfo* di;
   Addr entry = a, start;
   UInt id;
   if (!VG_(get_objname)(ep, a, &obj) || obj == NULL) obj = "";
   obj = VG_(strdup)("rp.fn.obj", obj); /* the next queries may invalidate it */
   if (VG_(get_fnname_raw)(ep, a, &sym) && sym != NULL && sym[0] != '\0') {
      sym_copy = VG_(strdup)("rp.fn.sym", sym);
      if (VG_(get_fnname_w_offset)(ep, a, &wo) && wo != NULL) entry = a - offset_in(wo);
      start = entry;
   } else {
      sym_copy = VG_(strdup)("rp.fn.sym", "");
      di = VG_(find_DebugInfo)(ep, a);
      start = (a - (di != NULL ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0)) & ~(Addr)0xfff;
   }
   id = fn_intern(obj, sym_copy, start, entry);
   VG_(free)((void*)obj);
   VG_(free)(sym_copy);
   return id;
}

/* ---- contexts: the innermost marked region ---------------------------- */

#define RP_FN_MAX_CTX 4096
typedef struct {
   UInt   parent;
   UWord  region; /* the runtime's region id */
   HChar* name;
} RpCtx;

static RpCtx ctxs[RP_FN_MAX_CTX]; /* ctxs[0]: outside every marked region */
static UInt nctx = 1;
static Bool ctx_overflow = False;

/* counts[ctx][fn]: self counts, then inclusive ones (2 x NCOUNTERS),
 * allocated on first use. */
static ULong** counts[RP_FN_MAX_CTX];
static UInt counts_cap[RP_FN_MAX_CTX];

static ULong* slot(UInt ctx, UInt fn)
{
   if (fn >= counts_cap[ctx]) {
      UInt cap = counts_cap[ctx] == 0 ? 64 : counts_cap[ctx];
      while (cap <= fn) cap *= 2;
      counts[ctx] = VG_(realloc)("rp.fn.counts", counts[ctx], cap * sizeof(ULong*));
      VG_(memset)(counts[ctx] + counts_cap[ctx], 0, (cap - counts_cap[ctx]) * sizeof(ULong*));
      counts_cap[ctx] = cap;
   }
   if (counts[ctx][fn] == NULL)
      counts[ctx][fn] = VG_(calloc)("rp.fn.cnt", 2 * RPROF_SIM_NCOUNTERS, sizeof(ULong));
   return counts[ctx][fn];
}

/* ---- the running thread ------------------------------------------------ */

static RpFnThread run; /* run.cur is stale: rp_fn_cur is the truth */

static void attribute(RpFnThread* t, UInt fn, const ULong* now)
{
   ULong* c = slot(t->ctx[t->depth], fn);
   Int k;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) {
      c[k] += now[k] - t->last[k];
      t->last[k] = now[k];
   }
}

/* Closes the innermost frame: its inclusive counts, once per function
 * (a function already open further out, under recursion, counts there). */
static void pop_frame(RpFnThread* t, const ULong* now)
{
   const RpFrame* f = &t->frames[--t->nframes];
   UInt i;
   Int k;
   ULong* c;
   for (i = 0; i < t->nframes; i++) {
      if (t->frames[i].fn == f->fn) return;
   }
   c = slot(f->ctx, f->fn) + RPROF_SIM_NCOUNTERS;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) c[k] += now[k] - f->entry[k];
}

static void enter(RpFnThread* t, UInt fn, Addr sp, const ULong* now)
{
   RpFrame* f;
   while (t->nframes > 0 && t->frames[t->nframes - 1].sp < sp) pop_frame(t, now);
   if (t->nframes > 0 && t->frames[t->nframes - 1].fn == fn) return;
   if (t->nframes == t->frames_cap) {
      t->frames_cap = t->frames_cap == 0 ? 64 : 2 * t->frames_cap;
      t->frames = VG_(realloc)("rp.fn.frames", t->frames, t->frames_cap * sizeof(RpFrame));
   }
   f = &t->frames[t->nframes++];
   f->fn = fn;
   f->ctx = t->ctx[t->depth];
   f->sp = sp;
   VG_(memcpy)(f->entry, now, sizeof(f->entry));
}

void rp_fn_switch(UWord fn, UWord sp)
{
   /* rprof's own work (and what it calls) is rolled back at RESUME: the
    * function stays the one that called the marker. */
   if (rp_suspended) return;
   attribute(&run, rp_fn_cur, rp_live);
   if (rp_clo_fn_inclusive) enter(&run, (UInt)fn, (Addr)sp, rp_live);
   rp_fn_cur = (UInt)fn;
}

void rp_fn_save(RpFnThread* t)
{
   run.cur = rp_fn_cur;
   *t = run;
}

void rp_fn_load(const RpFnThread* t)
{
   run = *t;
   rp_fn_cur = run.cur;
}

void rp_fn_flush_thread(RpFnThread* t, const ULong* cnt, Bool end)
{
   attribute(t, t->cur, cnt);
   while (end && t->nframes > 0) pop_frame(t, cnt);
}

void rp_fn_push(const ULong* now, UWord region_id, const HChar* name)
{
   UInt parent, i, ctx = 0;
   attribute(&run, rp_fn_cur, now);
   if (run.depth >= RP_FN_MAX_DEPTH) {
      run.deeper++;
      return;
   }
   parent = run.ctx[run.depth];
   /* A region already open on this thread is the same region (the runtime
    * counts recursion into its first instance). */
   for (i = 1; i <= run.depth; i++) {
      if (ctxs[run.ctx[i]].region == region_id) ctx = run.ctx[i];
   }
   for (i = 1; ctx == 0 && i < nctx; i++) {
      if (ctxs[i].parent == parent && ctxs[i].region == region_id) ctx = i;
   }
   if (ctx == 0) {
      if (nctx < RP_FN_MAX_CTX) {
         ctx = nctx++;
         ctxs[ctx].parent = parent;
         ctxs[ctx].region = region_id;
         ctxs[ctx].name = clean_dup(name);
      } else {
         ctx_overflow = True;
         ctx = parent;
      }
   }
   run.ctx[++run.depth] = ctx;
}

void rp_fn_pop(const ULong* now)
{
   attribute(&run, rp_fn_cur, now);
   if (run.deeper > 0) run.deeper--;
   else if (run.depth > 0) run.depth--;
}

void rp_fn_reset(void)
{
   UInt c, f;
   for (c = 0; c < nctx; c++) {
      for (f = 0; f < counts_cap[c]; f++) {
         if (counts[c][f] != NULL) VG_(memset)(counts[c][f], 0, RPROF_SIM_NCOUNTERS * sizeof(ULong));
      }
   }
   VG_(memset)(run.last, 0, sizeof(run.last));
   for (f = 0; f < run.nframes; f++) VG_(memset)(run.frames[f].entry, 0, sizeof(run.frames[f].entry));
}

/* ---- output ------------------------------------------------------------ */

typedef struct {
   Int   fd;
   HChar buf[8192];
   Int   used;
} Writer;

static void w_flush(Writer* w)
{
   if (w->used > 0) VG_(write)(w->fd, w->buf, w->used);
   w->used = 0;
}

static void w_str(Writer* w, const HChar* s)
{
   while (*s) {
      if (w->used == (Int)sizeof(w->buf)) w_flush(w);
      w->buf[w->used++] = *s++;
   }
}

static void w_fmt_ull(Writer* w, const HChar* fmt, ULong v)
{
   HChar tmp[64];
   VG_(snprintf)(tmp, sizeof(tmp), fmt, v);
   w_str(w, tmp);
}

/* Tab-separated lines:
 *   rprof-sim-functions 1
 *   ctx <id> <parent id> <region name>
 *   fn <id> <object> <symbol> <start hex> <file> <line>
 *   c <ctx id> <fn id> <20 self counters in sim_protocol.h order>
 *   i <ctx id> <fn id> <20 inclusive counters>
 * and "overflow contexts" when marked regions were too many to tell apart. */
void rp_fn_write(const HChar* path)
{
   static Writer w;
   UInt c, f;
   Int k;
   SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
   if (sr_isError(sr)) {
      VG_(umsg)("rprof-sim: cannot write %s\n", path);
      return;
   }
   w.fd = (Int)sr_Res(sr);
   w.used = 0;
   w_str(&w, "rprof-sim-functions 1\n");
   if (ctx_overflow) w_str(&w, "overflow contexts\n");
   for (c = 1; c < nctx; c++) {
      w_fmt_ull(&w, "ctx\t%llu", c);
      w_fmt_ull(&w, "\t%llu\t", ctxs[c].parent);
      w_str(&w, ctxs[c].name);
      w_str(&w, "\n");
   }
   for (f = 1; f < nfns; f++) {
      w_fmt_ull(&w, "fn\t%llu\t", f);
      w_str(&w, fns[f].obj);
      w_str(&w, "\t");
      w_str(&w, fns[f].sym);
      w_fmt_ull(&w, "\t%llx\t", fns[f].start);
      w_str(&w, fns[f].file);
      w_fmt_ull(&w, "\t%llu\n", fns[f].line);
   }
   for (c = 0; c < nctx; c++) {
      for (f = 0; f < counts_cap[c]; f++) {
         const ULong* v = counts[c][f];
         Bool any = False;
         if (v == NULL) continue;
         for (k = 0; k < 2 * RPROF_SIM_NCOUNTERS; k++) any = any || v[k] != 0;
         if (!any) continue;
         w_fmt_ull(&w, "c\t%llu", c);
         w_fmt_ull(&w, "\t%llu", f);
         for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) w_fmt_ull(&w, "\t%llu", v[k]);
         w_fmt_ull(&w, "\ni\t%llu", c);
         w_fmt_ull(&w, "\t%llu", f);
         for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) w_fmt_ull(&w, "\t%llu", v[RPROF_SIM_NCOUNTERS + k]);
         w_str(&w, "\n");
      }
   }
   w_flush(&w);
   VG_(close)(w.fd);
}
