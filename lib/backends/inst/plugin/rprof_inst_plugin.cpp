// rprof's GCC plugin: counts, per stretch of straight-line code, the FLOPs (by
// precision and vector width, FMA = 2 per lane), the FP arithmetic
// instructions and the bytes loaded and stored, and adds them to the running
// thread's counters (inst_counters.h) where the stretch starts: a few adds per
// basic block, not one per instruction.
//
// The pass runs after "optimized", the last GIMPLE pass at every -O level:
// after vectorization, FMA contraction (widening_mul) and vector lowering, so
// the statements it sees are, operation for operation, what expand turns into
// instructions. A call ends a stretch: what a block does before a call (a
// marker's begin, say) is counted before the call, what it does after, after
// it. Counted (docs/inst-backend.md has the whole list and where it can differ
// from the executed instructions):
//   - assignments whose operation is +, -, *, /, min or max on a float type
//     (scalar, or a vector: one per lane), calls to the internal functions
//     FMA/FMS/FNMA/FNMS (2 per lane), SQRT, FMIN/FMAX and their conditional
//     (masked) forms, with every lane counted: the convention for masked
//     operations, stated and tested; reductions (REDUC_PLUS/MIN/MAX): lanes-1;
//     sqrt/sqrtf calls (the builtin, inlined as one instruction);
//   - bytes: every load and store of a GIMPLE memory reference, by the size of
//     its type; masked loads and stores by their full vector size; memcpy,
//     memmove, mempcpy and memset calls by their size, added at run time.
// long double (x87) counts as scalar DP, as the sim backend does; _Float16 and
// bfloat16 are not counted (rprof's counters have no half precision).
//
// Functions and loop nests as regions: where a function that has loops
// starts and returns, and where each of its loop nests (outermost loops) is
// entered and left, a call to the run-time object's __rprof_inst_enter/exit
// (inst_counters.h) with the region's name: "f()" (the function's printable
// name) and "loop FILE:LINE" (the loop's location). Inner loops and
// functions without loops are not regions: their work is their nest's or
// caller's, and their entries cost nothing.
//
// Calls to functions the unit does not define are listed in a note (section
// .note.rprof.calls, with the functions it defines), so rprof can name the
// code the program calls that may be built without the plugin.
//
// Usage: gcc -fplugin=rprof_inst.so ... (rprof cc does this). Options:
//   -fplugin-arg-rprof_inst-dump=FILE   append one line per counted block
//                                        (function, file:line, counts) to FILE
//   -fplugin-arg-rprof_inst-regions=all|loops|functions|none
//                                        which regions to make (default all)
//   -fplugin-arg-rprof_inst-memory=on|off
//                                        memory accesses for the sampled cache
//                                        model (default on): each access the
//                                        byte counters count, with its address,
//                                        to __rprof_inst_load/store when it
//                                        touches a line the thread samples
//   -fplugin-arg-rprof_inst-versions=on|off
//                                        each loop nest compiled as a plain, a
//                                        counted and a counted-with-accesses
//                                        copy, picked at run time
//                                        (version_nests; default on when
//                                        optimizing)
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "context.h"
#include "tree.h"
#include "tree-pass.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "stringpool.h"
#include "attribs.h"
#include "internal-fn.h"
#include "cgraph.h"
#include "varasm.h"
#include "diagnostic.h"
#include "langhooks.h"
#include "tree-into-ssa.h"
#include "tree-ssa-operands.h"
#include "builtins.h"
#include "gimplify.h"
#include "tree-cfg.h"
#include "ggc.h"
#include "cfgloop.h"
#include "cfgloopmanip.h"
#include "tree-chrec.h"
#include "tree-scalar-evolution.h"
#include "tree-ssa-loop-niter.h"
#include "gimplify-me.h"
#include "dominance.h"
#include "output.h"
#include "asan.h"

#include <set>
#include <string>
#include <vector>

#include <cstdio>
#include <cstring>

#include "../inst_counters.h"

int plugin_is_GPL_compatible;  // GCC loads only plugins that say so

