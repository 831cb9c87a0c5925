/* rprof-sim: counts per function (see rp_fn.h). */
#include "rp_fn.h"

#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "rp_state.h"

/* In libcoregrind but not in the tool headers: the symbol as the ELF file
 * spells it (no C++ demangling), the join key with the sampled times. */
extern Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar** buf);

Bool rp_clo_functions = False;
Bool rp_clo_fn_inclusive = True;
UInt rp_fn_cur = 0;

/* ---- functions: id -> (object, symbol, entry), interned ---------------- */

/* A function is a node of Valgrind's hash table fn_table (key: a hash of
 * (object, symbol, start), equal keys then compared in full by fn_cmp), and
 * fns[id] points at it. Looked up at translation time only. */
typedef struct RpFn {
   struct RpFn* next; /* VgHashNode's two fields first */
   UWord  key;
   HChar* obj;
   HChar* sym;   /* "" when no symbol covers the address */
   Addr   start; /* entry, or the 4 KiB range (file-relative) without a symbol */
   HChar* file;  /* source of the entry, "" without debug info */
   UInt   line;
   UInt   id;
} RpFn;

static RpFn** fns = NULL; /* fns[0]: "no function yet" (NULL) */
static UInt nfns = 0, fns_cap = 0;
static VgHashTable* fn_table = NULL;

static UInt str_hash(const HChar* s, UInt h)
{
   while (*s) h = (h ^ (UChar)*s++) * 16777619u;
   return h;
}

static UInt fn_hash(const HChar* obj, const HChar* sym, Addr start)
{
   return str_hash(sym, str_hash(obj, 2166136261u)) ^ (UInt)(start * 2654435761u);
}

/* 0 when a and b are the same function (keys already equal). */
static Word fn_cmp(const void* a, const void* b)
{
   const RpFn *x = a, *y = b;
   return x->start != y->start || VG_(strcmp)(x->sym, y->sym) != 0 ||
          VG_(strcmp)(x->obj, y->obj) != 0;
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

static UInt fn_intern(const HChar* obj, const HChar* sym, Addr start, Addr entry)
{
   RpFn probe, *f;
   if (fn_table == NULL) fn_table = VG_(HT_construct)("rp.fn.table");
   VG_(memset)(&probe, 0, sizeof(probe));
   probe.key = fn_hash(obj, sym, start);
   probe.obj = (HChar*)obj;
   probe.sym = (HChar*)sym;
   probe.start = start;
   f = VG_(HT_gen_lookup)(fn_table, &probe, fn_cmp);
   if (f != NULL) return f->id;
   if (nfns == 0) nfns = 1; /* id 0 is reserved */
   if (nfns >= fns_cap) {
      fns_cap = fns_cap == 0 ? 256 : fns_cap * 2;
      fns = VG_(realloc)("rp.fn.fns", fns, fns_cap * sizeof(RpFn*));
      if (nfns == 1) fns[0] = NULL;
   }
   f = VG_(calloc)("rp.fn.fn", 1, sizeof(RpFn));
   f->key = probe.key;
   f->id = nfns++;
   f->obj = clean_dup(obj);
   f->sym = clean_dup(sym);
   f->start = start;
   f->file = clean_dup("");
   f->line = 0;
   if (sym[0] != '\0') {
      const HChar *file = NULL, *dir = NULL;
      UInt line = 0;
      if (VG_(get_filename_linenum)(VG_(current_DiEpoch)(), entry, &file, &dir, &line)) {
         HChar* full = VG_(malloc)("rp.fn.file", VG_(strlen)(dir) + VG_(strlen)(file) + 2);
         if (dir != NULL && dir[0] != '\0' && file[0] != '/')
            VG_(sprintf)(full, "%s/%s", dir, file);
         else
            VG_(strcpy)(full, file);
         VG_(free)(f->file);
         f->file = clean_dup(full);
         VG_(free)(full);
         f->line = line;
      }
   }
   fns[f->id] = f;
   VG_(HT_add_node)(fn_table, f);
   return f->id;
}

/* The DebugInfo of the object at `a` when VG_(find_DebugInfo) has none: it
 * knows .text only, and code outside it (.plt, .init, .fini) has the same
 * bias. The object by its file name; one whose PLT holds `a` first. */
static const DebugInfo* debuginfo_outside_text(const HChar* obj, Addr a)
{
   const DebugInfo *di, *named = NULL;
   if (obj[0] == '\0') return NULL;
   for (di = VG_(next_DebugInfo)(NULL); di != NULL; di = VG_(next_DebugInfo)(di)) {
      const HChar* f = VG_(DebugInfo_get_filename)(di);
      const Addr plt = VG_(DebugInfo_get_plt_avma)(di);
      if (f == NULL || VG_(strcmp)(f, obj) != 0) continue;
      if (a >= plt && a - plt < VG_(DebugInfo_get_plt_size)(di)) return di;
      named = di;
   }
   return named;
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
   const DebugInfo* di;
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
      if (di == NULL) di = debuginfo_outside_text(obj, a);
      /* The range's link-time address, as the sampled times have it. */
      start = (a - (di != NULL ? (Addr)VG_(DebugInfo_get_text_bias)(di) : 0)) & ~(Addr)0xfff;
   }
   id = fn_intern(obj, sym_copy, start, entry);
   VG_(free)((void*)obj);
   VG_(free)(sym_copy);
   return id;
}