namespace {

// The counter array, declared once per translation unit (a GC root: the
// declaration outlives each function's body).
tree g_counters = NULL_TREE;
tree g_enter = NULL_TREE;  // __rprof_inst_enter, __rprof_inst_exit
tree g_exit = NULL_TREE;
tree g_load = NULL_TREE;  // __rprof_inst_load, __rprof_inst_store
tree g_store = NULL_TREE;
tree g_counting = NULL_TREE;  // __rprof_inst_counting (loop versions)
const ggc_root_tab g_roots[] = {
    {&g_counting, 1, sizeof(g_counting), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&g_load, 1, sizeof(g_load), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&g_store, 1, sizeof(g_store), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&g_counters, 1, sizeof(g_counters), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&g_enter, 1, sizeof(g_enter), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    {&g_exit, 1, sizeof(g_exit), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB};

FILE* g_dump = nullptr;
bool g_function_regions = true;
bool g_loop_regions = true;
bool g_memory = true;  // memory accesses for the cache model (memory=on)
bool g_versions = true;  // a plain copy of each loop nest (versions=on)
// The unit's calls to functions it does not define, and the functions it
// defines (assembler names), for the calls note.
std::set<std::string> g_called, g_defined;
// Whether a loop nest of the unit got a plain version (the calls note's "V").
bool g_versioned = false;

// An external variable of the run-time archive (inst_rt.c), declared once
// per translation unit.
tree extern_var_decl(const char* name, tree type) {
  tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(name), type);
  TREE_PUBLIC(decl) = 1;
  DECL_EXTERNAL(decl) = 1;
  TREE_STATIC(decl) = 1;
  DECL_ARTIFICIAL(decl) = 1;
  TREE_USED(decl) = 1;
  return decl;
}

tree counters_decl() {
  if (g_counters) return g_counters;
  tree type = build_array_type_nelts(long_long_unsigned_type_node, RPROF_INST_ARRAY);
  tree decl = extern_var_decl(RPROF_INST_COUNTERS_SYMBOL, type);
  // initial-exec: the array is the executable's (inst_rt.c), in the static
  // TLS block, so a shared library built with the plugin reaches it without
  // __tls_get_addr; in the executable the linker relaxes this to local-exec.
  set_decl_tls_model(decl, TLS_MODEL_INITIAL_EXEC);
  varpool_node::finalize_decl(decl);
  g_counters = decl;
  return decl;
}

// The process-wide flag that picks a loop nest's counted version
// (inst_counters.h, RPROF_INST_COUNTING_SYMBOL).
tree counting_decl() {
  if (g_counting) return g_counting;
  tree decl = extern_var_decl(RPROF_INST_COUNTING_SYMBOL, integer_type_node);
  varpool_node::finalize_decl(decl);
  g_counting = decl;
  return decl;
}

struct Counts {
  unsigned long long v[RPROF_INST_NCOUNTERS];
  bool any() const {
    for (unsigned long long x : v) {
      if (x) return true;
    }
    return false;
  }
};

// Precision (0 sp, 1 dp) of a float element type; -1 when not counted.
int precision_of(tree elem) {
  if (!SCALAR_FLOAT_TYPE_P(elem) || DECIMAL_FLOAT_TYPE_P(elem)) return -1;
  const unsigned bits = TYPE_PRECISION(elem);
  if (bits == 32) return 0;
  if (bits == 64 || bits == 80 || bits == 128) return 1;  // x87 / float128 as DP
  return -1;                                              // half, bfloat16
}

// Width class (0 scalar, 1 128, 2 256, 3 512), lanes and precision of a type;
// false when it is not a (vector of) counted float.
bool classify(tree type, int* prec, int* width, unsigned long long* lanes) {
  if (!type) return false;
  if (VECTOR_TYPE_P(type)) {
    *prec = precision_of(TREE_TYPE(type));
    if (*prec < 0) return false;
    const unsigned HOST_WIDE_INT bits = tree_to_uhwi(TYPE_SIZE(type));
    *width = bits <= 128 ? 1 : bits <= 256 ? 2 : 3;
    *lanes = TYPE_VECTOR_SUBPARTS(type).to_constant();
    return true;
  }
  *prec = precision_of(type);
  if (*prec < 0) return false;
  *width = 0;
  *lanes = 1;
  return true;
}

void add_fp(Counts& c, tree type, unsigned long long flops_per_lane, bool reduction = false) {
  int prec = 0, width = 0;
  unsigned long long lanes = 0;
  if (!classify(type, &prec, &width, &lanes)) return;
  const unsigned long long flops = reduction ? (lanes > 0 ? lanes - 1 : 0) : lanes * flops_per_lane;
  c.v[RPROF_INST_FLOPS(prec, width)] += flops;
  c.v[RPROF_INST_FPINS(prec, width)] += 1;
}

unsigned long long size_of(tree t) {
  tree type = TREE_TYPE(t);
  if (!type || !TYPE_SIZE_UNIT(type) || !tree_fits_uhwi_p(TYPE_SIZE_UNIT(type))) return 0;
  return tree_to_uhwi(TYPE_SIZE_UNIT(type));
}

// A GIMPLE operand that is memory (a load's source, a store's target): a
// reference whose base is a variable that lives in memory or a dereference;
// not an operation (a COND_EXPR's embedded comparison) nor a view of a
// register (VIEW_CONVERT_EXPR, REALPART_EXPR of an SSA name).
bool is_memory(tree t) {
  if (!t || TREE_CODE(t) == SSA_NAME || TREE_CODE(t) == CONSTRUCTOR || is_gimple_reg(t) ||
      is_gimple_min_invariant(t)) {
    return false;
  }
  if (!REFERENCE_CLASS_P(t) && !DECL_P(t)) return false;
  tree base = get_base_address(t);
  if (!base) return false;
  if (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF) return true;
  if (VAR_P(base) && DECL_HARD_REGISTER(base)) return false;  // register int r asm("r12")
  return (VAR_P(base) || TREE_CODE(base) == PARM_DECL || TREE_CODE(base) == RESULT_DECL) &&
         !is_gimple_reg(base);
}

// The loads of the counting flag that pick a loop nest's version
// (version_nests): the plugin's, not the program's: neither counted nor
// passed to the cache model.
std::set<gimple*> g_flag_loads;

void count_assign(Counts& c, gassign* a) {
  if (g_flag_loads.count(a)) return;
  // A clobber (a variable's end of life) is no instruction.
  if (gimple_clobber_p(a)) return;
  tree lhs = gimple_assign_lhs(a);
  const tree_code code = gimple_assign_rhs_code(a);
  switch (code) {
    case PLUS_EXPR:
    case MINUS_EXPR:
    case MULT_EXPR:
    case RDIV_EXPR:
    case MIN_EXPR:
    case MAX_EXPR:
      add_fp(c, TREE_TYPE(lhs), 1);
      break;
    default:
      break;
  }
  if (gimple_store_p(a) && is_memory(lhs)) c.v[RPROF_INST_BYTES_WRITE] += size_of(lhs);
  if (gimple_assign_single_p(a)) {
    tree rhs = gimple_assign_rhs1(a);
    if (is_memory(rhs) && TREE_CODE(rhs) != ADDR_EXPR) c.v[RPROF_INST_BYTES_READ] += size_of(rhs);
  } else {
    // An operation's operands may be memory at -O0 only for the single form;
    // GIMPLE keeps them registers, but be exact if one is not.
    for (unsigned i = 1; i < gimple_num_ops(a); ++i) {
      tree op = gimple_op(a, i);
      if (is_memory(op) && TREE_CODE(op) != ADDR_EXPR) c.v[RPROF_INST_BYTES_READ] += size_of(op);
    }
  }
}

// Counts an internal-function call; true when it is one (no stretch ends).
bool count_internal(Counts& c, gcall* call) {
  if (!gimple_call_internal_p(call)) return false;
  tree lhs = gimple_call_lhs(call);
  tree type = lhs ? TREE_TYPE(lhs) : NULL_TREE;
  switch (gimple_call_internal_fn(call)) {
    case IFN_FMA:
    case IFN_FMS:
    case IFN_FNMA:
    case IFN_FNMS:
    case IFN_COND_FMA:
    case IFN_COND_FMS:
    case IFN_COND_FNMA:
    case IFN_COND_FNMS:
      add_fp(c, type, 2);
      break;
    case IFN_SQRT:
    case IFN_FMIN:
    case IFN_FMAX:
    case IFN_COND_ADD:
    case IFN_COND_SUB:
    case IFN_COND_MUL:
    case IFN_COND_RDIV:
    case IFN_COND_MIN:
    case IFN_COND_MAX:
    case IFN_COND_FMIN:
    case IFN_COND_FMAX:
      add_fp(c, type, 1);
      break;
    case IFN_REDUC_PLUS:
    case IFN_REDUC_MIN:
    case IFN_REDUC_MAX:
    case IFN_REDUC_FMIN:
    case IFN_REDUC_FMAX:
      // The reduced vector is the argument; the result is its element.
      if (gimple_call_num_args(call) >= 1) add_fp(c, TREE_TYPE(gimple_call_arg(call, 0)), 1, true);
      break;
    case IFN_MASK_LOAD:
    case IFN_LOAD_LANES:
    case IFN_MASK_LOAD_LANES:
      if (lhs) c.v[RPROF_INST_BYTES_READ] += size_of(lhs);
      break;
    case IFN_MASK_STORE:
      if (gimple_call_num_args(call) >= 4)
        c.v[RPROF_INST_BYTES_WRITE] += size_of(gimple_call_arg(call, 3));
      break;
    case IFN_STORE_LANES:
    case IFN_MASK_STORE_LANES:
      if (lhs) c.v[RPROF_INST_BYTES_WRITE] += size_of(lhs);
      break;
    default:
      break;
  }
  return true;
}

// sqrt(x) as a builtin: one instruction once expanded (the errno path's call
// to libm, taken only for a negative x, is not counted).
bool count_builtin(Counts& c, gcall* call) {
  tree fn = gimple_call_fndecl(call);
  if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL)) return false;
  switch (DECL_FUNCTION_CODE(fn)) {
    CASE_FLT_FN(BUILT_IN_SQRT):
      if (gimple_call_lhs(call)) add_fp(c, TREE_TYPE(gimple_call_lhs(call)), 1);
      return true;
    CASE_FLT_FN(BUILT_IN_FMIN):
    CASE_FLT_FN(BUILT_IN_FMAX):
      if (gimple_call_lhs(call)) add_fp(c, TREE_TYPE(gimple_call_lhs(call)), 1);
      return true;
    default:
      return false;
  }
}

// counters[k] += n, before gsi.
void insert_add(gimple_stmt_iterator* gsi, int k, unsigned long long n, bool before) {
  tree decl = counters_decl();
  tree elem = long_long_unsigned_type_node;
  tree ref = build4(ARRAY_REF, elem, decl, build_int_cst(integer_type_node, k), NULL_TREE,
                    NULL_TREE);
  const bool ssa = gimple_in_ssa_p(cfun);
  tree old_v = ssa ? make_ssa_name(elem) : create_tmp_var(elem, "rprof_c");
  tree new_v = ssa ? make_ssa_name(elem) : create_tmp_var(elem, "rprof_c");
  gassign* load = gimple_build_assign(old_v, ref);
  gassign* add = gimple_build_assign(new_v, PLUS_EXPR, old_v, build_int_cst(elem, n));
  gassign* store = gimple_build_assign(unshare_expr(ref), new_v);
  gimple_seq seq = NULL;
  gimple_seq_add_stmt(&seq, load);
  gimple_seq_add_stmt(&seq, add);
  gimple_seq_add_stmt(&seq, store);
  if (before) {
    gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
  } else {
    gsi_insert_seq_after(gsi, seq, GSI_SAME_STMT);
  }
}

// counters[k] += value (a run-time size), before gsi.
void insert_add_value(gimple_stmt_iterator* gsi, int k, tree value) {
  tree decl = counters_decl();
  tree elem = long_long_unsigned_type_node;
  tree ref = build4(ARRAY_REF, elem, decl, build_int_cst(integer_type_node, k), NULL_TREE,
                    NULL_TREE);
  const bool ssa = gimple_in_ssa_p(cfun);
  auto fresh = [&]() { return ssa ? make_ssa_name(elem) : create_tmp_var(elem, "rprof_c"); };
  gimple_seq seq = NULL;
  tree n = value;
  if (TREE_CODE(value) == INTEGER_CST) {
    n = fold_convert(elem, value);
  } else if (!useless_type_conversion_p(elem, TREE_TYPE(value))) {
    n = fresh();
    gimple_seq_add_stmt(&seq, gimple_build_assign(n, NOP_EXPR, value));
  }
  tree old_v = fresh();
  tree new_v = fresh();
  gimple_seq_add_stmt(&seq, gimple_build_assign(old_v, ref));
  gimple_seq_add_stmt(&seq, gimple_build_assign(new_v, PLUS_EXPR, old_v, n));
  gimple_seq_add_stmt(&seq, gimple_build_assign(unshare_expr(ref), new_v));
  gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
}

// memcpy, memmove, mempcpy (n bytes read and written) and memset (n written),
// which GCC also makes of copy and fill loops (-ftree-loop-distribute-patterns,
// on from -O2): their size is known only at run time, so it is added then,
// before the call. The library's own accesses may exceed n (overlapping
// stores of a tail); the simulator counts those.
void count_block_memory(gimple_stmt_iterator* gsi, gcall* call) {
  tree fn = gimple_call_fndecl(call);
  if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL) || gimple_call_num_args(call) < 3) return;
  bool reads = false;
  switch (DECL_FUNCTION_CODE(fn)) {
    case BUILT_IN_MEMCPY:
    case BUILT_IN_MEMMOVE:
    case BUILT_IN_MEMPCPY:
    case BUILT_IN_MEMCPY_CHK:
    case BUILT_IN_MEMMOVE_CHK:
    case BUILT_IN_MEMPCPY_CHK:
      reads = true;
      break;
    case BUILT_IN_MEMSET:
    case BUILT_IN_MEMSET_CHK:
      break;
    default:
      return;
  }
  tree n = gimple_call_arg(call, 2);
  if (!INTEGRAL_TYPE_P(TREE_TYPE(n))) return;
  if (g_dump) {
    std::fprintf(g_dump, "%s %s bytes: run time\n",
                 IDENTIFIER_POINTER(DECL_NAME(current_function_decl)),
                 IDENTIFIER_POINTER(DECL_NAME(fn)));
  }
  insert_add_value(gsi, RPROF_INST_BYTES_WRITE, n);
  if (reads) insert_add_value(gsi, RPROF_INST_BYTES_READ, n);
}

void insert_counts(gimple_stmt_iterator* gsi, const Counts& c, bool before) {
  for (int k = RPROF_INST_NCOUNTERS - 1; k >= 0; --k) {
    if (c.v[k]) insert_add(gsi, k, c.v[k], before);
  }
}

void dump_stretch(const Counts& c, location_t loc) {
  if (!g_dump || !c.any()) return;
  expanded_location x = expand_location(loc);
  std::fprintf(g_dump, "%s %s:%d", IDENTIFIER_POINTER(DECL_NAME(current_function_decl)),
               x.file ? x.file : "?", x.line);
  for (int k = 0; k < RPROF_INST_NCOUNTERS; ++k) std::fprintf(g_dump, " %llu", c.v[k]);
  std::fprintf(g_dump, "\n");
}

// A block's counts when it has no call that ends a stretch (*plain false
// when it has one, or an EH or abnormal edge).
Counts block_counts(basic_block bb, bool* plain) {
  Counts c{};
  *plain = true;
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, bb->succs) {
    if (e->flags & (EDGE_EH | EDGE_ABNORMAL)) *plain = false;
  }
  for (gimple_stmt_iterator gsi = gsi_after_labels(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
    gimple* stmt = gsi_stmt(gsi);
    if (is_gimple_debug(stmt)) continue;
    if (gassign* a = dyn_cast<gassign*>(stmt)) {
      count_assign(c, a);
    } else if (gcall* call = dyn_cast<gcall*>(stmt)) {
      if (!count_internal(c, call) && !count_builtin(c, call)) *plain = false;
    } else if (greturn* r = dyn_cast<greturn*>(stmt)) {
      tree v = gimple_return_retval(r);
      if (is_memory(v)) c.v[RPROF_INST_BYTES_READ] += size_of(v);
    } else if (gimple_code(stmt) == GIMPLE_ASM) {
      *plain = false;
    }
  }
  return c;
}

// counters[k] += value, appended to seq.
void append_add(gimple_seq* seq, int k, tree value) {
  tree elem = long_long_unsigned_type_node;
  tree ref = build4(ARRAY_REF, elem, counters_decl(), build_int_cst(integer_type_node, k),
                    NULL_TREE, NULL_TREE);
  tree old_v = make_ssa_name(elem);
  tree new_v = make_ssa_name(elem);
  gimple_seq_add_stmt(seq, gimple_build_assign(old_v, ref));
  gimple_seq_add_stmt(seq, gimple_build_assign(new_v, PLUS_EXPR, old_v, value));
  gimple_seq_add_stmt(seq, gimple_build_assign(unshare_expr(ref), new_v));
}

// An innermost loop without calls whose iteration count GCC knows on entry
// (niter: the latch's executions), and whose counted blocks each run on every
// iteration: its counts are added once, before it, times the iterations,
// instead of on every iteration (a store-to-load chain through memory per
// counter per iteration, which would slow a tight loop to the latency of that
// chain). Blocks up to the exit test run niter + 1 times, those after it
// niter times. Returns the blocks it took over (none: the loop keeps its
// per-block updates).
std::vector<basic_block> hoist_loop(class loop* loop) {
  edge exit = single_exit(loop);
  if (!exit || !loop->latch || !dominated_by_p(CDI_DOMINATORS, loop->latch, exit->src)) return {};
  if (loop_outer(loop) == nullptr) return {};
  tree niter = number_of_latch_executions(loop);
  if (!niter || chrec_contains_undetermined(niter) || !INTEGRAL_TYPE_P(TREE_TYPE(niter)) ||
      chrec_contains_symbols_defined_in_loop(niter, loop->num)) {
    return {};
  }
  Counts before_exit{}, after_exit{};
  std::vector<basic_block> blocks;
  basic_block* body = get_loop_body(loop);
  bool ok = true;
  for (unsigned i = 0; ok && i < loop->num_nodes; ++i) {
    basic_block bb = body[i];
    bool plain = true;
    const Counts c = block_counts(bb, &plain);
    if (!plain) {
      ok = false;
      break;
    }
    blocks.push_back(bb);
    if (!c.any()) continue;
    Counts* into = nullptr;
    if (dominated_by_p(CDI_DOMINATORS, exit->src, bb)) {
      into = &before_exit;  // runs on every iteration, the last one too
    } else if (dominated_by_p(CDI_DOMINATORS, bb, exit->src) &&
               dominated_by_p(CDI_DOMINATORS, loop->latch, bb)) {
      into = &after_exit;  // after the exit test, on every iteration but the last
    } else {
      ok = false;  // conditional: its count is not a function of niter
      break;
    }
    for (int k = 0; k < RPROF_INST_NCOUNTERS; ++k) into->v[k] += c.v[k];
  }
  free(body);
  if (!ok || !(before_exit.any() || after_exit.any())) return {};
  tree elem = long_long_unsigned_type_node;
  gimple_seq seq = NULL;
  tree n = force_gimple_operand(fold_convert(elem, unshare_expr(niter)), &seq, true, NULL_TREE);
  tree n1 = make_ssa_name(elem);
  gimple_seq_add_stmt(&seq, gimple_build_assign(n1, PLUS_EXPR, n, build_int_cst(elem, 1)));
  for (int k = RPROF_INST_NCOUNTERS - 1; k >= 0; --k) {
    const unsigned long long a = before_exit.v[k], b = after_exit.v[k];
    if (!a && !b) continue;
    tree total = NULL_TREE;
    if (a) {
      total = make_ssa_name(elem);
      gimple_seq_add_stmt(&seq, gimple_build_assign(total, MULT_EXPR, n1, build_int_cst(elem, a)));
    }
    if (b) {
      tree tb = make_ssa_name(elem);
      gimple_seq_add_stmt(&seq, gimple_build_assign(tb, MULT_EXPR, n, build_int_cst(elem, b)));
      if (total) {
        tree sum = make_ssa_name(elem);
        gimple_seq_add_stmt(&seq, gimple_build_assign(sum, PLUS_EXPR, total, tb));
        total = sum;
      } else {
        total = tb;
      }
    }
    append_add(&seq, k, total);
  }
  if (g_dump) {
    gimple* test = last_stmt(exit->src);
    expanded_location x = expand_location(test ? gimple_location(test) : UNKNOWN_LOCATION);
    std::fprintf(g_dump, "%s %s:%d loop: counted once before it, times its iterations\n",
                 IDENTIFIER_POINTER(DECL_NAME(current_function_decl)), x.file ? x.file : "?",
                 x.line);
  }
  gsi_insert_seq_on_edge(loop_preheader_edge(loop), seq);
  return blocks;
}