Bool rp_fn_is_entry(UInt fn, Addr a)
{
   return fn > 0 && fn < nfns && fns[fn]->sym[0] != '\0' && fns[fn]->start == a;
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

/* ---- the calling-context tree ------------------------------------------ */

/* Paths beyond rp_clo_fn_max_paths nodes (--rp-fn-max-paths, default
 * 524288, about 100 MB) are not told apart: a function called deeper counts
 * in a node under the root (self counts stay exact, its callers' inclusive
 * counts then miss it: the table says so). */
UInt rp_clo_fn_max_paths = 1u << 19;

typedef struct {
   UInt   parent, fn, ctx;   /* ctx: the innermost marked region at entry */
   UInt   memo_fn, memo_ctx, memo_child; /* the last child looked up ... */
   ULong* memo_cell;                      /* ... and its counters */
   UInt   alt_ctx;           /* the last other region it ran in ... */
   ULong* alt_cell;          /* ... and its counters there */
   ULong* cell;              /* self counts in ctx */
} RpNode;

static RpNode* nodes = NULL; /* nodes[0]: the root, function 0 (none yet) */
static UInt nnodes = 0, nodes_cap = 0;
static Bool tree_overflow = False;

/* (parent, fn, ctx) -> node id: the one table of the tool not kept in
 * Valgrind's containers, because it is on a hot path: every call to another
 * child than the one its caller's node called last looks it up (a loop
 * calling two functions in turn: once per element). Valgrind's VgHashTable
 * there (separate chaining, a key modulo a prime, the full key compared
 * through a callback) cost CPU time where nothing else did (user+sys of
 * rprof --backend=sim --sim-only --functions, runs of each build
 * interleaved on a shared 2-core VM): bench/calls.c `alt 10000000 2`, 9
 * runs, fastest 1.67 s with this table, 1.74 s with VgHashTable (medians
 * 1.79 / 2.07 s); the same loop built alone, 11 runs, fastest 1.40 / 1.51 s
 * (medians 1.46 / 1.58 s); matmul 256 4 none (medians 1.73 / 1.64 s).
 * Open addressing with linear probing on node ids, grown at half full. */
static UInt* node_index = NULL; /* id, or 0: empty */
static UInt node_index_cap = 0;

/* Cells of a node in a region other than its own: (node, ctx) -> counters,
 * in Valgrind's hash table xcell_table (key: node << 32 | ctx, exact), and
 * xcells[] in creation order. */
typedef struct RpXCell {
   struct RpXCell* next; /* VgHashNode's two fields first */
   UWord  key;
   UInt   node, ctx;
   ULong* cell;
} RpXCell;
static VgHashTable* xcell_table = NULL;
static RpXCell** xcells = NULL;
static UInt nxcells = 0, xcells_cap = 0;

static ULong scratch[RPROF_SIM_NCOUNTERS]; /* counts nobody keeps */
ULong* rp_fn_cnt = scratch;

/* ---- the thread's totals, from what its cells gained (rp_fn.h) ----------
 *
 * A cell is NC counters, then the epoch it was last listed in, then its leaf
 * callees' cells (an RpLeaves*, or 0). A cell is written only while it is
 * rp_fn_cnt, or while a cell that has it as a leaf callee is: so a cell is
 * listed, with a copy of its counters, when it becomes rp_fn_cnt for the
 * first time in an epoch (its leaf callees with it), and rp_fn_fold adds the
 * gains of the listed cells to rp_live and starts the next epoch. A fold runs
 * wherever the totals are read, at every thread switch (so all gains since
 * the last fold are the running thread's) and when the list is full. */
#define NC RPROF_SIM_NCOUNTERS
#define CELL_EPOCH(c) ((c)[NC])
#define CELL_LEAVES(c) ((RpLeaves*)(UWord)(c)[NC + 1])

typedef struct {
   UInt    n, cap;
   ULong** cell;
} RpLeaves;

typedef struct {
   ULong* cell;
   ULong  snap[NC];
} RpListed;

#define RP_FN_LISTED_MAX 4096
static RpListed* listed = NULL;
static UInt nlisted = 0, listed_cap = 0;
static ULong epoch = 1;

static ULong* new_cell(void)
{
   return VG_(calloc)("rp.fn.cell", NC + 2, sizeof(ULong));
}

static void list_cell(ULong* c);

void rp_fn_fold(void)
{
   UInt i;
   Int k;
   for (i = 0; i < nlisted; i++) {
      const RpListed* l = &listed[i];
      for (k = 0; k < NC; k++) rp_live[k] += l->cell[k] - l->snap[k];
   }
   nlisted = 0;
   epoch++;
   if (rp_fn_cnt != scratch) list_cell(rp_fn_cnt);
}

/* Room for `need` more entries: a full list is folded first (which lists
 * rp_fn_cnt's cell again: it stays written). */
static void make_room(UInt need)
{
   if (nlisted + need > RP_FN_LISTED_MAX && nlisted > 0) rp_fn_fold();
   if (nlisted + need > listed_cap) {
      while (nlisted + need > listed_cap) listed_cap = listed_cap == 0 ? 256 : 2 * listed_cap;
      listed = VG_(realloc)("rp.fn.listed", listed, listed_cap * sizeof(RpListed));
   }
}

/* Lists c with a copy of its counters (room made). */
static void list_one(ULong* c)
{
   RpListed* l;
   if (CELL_EPOCH(c) == epoch) return;
   CELL_EPOCH(c) = epoch;
   l = &listed[nlisted++];
   l->cell = c;
   VG_(memcpy)(l->snap, c, sizeof(l->snap));
}

/* c (never scratch) may be written from now on: listed with its leaf callees. */
static __attribute__((noinline)) void list_cell(ULong* c)
{
   const RpLeaves* lv = CELL_LEAVES(c);
   UInt i;
   make_room(1 + (lv != NULL ? lv->n : 0));
   list_one(c);
   if (lv != NULL) {
      for (i = 0; i < lv->n; i++) list_one(lv->cell[i]);
   }
}

/* rp_fn_cnt = c, listed. */
static __inline__ void count_into(ULong* c)
{
   if (UNLIKELY(CELL_EPOCH(c) != epoch)) list_cell(c);
   rp_fn_cnt = c;
}

/* A leaf site of caller cell `caller` writes `callee` while caller is
 * rp_fn_cnt: listed with it from now on. */
static void add_leaf(ULong* caller, ULong* callee)
{
   RpLeaves* lv = CELL_LEAVES(caller);
   UInt i;
   if (callee == caller) return;
   if (lv == NULL) {
      lv = VG_(calloc)("rp.fn.leaves", 1, sizeof(RpLeaves));
      caller[NC + 1] = (ULong)(UWord)lv;
   }
   for (i = 0; i < lv->n; i++) {
      if (lv->cell[i] == callee) return;
   }
   if (lv->n == lv->cap) {
      lv->cap = lv->cap == 0 ? 4 : 2 * lv->cap;
      lv->cell = VG_(realloc)("rp.fn.leaves", lv->cell, lv->cap * sizeof(ULong*));
   }
   lv->cell[lv->n++] = callee;
   make_room(1);
   list_one(callee);
}

static UInt key_hash(UInt a, UInt b, UInt c)
{
   return (a * 2654435761u) ^ (b * 40503u + 0x9e3779b9u) ^ (c * 2246822519u);
}

static void node_index_insert(UInt id)
{
   const RpNode* n = &nodes[id];
   UInt i = key_hash(n->parent, n->fn, n->ctx) & (node_index_cap - 1);
   while (node_index[i] != 0) i = (i + 1) & (node_index_cap - 1);
   node_index[i] = id;
}

static UInt node_new(UInt parent, UInt fn, UInt ctx)
{
   RpNode* n;
   UInt id;
   if (nnodes == nodes_cap) {
      nodes_cap = nodes_cap == 0 ? 1024 : 2 * nodes_cap;
      nodes = VG_(realloc)("rp.fn.nodes", nodes, nodes_cap * sizeof(RpNode));
   }
   id = nnodes++;
   n = &nodes[id];
   VG_(memset)(n, 0, sizeof(*n));
   n->parent = parent;
   n->fn = fn;
   n->ctx = ctx;
   n->cell = new_cell();
   if (id == 0) return id;
   if (2 * nnodes > node_index_cap) {
      UInt k;
      node_index_cap = node_index_cap == 0 ? 2048 : 2 * node_index_cap;
      VG_(free)(node_index);
      node_index = VG_(calloc)("rp.fn.nindex", node_index_cap, sizeof(UInt));
      for (k = 1; k < nnodes; k++) node_index_insert(k);
   } else {
      node_index_insert(id);
   }
   return id;
}

/* The node for function fn called from node parent in region ctx. */
static UInt node_child_slow(UInt parent, UInt fn, UInt ctx);
static __inline__ UInt node_child(UInt parent, UInt fn, UInt ctx)
{
   const RpNode* p = &nodes[parent];
   if (LIKELY(p->memo_child != 0 && p->memo_fn == fn && p->memo_ctx == ctx)) return p->memo_child;
   return node_child_slow(parent, fn, ctx);
}

static __attribute__((noinline)) UInt node_child_slow(UInt parent, UInt fn, UInt ctx)
{
   UInt i, id = 0;
   if (node_index_cap > 0) {
      for (i = key_hash(parent, fn, ctx) & (node_index_cap - 1); node_index[i] != 0;
           i = (i + 1) & (node_index_cap - 1)) {
         const RpNode* n = &nodes[node_index[i]];
         if (n->parent == parent && n->fn == fn && n->ctx == ctx) {
            id = node_index[i];
            break;
         }
      }
   }
   if (id == 0) {
      if (nnodes >= rp_clo_fn_max_paths && parent != 0) {
         tree_overflow = True;
         return node_child(0, fn, ctx);
      }
      id = node_new(parent, fn, ctx);
   }
   nodes[parent].memo_fn = fn;
   nodes[parent].memo_ctx = ctx;
   nodes[parent].memo_child = id;
   nodes[parent].memo_cell = nodes[id].cell;
   return id;
}

/* The counters of node in region ctx. */
static ULong* cell_slow(UInt node, UInt ctx);
static __inline__ ULong* cell_of(UInt node, UInt ctx)
{
   const RpNode* n = &nodes[node];
   if (LIKELY(n->ctx == ctx)) return n->cell;
   return cell_slow(node, ctx);
}

static __attribute__((noinline)) ULong* cell_slow(UInt node, UInt ctx)
{
   RpNode* n = &nodes[node];
   const UWord key = (UWord)node << 32 | ctx;
   RpXCell* x;
   if (n->alt_cell != NULL && n->alt_ctx == ctx) return n->alt_cell;
   x = VG_(HT_lookup)(xcell_table, key);
   if (x == NULL) {
      if (nxcells == xcells_cap) {
         xcells_cap = xcells_cap == 0 ? 64 : 2 * xcells_cap;
         xcells = VG_(realloc)("rp.fn.xcells", xcells, xcells_cap * sizeof(RpXCell*));
      }
      x = VG_(malloc)("rp.fn.xcell", sizeof(RpXCell));
      x->key = key;
      x->node = node;
      x->ctx = ctx;
      x->cell = new_cell();
      xcells[nxcells++] = x;
      VG_(HT_add_node)(xcell_table, x);
   }
   n->alt_ctx = ctx;
   n->alt_cell = x->cell;
   return n->alt_cell;
}

void rp_fn_init(void)
{
   if (nnodes > 0) return;
   xcell_table = VG_(HT_construct)("rp.fn.xcell_table");
   node_new(0, 0, 0);
}

/* ---- the running thread ------------------------------------------------ */

static RpFnThread run; /* run.cur is stale: rp_fn_cur is the truth */

/* ---- leaf call sites (rp_fn.h) ------------------------------------------ */

RpLeaf* rp_fn_leaf_new(UInt fn)
{
   RpLeaf* s = VG_(calloc)("rp.fn.leaf", 1, sizeof(RpLeaf));
   s->fn = fn;
   return s;
}

/* The running node calls s->fn: its child for it (itself for its own
 * function, as a switch would), in the current region. */
void rp_fn_leaf_resolve(RpLeaf* s)
{
   const UInt ctx = run.ctx[run.depth];
   UInt node;
   s->caller = rp_fn_cnt;
   if (rp_fn_cnt == scratch) { /* suspended: the callee's counts are nobody's too */
      s->callee = scratch;
      return;
   }
   if (!rp_clo_fn_inclusive) node = node_child(0, s->fn, ctx);
   else if (nodes[run.node].fn == s->fn) node = run.node;
   else node = node_child(run.node, s->fn, ctx);
   s->callee = cell_of(node, ctx);
   add_leaf(rp_fn_cnt, s->callee);
}

void rp_fn_repoint(void)
{
   if (rp_suspended || run.cell == NULL) rp_fn_cnt = scratch;
   else count_into(run.cell);
}

/* The running thread is now in node `node`. */
static void set_node(UInt node)
{
   run.node = node;
   run.cell = cell_of(node, run.ctx[run.depth]);
   count_into(run.cell);
}

/* Every change the fast paths of rp_fn_switch do not take. */
static __attribute__((noinline)) void switch_slow(UWord fn, UWord sp)
{
   RpFnThread* t = &run;
   RpFrame* f;
   UInt n, ctx, id, parent;
   ctx = t->ctx[t->depth];
   if (UNLIKELY(!rp_clo_fn_inclusive)) {
      set_node(node_child(0, (UInt)fn, ctx));
      return;
   }
   n = t->nframes;
   while (n > 0 && t->frames[n - 1].sp < sp) n--;
   if (n > 0 && t->frames[n - 1].fn == (UInt)fn) { /* back in the caller */
      f = &t->frames[n - 1];
      t->nframes = n;
      if (UNLIKELY(f->ctx != ctx)) { /* a region opened or closed meanwhile */
         f->cell = cell_of(f->node, ctx);
         f->ctx = ctx;
      }
      t->node = f->node;
      t->cell = f->cell;
      count_into(f->cell);
      return;
   }
   if (UNLIKELY(n == t->frames_cap)) {
      t->frames_cap = t->frames_cap == 0 ? 64 : 2 * t->frames_cap;
      t->frames = VG_(realloc)("rp.fn.frames", t->frames, t->frames_cap * sizeof(RpFrame));
   }
   parent = n > 0 ? t->frames[n - 1].node : 0;
   id = node_child(parent, (UInt)fn, ctx);
   f = &t->frames[n];
   f->node = id;
   f->fn = (UInt)fn;
   f->ctx = ctx;
   f->sp = (Addr)sp;
   /* A node's key holds the region it was entered in: its own counters.
    * The parent's memo has them at hand (fewer cache lines touched). */
   f->cell = nodes[parent].memo_child == id ? nodes[parent].memo_cell : nodes[id].cell;
   f->memo_fn = 0;
   t->nframes = n + 1;
   t->node = id;
   t->cell = f->cell;
   count_into(f->cell);
}

/* The two changes a call per element makes, a call from the running
 * function to the child its node met last and the return to the caller, take
 * a few loads and stores here (no callee-saved register, no lookup); the rest
 * goes to switch_slow. */
STATIC_ASSERT(sizeof(RpFrame) == 64);

void rp_fn_switch(UWord fn, UWord sp)
{
   RpFnThread* t = &run;
   RpFrame* f;
   UInt n;
   /* rprof's own work (and what it calls) is rolled back at RESUME: the
    * function stays the one that called the marker. */
   if (UNLIKELY(rp_suspended)) return;
   rp_fn_cur = (UInt)fn;
   n = t->nframes;
   /* (without inclusive counts there are no frames: switch_slow) */
   if (LIKELY(n >= 2)) {
      f = &t->frames[n - 1];
      if (f->sp < sp) { /* shallower: a return, to the caller's frame? */
         const RpFrame* up = f - 1;
         if (LIKELY(up->sp >= sp && up->fn == (UInt)fn && up->ctx == t->ctx[t->depth])) {
            t->nframes = n - 1;
            t->node = up->node;
            t->cell = up->cell;
            count_into(up->cell);
            return;
         }
      } else if (LIKELY(f->fn != (UInt)fn && n < t->frames_cap)) { /* a call */
         const UInt ctx = t->ctx[t->depth];
         RpFrame* c = f + 1;
         if (UNLIKELY(f->memo_fn != (UInt)fn || f->memo_ctx != ctx)) {
            /* not the child this frame called last: the one its node did? */
            const RpNode* p = &nodes[f->node];
            if (UNLIKELY(p->memo_child == 0 || p->memo_fn != (UInt)fn || p->memo_ctx != ctx))
               goto slow;
            f->memo_fn = (UInt)fn;
            f->memo_ctx = ctx;
            f->memo_node = p->memo_child;
            f->memo_cell = p->memo_cell;
         }
         c->node = f->memo_node;
         c->fn = (UInt)fn;
         c->ctx = ctx;
         c->sp = (Addr)sp;
         c->cell = f->memo_cell;
         c->memo_fn = 0;
         t->nframes = n + 1;
         t->node = c->node;
         t->cell = c->cell;
         count_into(c->cell);
         return;
      }
   }
slow:
   switch_slow(fn, sp);
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
   if (run.cell == NULL) run.cell = cell_of(run.node, run.ctx[run.depth]);
   rp_fn_repoint();
}

void rp_fn_thread_restart(RpFnThread* t)
{
   t->nframes = 0;
   t->cur = 0;
   t->node = 0;
   t->cell = NULL;
   t->depth = 0;
   t->deeper = 0;
}

void rp_fn_push(UWord region_id, const HChar* name)
{
   UInt parent, i, ctx = 0;
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
   run.cell = cell_of(run.node, ctx);
   rp_fn_repoint();
}

void rp_fn_pop(void)
{
   if (run.deeper > 0) {
      run.deeper--;
      return;
   }
   if (run.depth > 0) run.depth--;
   run.cell = cell_of(run.node, run.ctx[run.depth]);
   rp_fn_repoint();
}

static void clear_table(void);

void rp_fn_reset(void)
{
   UInt i;

   for (i = 0; i < nnodes; i++) VG_(memset)(nodes[i].cell, 0, NC * sizeof(ULong));
   for (i = 0; i < nxcells; i++) VG_(memset)(xcells[i]->cell, 0, NC * sizeof(ULong));
   /* The copies in the list are of the old counts: the gains start again. */
   nlisted = 0;
   epoch++;
   if (rp_fn_cnt != scratch) list_cell(rp_fn_cnt);
   clear_table(); /* what rp_fn_table_build summed into it (before an exec that failed) */
}

/* ---- the table: self and inclusive counts per (context, function) ------- */

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

static void clear_table(void)
{
   UInt c, f;
   for (c = 0; c < RP_FN_MAX_CTX; c++) {
      for (f = 0; f < counts_cap[c]; f++) {
         if (counts[c][f] != NULL)
            VG_(memset)(counts[c][f], 0, 2 * RPROF_SIM_NCOUNTERS * sizeof(ULong));
      }
   }
}

static void add_to(ULong* dst, const ULong* src)
{
   Int k;
   for (k = 0; k < RPROF_SIM_NCOUNTERS; k++) dst[k] += src[k];
}

/* Marks the nodes whose function no ancestor runs (depth-first, with a count
 * of the open nodes of each function). */
static Bool* outermost_nodes(void)
{
   Bool* outer = VG_(calloc)("rp.fn.outer", nnodes, sizeof(Bool));
   UInt* first = VG_(malloc)("rp.fn.first", nnodes * sizeof(UInt));
   UInt* next = VG_(malloc)("rp.fn.next", nnodes * sizeof(UInt));
   UInt* open = VG_(calloc)("rp.fn.open", nfns + 1, sizeof(UInt));
   Int* stack = VG_(malloc)("rp.fn.dfs", 2 * (nnodes + 1) * sizeof(Int));
   Int top = 0;
   UInt i;
   for (i = 0; i < nnodes; i++) first[i] = 0;
   for (i = nnodes; i-- > 1;) { /* children in creation order */
      next[i] = first[nodes[i].parent];
      first[nodes[i].parent] = i;
   }
   stack[top++] = 0;
   while (top > 0) {
      const Int e = stack[--top];
      UInt c;
      if (e < 0) { /* leaving node ~e */
         open[nodes[~e].fn]--;
         continue;
      }
      if (e != 0) {
         outer[e] = open[nodes[e].fn] == 0;
         open[nodes[e].fn]++;
         stack[top++] = ~e;
      }
      for (c = first[e]; c != 0; c = next[c]) stack[top++] = (Int)c;
   }
   VG_(free)(first);
   VG_(free)(next);
   VG_(free)(open);
   VG_(free)(stack);
   return outer;
}

/* Sums the tree into the table (rp_fn.h). */
void rp_fn_table_build(void)
{
   UInt i;
   Bool* outer;
   for (i = 0; i < nnodes; i++) add_to(slot(nodes[i].ctx, nodes[i].fn), nodes[i].cell);
   for (i = 0; i < nxcells; i++) add_to(slot(xcells[i]->ctx, nodes[xcells[i]->node].fn), xcells[i]->cell);
   if (!rp_clo_fn_inclusive) return;
   /* A node's subtree: its counts in every region, then its children's,
    * children having larger ids than their parent. */
   for (i = 0; i < nxcells; i++) add_to(nodes[xcells[i]->node].cell, xcells[i]->cell);
   outer = outermost_nodes();
   for (i = nnodes; i-- > 1;) {
      if (outer[i]) add_to(slot(nodes[i].ctx, nodes[i].fn) + RPROF_SIM_NCOUNTERS, nodes[i].cell);
      add_to(nodes[nodes[i].parent].cell, nodes[i].cell);
   }
   VG_(free)(outer);
}

/* ---- the table, read by rp_emit_functions (rp_fn.h) --------------------- */

Bool rp_fn_ctx_overflow(void)
{
   return ctx_overflow;
}

Bool rp_fn_tree_overflow(void)
{
   return tree_overflow;
}

UInt rp_fn_nctx(void)
{
   return nctx;
}

void rp_fn_ctx_of(UInt c, UInt* parent, const HChar** name)
{
   *parent = ctxs[c].parent;
   *name = ctxs[c].name;
}

UInt rp_fn_nfns(void)
{
   return nfns;
}

void rp_fn_describe(UInt f, const HChar** obj, const HChar** sym, Addr* start,
                    const HChar** file, UInt* line)
{
   const RpFn* fn = fns[f];
   *obj = fn->obj;
   *sym = fn->sym;
   *start = fn->start;
   *file = fn->file;
   *line = fn->line;
}

UInt rp_fn_counts_end(UInt c)
{
   return counts_cap[c];
}

const ULong* rp_fn_counts(UInt c, UInt f)
{
   return f < counts_cap[c] ? counts[c][f] : NULL;
}