// One block: stretches end at calls that are not counted as FP work.
void instrument_block(basic_block bb) {
  Counts c{};
  bool start_at_block = true;  // the stretch starts at the block's first statement
  gimple_stmt_iterator last_call{};
  location_t loc = UNKNOWN_LOCATION;
  auto flush = [&]() {
    if (!c.any()) return;
    dump_stretch(c, loc);
    if (start_at_block) {
      gimple_stmt_iterator at = gsi_after_labels(bb);
      if (gsi_end_p(at)) {
        gimple_stmt_iterator end = gsi_last_bb(bb);
        insert_counts(&end, c, false);
      } else {
        insert_counts(&at, c, true);
      }
    } else {
      insert_counts(&last_call, c, false);
    }
    c = Counts{};
  };
  for (gimple_stmt_iterator gsi = gsi_after_labels(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
    gimple* stmt = gsi_stmt(gsi);
    if (is_gimple_debug(stmt)) continue;
    if (loc == UNKNOWN_LOCATION && gimple_has_location(stmt)) loc = gimple_location(stmt);
    if (gassign* a = dyn_cast<gassign*>(stmt)) {
      count_assign(c, a);
    } else if (gcall* call = dyn_cast<gcall*>(stmt)) {
      if (count_internal(c, call) || count_builtin(c, call)) continue;
      // A real call: what came before it is counted before it, at the
      // stretch's start; the next stretch starts after it. Its return value
      // stored to memory (x = f()) is counted with the next stretch.
      flush();
      count_block_memory(&gsi, call);
      if (tree lhs = gimple_call_lhs(call)) {
        if (is_memory(lhs)) c.v[RPROF_INST_BYTES_WRITE] += size_of(lhs);
      }
      for (unsigned i = 0; i < gimple_call_num_args(call); ++i) {
        tree arg = gimple_call_arg(call, i);
        if (is_memory(arg) && TREE_CODE(arg) != ADDR_EXPR) c.v[RPROF_INST_BYTES_READ] += size_of(arg);
      }
      // Aggregates passed by value (loaded before the call) are added with
      // the next stretch, right after the call.
      start_at_block = false;
      last_call = gsi;
      loc = UNKNOWN_LOCATION;
    } else if (greturn* r = dyn_cast<greturn*>(stmt)) {
      tree v = gimple_return_retval(r);
      if (is_memory(v)) c.v[RPROF_INST_BYTES_READ] += size_of(v);
    }
  }
  // The block's last stretch. If the block ends in a call that ends the block
  // (a noreturn call, or one that can throw), there is nothing after it.
  if (!start_at_block && stmt_ends_bb_p(gsi_stmt(last_call))) {
    c = Counts{};
    return;
  }
  flush();
}

// --- Memory accesses for the cache model (option memory=, on by default;
// inst_counters.h, RPROF_INST_SET_BITS). Each access the byte counters
// count, with the size they count, becomes a call to
// __rprof_inst_load/__rprof_inst_store(addr, bytes) made just before it,
// under the thread's set filter: a statement makes its calls when one of its
// accesses' first or last byte lies in a selected line (bit (a >> 6) & 63
// of B, loaded from the counter array where its block starts) or, under a
// filter that passes anything (B != 0), is longer than 64 bytes (a branch, predicted not
// taken, per statement that accesses memory). Placed after the counting, on
// the statements collected before it, so the counters' own updates and the
// hooks' calls are neither instrumented nor stretch-ending calls.

tree mem_hook_decl(bool store) {
  tree* slot = store ? &g_store : &g_load;
  if (*slot) return *slot;
  tree type = build_function_type_list(void_type_node, const_ptr_type_node,
                                       long_unsigned_type_node, NULL_TREE);
  tree decl = build_fn_decl(store ? RPROF_INST_STORE_SYMBOL : RPROF_INST_LOAD_SYMBOL, type);
  TREE_NOTHROW(decl) = 1;
  DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
  *slot = decl;
  return decl;
}

// One access: where (a memory reference, or a pointer to it when ptr), how
// many bytes (a constant, or a run-time size), load or store.
struct Access {
  tree where;
  bool ptr;
  tree bytes;
  bool store;
};

void add_ref(std::vector<Access>& out, tree ref, bool store) {
  const unsigned long long n = size_of(ref);
  if (n) out.push_back({ref, false, build_int_cst(long_unsigned_type_node, n), store});
}

void add_ptr(std::vector<Access>& out, tree p, unsigned long long n, bool store) {
  if (n) out.push_back({p, true, build_int_cst(long_unsigned_type_node, n), store});
}

// A statement's accesses in the order it makes them: exactly what
// count_assign, count_internal, count_block_memory and instrument_block count,
// with the same sizes.
std::vector<Access> stmt_accesses(gimple* stmt) {
  std::vector<Access> out;
  if (gassign* a = dyn_cast<gassign*>(stmt)) {
    if (gimple_clobber_p(a)) return out;
    tree lhs = gimple_assign_lhs(a);
    if (gimple_assign_single_p(a)) {
      tree rhs = gimple_assign_rhs1(a);
      if (is_memory(rhs) && TREE_CODE(rhs) != ADDR_EXPR) add_ref(out, rhs, false);
    } else {
      for (unsigned i = 1; i < gimple_num_ops(a); ++i) {
        tree op = gimple_op(a, i);
        if (is_memory(op) && TREE_CODE(op) != ADDR_EXPR) add_ref(out, op, false);
      }
    }
    if (gimple_store_p(a) && is_memory(lhs)) add_ref(out, lhs, true);
  } else if (gcall* call = dyn_cast<gcall*>(stmt)) {
    if (gimple_call_internal_p(call)) {
      tree lhs = gimple_call_lhs(call);
      auto at = [&](tree op, unsigned long long n, bool store) {
        if (POINTER_TYPE_P(TREE_TYPE(op)) && is_gimple_val(op)) {
          add_ptr(out, op, n, store);
        } else if (is_memory(op)) {
          if (n) out.push_back({op, false, build_int_cst(long_unsigned_type_node, n), store});
        }
      };
      switch (gimple_call_internal_fn(call)) {
        case IFN_MASK_LOAD:
        case IFN_LOAD_LANES:
        case IFN_MASK_LOAD_LANES:
          if (lhs && gimple_call_num_args(call) >= 1) at(gimple_call_arg(call, 0), size_of(lhs), false);
          break;
        case IFN_MASK_STORE:
          if (gimple_call_num_args(call) >= 4) {
            at(gimple_call_arg(call, 0), size_of(gimple_call_arg(call, 3)), true);
          }
          break;
        case IFN_STORE_LANES:
          if (lhs) at(lhs, size_of(lhs), true);
          break;
        case IFN_MASK_STORE_LANES:
          if (lhs && gimple_call_num_args(call) >= 1) at(gimple_call_arg(call, 0), size_of(lhs), true);
          break;
        default:
          break;
      }
      return out;
    }
    Counts scratch{};
    if (count_builtin(scratch, call)) return out;
    // memcpy and the like (count_block_memory): n bytes at run time.
    tree fn = gimple_call_fndecl(call);
    if (fn && fndecl_built_in_p(fn, BUILT_IN_NORMAL) && gimple_call_num_args(call) >= 3 &&
        INTEGRAL_TYPE_P(TREE_TYPE(gimple_call_arg(call, 2)))) {
      tree n = gimple_call_arg(call, 2);
      switch (DECL_FUNCTION_CODE(fn)) {
        case BUILT_IN_MEMCPY:
        case BUILT_IN_MEMMOVE:
        case BUILT_IN_MEMPCPY:
        case BUILT_IN_MEMCPY_CHK:
        case BUILT_IN_MEMMOVE_CHK:
        case BUILT_IN_MEMPCPY_CHK:
          out.push_back({gimple_call_arg(call, 1), true, n, false});
          out.push_back({gimple_call_arg(call, 0), true, n, true});
          break;
        case BUILT_IN_MEMSET:
        case BUILT_IN_MEMSET_CHK:
          out.push_back({gimple_call_arg(call, 0), true, n, true});
          break;
        default:
          break;
      }
    }
    // The arguments and the value stored, counted in the stretch after the
    // call: none when the call ends its block (instrument_block drops them).
    if (stmt_ends_bb_p(call)) return out;
    for (unsigned i = 0; i < gimple_call_num_args(call); ++i) {
      tree arg = gimple_call_arg(call, i);
      if (is_memory(arg) && TREE_CODE(arg) != ADDR_EXPR) add_ref(out, arg, false);
    }
    if (tree lhs = gimple_call_lhs(call)) {
      if (is_memory(lhs)) add_ref(out, lhs, true);
    }
  } else if (greturn* r = dyn_cast<greturn*>(stmt)) {
    tree v = gimple_return_retval(r);
    if (is_memory(v)) add_ref(out, v, false);
  }
  return out;
}

// A block's statements that access memory, with their accesses; collected
// before any instrumentation.
struct MemStmt {
  gimple* stmt;
  std::vector<Access> accesses;
};
using MemBlock = std::vector<MemStmt>;

std::vector<MemBlock> collect_memory(function* fn, const std::set<int>& plain) {
  std::vector<MemBlock> blocks;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn) {
    if (plain.count(bb->index)) continue;
    MemBlock b;
    for (gimple_stmt_iterator g = gsi_after_labels(bb); !gsi_end_p(g); gsi_next(&g)) {
      gimple* st = gsi_stmt(g);
      if (is_gimple_debug(st)) continue;
      if (g_flag_loads.count(st)) continue;
      std::vector<Access> acc = stmt_accesses(st);
      if (!acc.empty()) b.push_back({st, std::move(acc)});
    }
    if (!b.empty()) blocks.push_back(std::move(b));
  }
  return blocks;
}

tree fresh_value(tree type, const char* name) {
  return gimple_in_ssa_p(cfun) ? make_ssa_name(type) : create_tmp_var(type, name);
}

// expr as a GIMPLE value, what computes it appended to seq
// (force_gimple_operand starts its own sequence).
tree value_into(tree expr, gimple_seq* seq) {
  gimple_seq more = NULL;
  tree v = force_gimple_operand(expr, &more, true, NULL_TREE);
  gimple_seq_add_seq(seq, more);
  return v;
}

// The address of a memory reference, as a value appended to seq. A bit-field
// has no address: its first byte's (the bytes counted are its type's).
tree access_address(tree ref, gimple_seq* seq) {
  tree addr;
  const bool bits = TREE_CODE(ref) == BIT_FIELD_REF || contains_bitfld_component_ref_p(ref);
  if (bits) {
    poly_int64 bitsize, bitpos;
    tree offset = NULL_TREE;
    machine_mode mode;
    int unsignedp = 0, reversep = 0, volatilep = 0;
    tree base = get_inner_reference(ref, &bitsize, &bitpos, &offset, &mode, &unsignedp,
                                    &reversep, &volatilep);
    HOST_WIDE_INT bytepos = 0;
    if (!bitpos.is_constant(&bytepos)) bytepos = 0;
    bytepos /= BITS_PER_UNIT;
    if (DECL_P(base)) TREE_ADDRESSABLE(base) = 1;
    addr = build_fold_addr_expr(unshare_expr(base));
    if (offset) addr = fold_build_pointer_plus(addr, unshare_expr(offset));
    if (bytepos) addr = fold_build_pointer_plus_hwi(addr, bytepos);
  } else {
    tree base = get_base_address(ref);
    if (base && DECL_P(base)) TREE_ADDRESSABLE(base) = 1;
    addr = build_fold_addr_expr(unshare_expr(ref));
  }
  return value_into(fold_convert(const_ptr_type_node, addr), seq);
}

// Whether an access lies in one 64-byte line wherever it is: a memory
// reference (not a bit-field) of a constant power-of-two size of at most 64
// bytes, aligned to it (its type's alignment, or what GCC knows of its
// address).
bool within_one_line(const Access& a) {
  if (a.ptr || TREE_CODE(a.bytes) != INTEGER_CST || !tree_fits_uhwi_p(a.bytes)) return false;
  const unsigned HOST_WIDE_INT n = tree_to_uhwi(a.bytes);
  if (n == 0 || n > 64 || (n & (n - 1)) != 0) return false;
  if (TREE_CODE(a.where) == BIT_FIELD_REF || contains_bitfld_component_ref_p(a.where)) return false;
  return get_object_alignment(a.where) >= n * BITS_PER_UNIT;
}

// The address of an access, as a value appended to seq.
tree access_value(const Access& a, gimple_seq* seq) {
  return a.ptr ? value_into(fold_convert(const_ptr_type_node, a.where), seq)
               : access_address(a.where, seq);
}

// One block: the filter's B loaded where it starts, then before each
// statement that accesses memory, if (selected) { its calls }.
void instrument_memory(const MemBlock& b) {
  tree word = long_long_unsigned_type_node;
  auto slot = [&](int i) {
    return build4(ARRAY_REF, word, counters_decl(), build_int_cst(integer_type_node, i), NULL_TREE,
                  NULL_TREE);
  };
  tree bits = fresh_value(word, "rprof_b");
  gimple_seq seq = NULL;
  gimple_seq_add_stmt(&seq, gimple_build_assign(bits, slot(RPROF_INST_SET_BITS)));
  // Bit ((a >> 6) & 63) of B. The count is masked as an int, where x86's
  // variable shifts mask it themselves: shr, shrx (no AND).
  auto selected = [&](tree a, gimple_seq* pre) {
    tree count = value_into(
        fold_build2(BIT_AND_EXPR, unsigned_type_node,
                    fold_convert(unsigned_type_node,
                                 fold_build2(RSHIFT_EXPR, word, a, build_int_cst(word, 6))),
                    build_int_cst(unsigned_type_node, 63)),
        pre);
    tree bit = fold_build2(BIT_AND_EXPR, word, fold_build2(RSHIFT_EXPR, word, bits, count),
                           build_int_cst(word, 1));
    return fold_build2(NE_EXPR, boolean_type_node, bit, build_int_cst(word, 0));
  };
  gimple_stmt_iterator first = gsi_for_stmt(b.front().stmt);
  gsi_insert_seq_before(&first, seq, GSI_SAME_STMT);
  for (const MemStmt& m : b) {
    // Before the statement: each access's address and size, and whether it
    // is selected; the calls use the same values.
    gimple_seq pre = NULL;
    std::vector<std::pair<tree, tree>> where;
    tree any = NULL_TREE;
    for (const Access& a : m.accesses) {
      tree addr = access_value(a, &pre);
      tree n = value_into(fold_convert(long_unsigned_type_node, a.bytes), &pre);
      where.push_back({addr, n});
      tree ai = value_into(fold_convert(word, addr), &pre);
      tree c1 = selected(ai, &pre);
      // An access aligned to its power-of-two size (at most a line) lies in
      // one line: its first byte's test is the test.
      tree c2 = boolean_false_node;
      if (!within_one_line(a)) {
        tree last = value_into(fold_build2(PLUS_EXPR, word, ai,
                                           fold_build2(MINUS_EXPR, word, fold_convert(word, n),
                                                       build_int_cst(word, 1))),
                               &pre);
        c2 = selected(last, &pre);
      }
      // Over 64 bytes, under a filter that passes anything (B != 0): always.
      tree c3 = fold_build2(
          BIT_AND_EXPR, boolean_type_node,
          fold_build2(GT_EXPR, boolean_type_node, fold_convert(word, n), build_int_cst(word, 64)),
          fold_build2(NE_EXPR, boolean_type_node, bits, build_int_cst(word, 0)));
      tree c = fold_build2(BIT_IOR_EXPR, boolean_type_node,
                           fold_build2(BIT_IOR_EXPR, boolean_type_node, c1, c2), c3);
      any = any ? fold_build2(BIT_IOR_EXPR, boolean_type_node, any, c) : c;
    }
    tree on = value_into(any, &pre);
    gimple_stmt_iterator at = gsi_for_stmt(m.stmt);
    for (gimple_stmt_iterator g = gsi_start(pre); !gsi_end_p(g); gsi_next(&g)) {
      gimple_set_location(gsi_stmt(g), gimple_location(m.stmt));
    }
    gsi_insert_seq_before(&at, pre, GSI_SAME_STMT);
    at = gsi_for_stmt(m.stmt);
    basic_block then_bb = nullptr, fall_bb = nullptr;
    gimple_stmt_iterator cond_at =
        create_cond_insert_point(&at, /*before_p=*/true, /*then_more_likely_p=*/false,
                                 /*create_then_fallthru_edge=*/true, &then_bb, &fall_bb);
    gcond* br = gimple_build_cond(NE_EXPR, on, boolean_false_node, NULL_TREE, NULL_TREE);
    gimple_set_location(br, gimple_location(m.stmt));
    gsi_insert_after(&cond_at, br, GSI_NEW_STMT);
    gimple_seq calls = NULL;
    for (size_t i = 0; i < m.accesses.size(); ++i) {
      gcall* c = gimple_build_call(mem_hook_decl(m.accesses[i].store), 2, where[i].first,
                                   where[i].second);
      gimple_set_location(c, gimple_location(m.stmt));
      gimple_seq_add_stmt(&calls, c);
    }
    gimple_stmt_iterator then_at = gsi_start_bb(then_bb);
    gsi_insert_seq_after(&then_at, calls, GSI_NEW_STMT);
  }
}

tree hook_decl(tree* slot, const char* name, bool with_kind) {
  if (*slot) return *slot;
  tree type = with_kind ? build_function_type_list(void_type_node, const_ptr_type_node,
                                                   integer_type_node, const_ptr_type_node,
                                                   NULL_TREE)
                        : build_function_type_list(void_type_node, const_ptr_type_node, NULL_TREE);
  tree decl = build_fn_decl(name, type);
  TREE_NOTHROW(decl) = 1;
  DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
  *slot = decl;
  return decl;
}

// A region's name as the string constant both of its calls pass.
tree region_name_literal(const std::string& name) {
  return build_string_literal(static_cast<unsigned>(name.size() + 1), name.c_str());
}

// The entry call, after the function's canonical frame address (its
// caller's stack position at the call: equal for sibling calls, lower for a
// callee), by which the runtime recognizes regions left by a longjmp or an
// exception.
tree dwarf_cfa_decl() {
  tree decl = builtin_decl_explicit(BUILT_IN_DWARF_CFA);
  if (!decl) {  // a front end that declares only the builtins it uses (Fortran)
    decl = add_builtin_function("__builtin_dwarf_cfa", build_function_type_list(ptr_type_node, NULL_TREE),
                                BUILT_IN_DWARF_CFA, BUILT_IN_NORMAL, NULL, NULL_TREE);
    set_builtin_decl(BUILT_IN_DWARF_CFA, decl, false);
  }
  return decl;
}

gimple_seq enter_call(tree name, int kind) {
  tree cfa = gimple_in_ssa_p(cfun) ? make_ssa_name(ptr_type_node)
                                   : create_tmp_var(ptr_type_node, "rprof_cfa");
  gcall* get = gimple_build_call(dwarf_cfa_decl(), 0);
  gimple_call_set_lhs(get, cfa);
  gimple_seq seq = NULL;
  gimple_seq_add_stmt(&seq, get);
  gimple_seq_add_stmt(&seq, gimple_build_call(hook_decl(&g_enter, RPROF_INST_ENTER_SYMBOL, true),
                                              3, name, build_int_cst(integer_type_node, kind),
                                              cfa));
  return seq;
}

gcall* exit_call(tree name) {
  return gimple_build_call(hook_decl(&g_exit, RPROF_INST_EXIT_SYMBOL, false), 1, name);
}

}  // namespace

// libiberty's demangler, in every GCC compiler proper (cc1, cc1plus, f951);
// weak, so a compiler without it loads the plugin all the same.
extern "C" char* cplus_demangle(const char* mangled, int options) __attribute__((weak));

namespace {

// The source function's name: a clone GCC made of it (foo.constprop.0,
// foo.isra.0, foo.part.0) is the same region as the function. An OpenMP
// region's body, which GCC names after its function's assembler name
// (_Z6waxpbyidPKddS0_Pd._omp_fn.0), gets that function's source name
// (waxpby._omp_fn.0).
std::string function_region_name(tree decl) {
  if (DECL_ABSTRACT_ORIGIN(decl)) decl = DECL_ORIGIN(decl);
  // At link time (-flto) the front end's names are gone: lto1 prints a
  // constructor as "__ct " and drops namespaces. The assembler name, demangled
  // without parameters, is the front end's qualified name.
  if (in_lto_p && cplus_demangle && DECL_ASSEMBLER_NAME_SET_P(decl)) {
    const char* mangled = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
    const char* omp_fn = strstr(mangled, "._omp_fn.");
    const std::string head = omp_fn ? std::string(mangled, omp_fn) : std::string(mangled);
    const std::string tail = omp_fn ? std::string(omp_fn) : std::string();
    if (head.rfind("_Z", 0) == 0) {
      if (char* d = cplus_demangle(head.c_str(), 0)) {  // no parameters
        std::string s = std::string(d) + tail;
        free(d);
        if (s.empty() || s.back() != ')') s += "()";
        return s;
      }
    }
  }
  const char* n = lang_hooks.decl_printable_name(decl, 1);  // qualified, no parameters
  std::string s = n ? n : "?";
  const size_t omp = s.find("._omp_fn.");
  if (omp != std::string::npos && s.rfind("_Z", 0) == 0 && cplus_demangle) {
    if (char* d = cplus_demangle(s.substr(0, omp).c_str(), 0)) {  // no parameters
      s = std::string(d) + s.substr(omp);
      free(d);
    }
  }
  if (s.empty() || s.back() != ')') s += "()";
  return s;
}

// A statement GCC took from an inlined function.
bool inlined_stmt(gimple* g) {
  for (tree b = gimple_block(g); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b)) {
    if (inlined_function_outer_scope_p(b)) return true;
  }
  return false;
}

std::string loop_region_name(class loop* loop) {
  // The first source line of the loop's own statements (the `for` line of
  // its test and increment, more often than not; statements inlined from
  // other functions left out); a loop made only of inlined code is named
  // where its exit test is, in that code.
  location_t loc = UNKNOWN_LOCATION;
  int best_line = 0;
  basic_block* body = get_loop_body(loop);
  for (unsigned i = 0; i < loop->num_nodes; ++i) {
    for (gimple_stmt_iterator g = gsi_start_bb(body[i]); !gsi_end_p(g); gsi_next(&g)) {
      gimple* st = gsi_stmt(g);
      if (is_gimple_debug(st) || !gimple_has_location(st) || inlined_stmt(st)) continue;
      const int line = LOCATION_LINE(gimple_location(st));
      if (line > 0 && (best_line == 0 || line < best_line)) {
        best_line = line;
        loc = gimple_location(st);
      }
    }
  }
  if (loc == UNKNOWN_LOCATION) {
    if (edge e = single_exit(loop)) {
      if (gimple* test = last_stmt(e->src)) loc = gimple_location(test);
    }
  }
  for (unsigned i = 0; loc == UNKNOWN_LOCATION && i < loop->num_nodes; ++i) {
    for (gimple_stmt_iterator g = gsi_start_bb(body[i]); !gsi_end_p(g); gsi_next(&g)) {
      if (gimple_has_location(gsi_stmt(g))) {
        loc = gimple_location(gsi_stmt(g));
        break;
      }
    }
  }
  free(body);
  expanded_location x = expand_location(loc);
  std::string file = x.file ? x.file : "?";
  const size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return "loop " + file + ":" + std::to_string(x.line);
}

bool usable_edge(edge e) { return !(e->flags & (EDGE_EH | EDGE_ABNORMAL | EDGE_FAKE)); }

// A compare-and-swap retry loop (an OpenMP reduction's combine, an atomic
// update of a float): a few blocks around an atomic compare-exchange, no
// inner loop. Not the program's loop: neither a region nor versioned.
bool cas_retry_loop(class loop* loop) {
  if (loop->inner != nullptr || loop->num_nodes > 4) return false;
  basic_block* body = get_loop_body(loop);
  bool cas = false;
  for (unsigned i = 0; !cas && i < loop->num_nodes; ++i) {
    for (gimple_stmt_iterator g = gsi_start_bb(body[i]); !gsi_end_p(g); gsi_next(&g)) {
      gcall* c = dyn_cast<gcall*>(gsi_stmt(g));
      if (c == nullptr) continue;
      if (gimple_call_internal_p(c)) {
        cas |= gimple_call_internal_fn(c) == IFN_ATOMIC_COMPARE_EXCHANGE;
        continue;
      }
      tree fn = gimple_call_fndecl(c);
      if (fn == NULL_TREE || !fndecl_built_in_p(fn, BUILT_IN_NORMAL)) continue;
      switch (DECL_FUNCTION_CODE(fn)) {
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE:
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE_1:
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE_2:
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE_4:
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE_8:
        case BUILT_IN_ATOMIC_COMPARE_EXCHANGE_16:
        case BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_1:
        case BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_2:
        case BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_4:
        case BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_8:
        case BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_16:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_1:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_2:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_4:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_8:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_16:
          cas = true;
          break;
        default:
          break;
      }
    }
  }
  free(body);
  return cas;
}

// A loop nest's entry and exits (pending edge insertions, committed with the
// pass's others; made before the hoisted counts so that those, on the same
// preheader edge, come after the entry). An exit by an exception or longjmp
// has no call: the runtime closes the nest at the function's next end.
void loop_region(class loop* loop) {
  if (cas_retry_loop(loop)) return;
  edge pre = loop_preheader_edge(loop);
  if (!pre || !usable_edge(pre)) return;
  auto_vec<edge> exits = get_loop_exit_edges(loop);
  const std::string name = loop_region_name(loop);
  tree lit = region_name_literal(name);
  gsi_insert_seq_on_edge(pre, enter_call(lit, RPROF_INST_KIND_LOOP));
  for (edge e : exits) {
    if (usable_edge(e)) gsi_insert_on_edge(e, exit_call(lit));
  }
  if (g_dump) {
    std::fprintf(g_dump, "%s region: %s\n", IDENTIFIER_POINTER(DECL_NAME(current_function_decl)),
                 name.c_str());
  }
}

// The function's entry (a pending edge insertion) and, before each return,
// its end; its calls lose their tail-call mark (the end comes after them).
void function_region(function* fn) {
  const std::string name = function_region_name(fn->decl);
  tree lit = region_name_literal(name);
  gsi_insert_seq_on_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fn)),
                         enter_call(lit, RPROF_INST_KIND_FUNCTION));
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn) {
    for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
      if (gcall* c = dyn_cast<gcall*>(gsi_stmt(g))) gimple_call_set_tail(c, false);
    }
    gimple_stmt_iterator last = gsi_last_bb(bb);
    if (!gsi_end_p(last) && gimple_code(gsi_stmt(last)) == GIMPLE_RETURN) {
      gsi_insert_before(&last, exit_call(lit), GSI_SAME_STMT);
    }
  }
  if (g_dump) {
    std::fprintf(g_dump, "%s region: %s\n", IDENTIFIER_POINTER(DECL_NAME(current_function_decl)),
                 name.c_str());
  }
}

// Loop versions (option versions=, on by default when optimizing): each
// loop nest (outermost loop) is compiled as a plain copy (no counts, no
// memory accesses passed on; the region's entry and exit only), a counted
// one and, with memory=on, a counted one that also passes its accesses to
// the cache model. Where the nest is entered the process-wide flag
// RPROF_INST_COUNTING_SYMBOL picks one: 0 the plain copy, 1 the counted
// one, 2 the counted one with accesses. So the program runs its loops at
// native speed when rprof times it, or when nothing runs it, pays for the
// counters only when rprof counts, and for the accesses only when rprof
// simulates the caches. GCC's own loop_version, as its loop unswitching and
// the vectorizer's alias checks use it; a nest it cannot version stays
// counted (with accesses) in every run.
struct Versions {
  std::set<int> plain;      // the plain copies' blocks
  std::set<int> no_memory;  // the counted copies' without accesses
};

// Versions `loop` on `flag CMP value` (the flag loaded where the condition
// is); the copy, on the false edge, is returned (null when GCC cannot).
class loop* version_on_flag(class loop* loop, tree_code cmp, int value) {
  edge pre = loop_preheader_edge(loop);
  if (!pre || !usable_edge(pre)) return nullptr;
  // The condition on a value (as the vectorizer's alias versioning does):
  // its load goes into the condition's block once that exists.
  tree flag = make_ssa_name(integer_type_node);
  tree cond = build2(cmp, boolean_type_node, flag, build_int_cst(integer_type_node, value));
  basic_block cond_bb = nullptr;
  class loop* copy =
      loop_version(loop, cond, &cond_bb, profile_probability::even(), profile_probability::even(),
                   profile_probability::always(), profile_probability::always(), true);
  if (!copy) {
    release_ssa_name(flag);
    return nullptr;
  }
  gimple_stmt_iterator at = gsi_last_bb(cond_bb);
  gassign* load = gimple_build_assign(flag, counting_decl());
  gsi_insert_before(&at, load, GSI_SAME_STMT);
  g_flag_loads.insert(load);
  return copy;
}

void blocks_of(class loop* loop, std::set<int>& into) {
  basic_block* body = get_loop_body(loop);
  for (unsigned i = 0; i < loop->num_nodes; ++i) into.insert(body[i]->index);
  free(body);
}

Versions version_nests(function* fn) {
  Versions v;
  std::vector<class loop*> nests;
  for (class loop* l = current_loops->tree_root->inner; l; l = l->next) {
    if (!cas_retry_loop(l)) nests.push_back(l);
  }
  if (nests.empty()) return v;
  calculate_dominance_info(CDI_DOMINATORS);
  std::vector<class loop*> counted;
  initialize_original_copy_tables();
  for (class loop* l : nests) {
    if (class loop* copy = version_on_flag(l, NE_EXPR, 0)) {
      blocks_of(copy, v.plain);
      counted.push_back(l);
    }
  }
  free_original_copy_tables();
  if (counted.empty()) return v;
  // The copies' definitions merge with the originals' where both reach a
  // use (new PHIs); the flag's loads get their virtual operands.
  mark_virtual_operands_for_renaming(fn);
  update_ssa(TODO_update_ssa);
  if (!g_memory) return v;
  bool any = false;
  initialize_original_copy_tables();
  for (class loop* l : counted) {
    if (class loop* copy = version_on_flag(l, GT_EXPR, 1)) {
      blocks_of(copy, v.no_memory);
      any = true;
    }
  }
  free_original_copy_tables();
  if (any) {
    mark_virtual_operands_for_renaming(fn);
    update_ssa(TODO_update_ssa);
  }
  return v;
}

// The functions this unit's code calls that it does not define (the calls
// note); internal functions and the counted builtins are not calls.
void note_calls(function* fn) {
  g_defined.insert(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn->decl)));
  // Its aliases too (a C++ constructor's C1 name is its C2 body's alias).
  if (cgraph_node* self = cgraph_node::get(fn->decl)) {
    ipa_ref* ref = nullptr;
    for (unsigned i = 0; self->iterate_direct_aliases(i, ref); ++i) {
      g_defined.insert(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(ref->referring->decl)));
    }
  }
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn) {
    for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
      gcall* c = dyn_cast<gcall*>(gsi_stmt(g));
      if (!c || gimple_call_internal_p(c)) continue;
      tree callee = gimple_call_fndecl(c);
      if (!callee) continue;
      Counts scratch{};
      if (count_builtin(scratch, c)) continue;
      cgraph_node* node = cgraph_node::get(callee);
      if (node && node->definition) continue;
      const char* name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(callee));
      if (*name == '*') ++name;  // a name given with asm("...")
      // GCC's own builtins that expand in place (__builtin_eh_pointer, ...).
      if (std::strncmp(name, "__builtin_", 10) == 0) continue;
      g_called.insert(name);
    }
  }
}

// The calls note (inst_counters.h), written at the end of the unit's
// assembly: names an assembler string can hold as they are.
void write_calls_note(void*, void*) {
  if (!asm_out_file || (g_called.empty() && g_defined.empty())) return;
  auto plain = [](const std::string& n) {
    for (char ch : n) {
      if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 32) return false;
    }
    return !n.empty();
  };
  std::fprintf(asm_out_file,
               "\t.pushsection %s,\"\",@note\n\t.balign 4\n\t.long %d\n\t.long 2f-1f\n"
               "\t.long %d\n\t.asciz \"%s\"\n\t.balign 4\n1:\n",
               RPROF_INST_CALLS_SECTION, static_cast<int>(sizeof(RPROF_INST_NOTE_OWNER)),
               RPROF_INST_CALLS_TYPE, RPROF_INST_NOTE_OWNER);
  for (const std::string& n : g_called) {
    if (plain(n)) std::fprintf(asm_out_file, "\t.asciz \"C%s\"\n", n.c_str());
  }
  for (const std::string& n : g_defined) {
    if (plain(n)) std::fprintf(asm_out_file, "\t.asciz \"D%s\"\n", n.c_str());
  }
  if (g_memory) std::fprintf(asm_out_file, "\t.asciz \"M\"\n");
  if (g_versioned) std::fprintf(asm_out_file, "\t.asciz \"V\"\n");
  std::fprintf(asm_out_file, "2:\n\t.balign 4\n\t.popsection\n");
}

const pass_data kPassData = {
    GIMPLE_PASS,
    "rprof_inst",       // name
    OPTGROUP_NONE,      // optinfo_flags
    TV_NONE,            // tv_id
    PROP_gimple_any,    // properties_required
    0,                  // properties_provided
    0,                  // properties_destroyed
    0,                  // todo_flags_start
    0,                  // todo_flags_finish
};

class InstPass : public gimple_opt_pass {
 public:
  explicit InstPass(gcc::context* ctx) : gimple_opt_pass(kPassData, ctx) {}
  bool gate(function* fn) override {
    // rprof's own run-time object and functions marked no_instrument_function
    // are left alone.
    // (GCC sets DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT on every function
    // when -finstrument-functions is off: the attribute is what says it.)
    return !lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fn->decl));
  }
  unsigned int execute(function* fn) override {
    // Innermost loops whose iteration count is known on entry: counted once
    // before they run (hoist_loop); only when optimizing (at -O0 the
    // program's variables live in memory and GCC knows no counts).
    std::set<int> hoisted;
    note_calls(fn);
    const bool hoist = optimize > 0 && gimple_in_ssa_p(fn);
    const bool loops = hoist || g_function_regions || g_loop_regions;
    bool has_loops = false;
    // The loop nests' plain versions (neither counted nor passing accesses
    // on) and counted versions without accesses.
    Versions versions;
    if (loops) {
      loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
      has_loops = current_loops->tree_root->inner != nullptr;
      if (has_loops && hoist && g_versions) {
        versions = version_nests(fn);
        g_versioned |= !versions.plain.empty();
      }
    }
    const std::set<int>& plain = versions.plain;
    // The memory accesses, before anything is added (the counters' own
    // loads and stores are not the program's).
    std::set<int> no_memory = versions.plain;
    no_memory.insert(versions.no_memory.begin(), versions.no_memory.end());
    const std::vector<MemBlock> memory =
        g_memory ? collect_memory(fn, no_memory) : std::vector<MemBlock>{};
    if (loops) {
      // Regions first: the function's entry, then each nest's entry, then
      // (hoist_loop) the counts added before an innermost loop.
      if (has_loops && g_function_regions) function_region(fn);
      if (g_loop_regions) {
        for (class loop* l = current_loops->tree_root->inner; l; l = l->next) loop_region(l);
      }
    }
    if (hoist) {
      scev_initialize();
      for (auto loop : loops_list(fn, LI_ONLY_INNERMOST)) {
        if (plain.count(loop->header->index)) continue;
        for (basic_block b : hoist_loop(loop)) hoisted.insert(b->index);
      }
      scev_finalize();
    }
    basic_block bb;
    FOR_EACH_BB_FN(bb, fn) {
      if (!hoisted.count(bb->index) && !plain.count(bb->index)) instrument_block(bb);
    }
    if (loops) gsi_commit_edge_inserts();
    // Last, on the statements collected first: each block's filter and
    // its conditional calls (new blocks).
    for (const MemBlock& b : memory) instrument_memory(b);
    if (loops) loop_optimizer_finalize();
    g_flag_loads.clear();
    const unsigned cfg = memory.empty() ? 0 : TODO_cleanup_cfg;
    if (gimple_in_ssa_p(fn)) {
      mark_virtual_operands_for_renaming(fn);
      return TODO_update_ssa_only_virtuals | cfg;
    }
    return cfg;
  }
};

}  // namespace

int plugin_init(struct plugin_name_args* info, struct plugin_gcc_version* version) {
  if (!plugin_default_version_check(version, &gcc_version)) {
    std::fprintf(stderr,
                 "rprof_inst: this plugin was built for GCC %s; this compiler is GCC %s: "
                 "rebuild rprof with this compiler\n",
                 gcc_version.basever, version->basever);
    return 1;
  }
  for (int i = 0; i < info->argc; ++i) {
    if (std::strcmp(info->argv[i].key, "dump") == 0 && info->argv[i].value) {
      g_dump = std::fopen(info->argv[i].value, "a");
    } else if (std::strcmp(info->argv[i].key, "regions") == 0 && info->argv[i].value) {
      const std::string v = info->argv[i].value;
      if (v != "all" && v != "loops" && v != "functions" && v != "none") {
        std::fprintf(stderr, "rprof_inst: regions=%s: expected all, loops, functions or none\n",
                     v.c_str());
        return 1;
      }
      g_function_regions = v == "all" || v == "functions";
      g_loop_regions = v == "all" || v == "loops";
    } else if (std::strcmp(info->argv[i].key, "memory") == 0) {
      const std::string v = info->argv[i].value ? info->argv[i].value : "";
      if (v != "on" && v != "off") {
        std::fprintf(stderr, "rprof_inst: memory=%s: expected on or off\n", v.c_str());
        return 1;
      }
      g_memory = v == "on";
    } else if (std::strcmp(info->argv[i].key, "versions") == 0) {
      const std::string v = info->argv[i].value ? info->argv[i].value : "";
      if (v != "on" && v != "off") {
        std::fprintf(stderr, "rprof_inst: versions=%s: expected on or off\n", v.c_str());
        return 1;
      }
      g_versions = v == "on";
    }
  }
  static struct plugin_info about = {"1", "rprof: counts FLOPs and bytes per block"};
  register_callback(info->base_name, PLUGIN_INFO, nullptr, &about);
  register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, nullptr,
                    const_cast<ggc_root_tab*>(g_roots));
  struct register_pass_info pass;
  pass.pass = new InstPass(g);
  pass.reference_pass_name = "optimized";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
  register_callback(info->base_name, PLUGIN_FINISH_UNIT, write_calls_note, nullptr);
  return 0;
}
