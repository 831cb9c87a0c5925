// rprof's LLVM pass plugin: what the GCC plugin (rprof_inst_plugin.cpp) does,
// for clang. It counts, per stretch of straight-line code, the FLOPs (by
// precision and vector width, fmuladd and fma = 2 per lane), the FP arithmetic
// instructions and the bytes loaded and stored, and adds them to the running
// thread's counters (inst_counters.h) where the stretch starts; it makes
// functions with loops and loop nests regions; it passes the sampled memory
// accesses to the cache model; and it writes the same calls note. One
// run-time object (inst_rt.c), one note format: the inst backend does not
// care which compiler built a program, and a program may mix objects of both.
//
// The pass runs at the optimizer-last extension point (the new pass
// manager's end of the optimization pipeline, at every -O level): after
// vectorization and the loop passes, so the IR it sees is, operation for
// operation, what instruction selection turns into instructions. A call ends
// a stretch, as in the GCC plugin. Counted (docs/inst-backend.md):
//   - fadd, fsub, fmul, fdiv on a float type (scalar, or a vector: one per
//     lane); fneg is not counted (a sign flip, as GCC's NEGATE_EXPR); a
//     select of one of two floats by their ordered comparison (minsd/maxsd),
//     llvm.minnum/maxnum/minimum/maximum and llvm.sqrt: 1 per lane;
//     llvm.fmuladd and llvm.fma: 2 per lane; the masked forms of these count
//     every lane; vector reductions (llvm.vector.reduce.fadd/fmul/fmin/fmax):
//     lanes - 1 in the vector's class, as GCC's REDUC_*; calls to sqrt,
//     sqrtf, fmin, fmax (and their f forms) that the program does not define:
//     1, as GCC counts those builtins;
//   - bytes: every load and store by its type's store size; masked loads and
//     stores by their full vector size, gathers and scatters by the lanes'
//     elements; llvm.memcpy/memmove/memset and calls to memcpy, memmove,
//     mempcpy, memset by their size (added at run time when it is not known).
// long double (x87) and fp128 count as scalar DP; half and bfloat are not
// counted. Other intrinsics are no call (no stretch ends) except the libm
// ones that become calls (llvm.exp, llvm.pow, llvm.sin, ...), which are
// calls named as libm's functions (exp, expf) in the calls note.
//
// Versions (option versions=on, the default when optimizing): where the GCC
// plugin versions each loop nest, this plugin versions each function with
// loops: a plain copy (its regions' entries and exits only) and a counted one
// (counts and, with memory=on, the accesses' filter), which the plain one
// calls where it starts when RPROF_INST_COUNTING_SYMBOL is not 0 (one load
// and branch per call). The calls note says "V", so rprof times the plain
// copies and counts in a second run, as for GCC. Counting with or without
// accesses (1 or 2) runs the same counted copy; with 1 its filter passes
// nothing, whatever the thread's, and costs a compare and branch per
// accessing statement.
//
// Usage: clang -fpass-plugin=rprof_inst_llvm.so ... (rprof cc does this).
// Options (clang passes none to pass plugins): the environment variable
// RPROF_INST_LLVM_OPTIONS, a comma-separated list of the GCC plugin's
// options: dump=FILE, regions=all|loops|functions|none, memory=on|off,
// versions=on|off.
// `rprof cc` turns -fplugin-arg-rprof_inst-KEY=VALUE into it.
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../inst_counters.h"

using namespace llvm;

namespace {

struct Options {
  std::FILE* dump = nullptr;
  bool function_regions = true;
  bool loop_regions = true;
  bool memory = true;
  bool versions = true;
  std::string error;  // a bad option: the compile fails with it
};

Options read_options() {
  Options o;
  const char* env = std::getenv("RPROF_INST_LLVM_OPTIONS");
  if (!env) return o;
  std::string all = env;
  size_t at = 0;
  while (at <= all.size()) {
    size_t end = all.find(',', at);
    if (end == std::string::npos) end = all.size();
    const std::string kv = all.substr(at, end - at);
    at = end + 1;
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    const std::string k = kv.substr(0, eq), v = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (k == "dump") {
      o.dump = std::fopen(v.c_str(), "a");
    } else if (k == "regions") {
      if (v != "all" && v != "loops" && v != "functions" && v != "none") {
        o.error = "regions=" + v + ": expected all, loops, functions or none";
      }
      o.function_regions = v == "all" || v == "functions";
      o.loop_regions = v == "all" || v == "loops";
    } else if (k == "memory") {
      if (v != "on" && v != "off") o.error = "memory=" + v + ": expected on or off";
      o.memory = v == "on";
    } else if (k == "versions") {
      if (v != "on" && v != "off") o.error = "versions=" + v + ": expected on or off";
      o.versions = v == "on";
    } else {
      o.error = "unknown option " + k + " (dump, regions, memory, versions)";
    }
  }
  return o;
}

struct Counts {
  uint64_t v[RPROF_INST_NCOUNTERS] = {};
  bool any() const {
    for (uint64_t x : v) {
      if (x) return true;
    }
    return false;
  }
  void add(const Counts& o) {
    for (int k = 0; k < RPROF_INST_NCOUNTERS; ++k) v[k] += o.v[k];
  }
};

// One memory access: where (a pointer), how many bytes (a constant or a
// run-time size), load or store, and the alignment known of it.
struct Access {
  Value* ptr;
  Value* bytes;
  bool store;
  uint64_t align;
};

struct MemStmt {
  Instruction* inst;
  std::vector<Access> accesses;
};

// libm functions LLVM's intrinsics become calls to (the calls note's names).
const char* libm_base(Intrinsic::ID id) {
  switch (id) {
    case Intrinsic::exp: return "exp";
    case Intrinsic::exp2: return "exp2";
    case Intrinsic::log: return "log";
    case Intrinsic::log2: return "log2";
    case Intrinsic::log10: return "log10";
    case Intrinsic::pow: return "pow";
    case Intrinsic::sin: return "sin";
    case Intrinsic::cos: return "cos";
    default: return nullptr;
  }
}

class Instrumenter {
 public:
  Instrumenter(Module& m, const Options& o, FunctionAnalysisManager& fam)
      : m_(m), o_(o), fam_(fam), dl_(m.getDataLayout()), ctx_(m.getContext()) {}

  bool run();

 private:
  Module& m_;
  const Options& o_;
  FunctionAnalysisManager& fam_;
  const DataLayout& dl_;
  LLVMContext& ctx_;
  GlobalVariable* ctr_ = nullptr;
  std::map<std::string, Constant*> names_;
  std::set<std::string> called_, defined_;
  // Instructions the pass added (never counted nor passed on).
  SmallPtrSet<Instruction*, 32> mine_;
  // OpenMP bodies' numbers (._omp_fn.N) among their opener's.
  std::map<const Function*, int> omp_index_;
  std::map<std::string, int> omp_count_;
  std::set<const Function*> naming_;  // the bodies whose names are being made

  Type* i64() { return Type::getInt64Ty(ctx_); }
  Type* i8p() { return Type::getInt8PtrTy(ctx_); }

  GlobalVariable* counters() {
    if (ctr_) return ctr_;
    auto* type = ArrayType::get(i64(), RPROF_INST_ARRAY);
    ctr_ = dyn_cast_or_null<GlobalVariable>(m_.getNamedValue(RPROF_INST_COUNTERS_SYMBOL));
    if (!ctr_) {
      // initial-exec: the array is the executable's (inst_rt.c), in the
      // static TLS block, as the GCC plugin declares it.
      ctr_ = new GlobalVariable(m_, type, false, GlobalValue::ExternalLinkage, nullptr,
                                RPROF_INST_COUNTERS_SYMBOL, nullptr,
                                GlobalValue::InitialExecTLSModel);
    }
    return ctr_;
  }

  Value* slot(IRBuilder<>& b, int k) {
    return b.CreateConstInBoundsGEP2_32(counters()->getValueType(), counters(), 0,
                                        static_cast<unsigned>(k));
  }

  void note(Value* v) {
    if (auto* i = dyn_cast<Instruction>(v)) mine_.insert(i);
  }

  // counters[k] += n (a value), where b inserts.
  void add_value(IRBuilder<>& b, int k, Value* n) {
    Value* p = slot(b, k);
    note(p);
    LoadInst* old = b.CreateLoad(i64(), p);
    Value* sum = b.CreateAdd(old, n);
    StoreInst* st = b.CreateStore(sum, p);
    note(old);
    note(sum);
    note(st);
  }

  void insert_counts(Instruction* before, const Counts& c) {
    IRBuilder<> b(before);
    for (int k = RPROF_INST_NCOUNTERS - 1; k >= 0; --k) {
      if (c.v[k]) add_value(b, k, ConstantInt::get(i64(), c.v[k]));
    }
  }

  // Precision (0 sp, 1 dp), width class and lanes of a (vector of) float.
  bool classify(Type* t, int* prec, int* width, uint64_t* lanes) const {
    Type* e = t;
    *width = 0;
    *lanes = 1;
    if (auto* vt = dyn_cast<FixedVectorType>(t)) {
      e = vt->getElementType();
      *lanes = vt->getNumElements();
      const uint64_t bits = dl_.getTypeSizeInBits(vt).getFixedSize();
      *width = bits <= 128 ? 1 : bits <= 256 ? 2 : 3;
    } else if (t->isVectorTy()) {
      return false;  // scalable vectors: not on x86
    }
    if (e->isFloatTy()) {
      *prec = 0;
    } else if (e->isDoubleTy() || e->isX86_FP80Ty() || e->isFP128Ty()) {
      *prec = 1;
    } else {
      return false;
    }
    return true;
  }

  void add_fp(Counts& c, Type* t, uint64_t per_lane, bool reduction = false) const {
    int prec = 0, width = 0;
    uint64_t lanes = 0;
    if (!t || !classify(t, &prec, &width, &lanes)) return;
    c.v[RPROF_INST_FLOPS(prec, width)] += reduction ? (lanes ? lanes - 1 : 0) : lanes * per_lane;
    c.v[RPROF_INST_FPINS(prec, width)] += 1;
  }

  uint64_t store_size(Type* t) const {
    return t->isSized() ? dl_.getTypeStoreSize(t).getFixedSize() : 0;
  }

  static bool fp_libcall_counted(const Function* f) {
    if (!f || !f->isDeclaration()) return false;
    static const std::set<std::string> kNames = {"sqrt", "sqrtf", "sqrtl", "fmin", "fminf",
                                                 "fminl", "fmax", "fmaxf", "fmaxl"};
    return kNames.count(f->getName().str()) > 0;
  }

  static bool memory_function(StringRef n, bool* reads) {
    if (n == "memcpy" || n == "memmove" || n == "mempcpy" || n == "__memcpy_chk" ||
        n == "__memmove_chk" || n == "__mempcpy_chk") {
      *reads = true;
      return true;
    }
    if (n == "memset" || n == "__memset_chk") {
      *reads = false;
      return true;
    }
    return false;
  }

  // A memory transfer's (dest, src or null, size) when `cb` is one.
  static bool transfer(CallBase* cb, Value** dst, Value** src, Value** n) {
    if (auto* mi = dyn_cast<MemIntrinsic>(cb)) {
      *dst = mi->getRawDest();
      *n = mi->getLength();
      *src = isa<MemTransferInst>(mi) ? cast<MemTransferInst>(mi)->getRawSource() : nullptr;
      return true;
    }
    Function* f = cb->getCalledFunction();
    bool reads = false;
    if (!f || !f->isDeclaration() || cb->arg_size() < 3 ||
        !memory_function(f->getName(), &reads) || !cb->getArgOperand(2)->getType()->isIntegerTy()) {
      return false;
    }
    *dst = cb->getArgOperand(0);
    *src = reads ? cb->getArgOperand(1) : nullptr;
    *n = cb->getArgOperand(2);
    return true;
  }

  // A select of one of two floats by their ordered comparison (x86's
  // minsd/maxsd, as the sim backend counts them).
  static bool min_max_select(SelectInst* s) {
    auto* cmp = dyn_cast<FCmpInst>(s->getCondition());
    if (!cmp || !s->getType()->isFPOrFPVectorTy() || cmp->isEquality() ||
        cmp->getPredicate() == CmpInst::FCMP_ORD || cmp->getPredicate() == CmpInst::FCMP_UNO) {
      return false;
    }
    Value *a = cmp->getOperand(0), *b = cmp->getOperand(1);
    Value *t = s->getTrueValue(), *f = s->getFalseValue();
    return (t == a && f == b) || (t == b && f == a);
  }

  // Whether a call is a real call (ends a stretch): not an intrinsic that
  // is an instruction, not a counted libm function.
  bool real_call(CallBase* cb) const {
    if (isa<DbgInfoIntrinsic>(cb)) return false;
    if (auto* ii = dyn_cast<IntrinsicInst>(cb)) return libm_base(ii->getIntrinsicID()) != nullptr;
    if (cb->isInlineAsm()) return false;
    if (fp_libcall_counted(cb->getCalledFunction())) return false;
    return true;
  }

  // An instruction's counts (run-time sizes aside); true when it is a real
  // call.
  bool count(Counts& c, Instruction& i) const {
    switch (i.getOpcode()) {
      case Instruction::FAdd:
      case Instruction::FSub:
      case Instruction::FMul:
      case Instruction::FDiv:
        add_fp(c, i.getType(), 1);
        return false;
      case Instruction::Select:
        if (min_max_select(cast<SelectInst>(&i))) add_fp(c, i.getType(), 1);
        return false;
      case Instruction::Load:
        c.v[RPROF_INST_BYTES_READ] += store_size(i.getType());
        return false;
      case Instruction::Store:
        c.v[RPROF_INST_BYTES_WRITE] += store_size(cast<StoreInst>(i).getValueOperand()->getType());
        return false;
      case Instruction::Call:
      case Instruction::Invoke:
      case Instruction::CallBr:
        break;
      default:
        return false;
    }
    auto* cb = cast<CallBase>(&i);
    Value *dst = nullptr, *src = nullptr, *n = nullptr;
    if (transfer(cb, &dst, &src, &n)) {
      if (auto* k = dyn_cast<ConstantInt>(n)) {
        c.v[RPROF_INST_BYTES_WRITE] += k->getZExtValue();
        if (src) c.v[RPROF_INST_BYTES_READ] += k->getZExtValue();
      }
      return !isa<IntrinsicInst>(cb);
    }
    if (auto* ii = dyn_cast<IntrinsicInst>(cb)) {
      Type* t = ii->getType();
      switch (ii->getIntrinsicID()) {
        case Intrinsic::fmuladd:
        case Intrinsic::fma:
          add_fp(c, t, 2);
          break;
        case Intrinsic::sqrt:
        case Intrinsic::minnum:
        case Intrinsic::maxnum:
        case Intrinsic::minimum:
        case Intrinsic::maximum:
          add_fp(c, t, 1);
          break;
        case Intrinsic::vector_reduce_fadd:
        case Intrinsic::vector_reduce_fmul:
          add_fp(c, ii->getArgOperand(1)->getType(), 1, true);
          // An ordered reduction (no reassociation) adds its start too.
          if (!ii->hasAllowReassoc()) add_fp(c, t, 1);
          break;
        case Intrinsic::vector_reduce_fmin:
        case Intrinsic::vector_reduce_fmax:
          add_fp(c, ii->getArgOperand(0)->getType(), 1, true);
          break;
        case Intrinsic::masked_load:
        case Intrinsic::masked_gather:
          c.v[RPROF_INST_BYTES_READ] += store_size(t);
          break;
        case Intrinsic::masked_store:
        case Intrinsic::masked_scatter:
          c.v[RPROF_INST_BYTES_WRITE] += store_size(ii->getArgOperand(0)->getType());
          break;
        default:
          break;
      }
      return libm_base(ii->getIntrinsicID()) != nullptr;
    }
    if (fp_libcall_counted(cb->getCalledFunction())) {
      add_fp(c, cb->getType(), 1);
      return false;
    }
    return !cb->isInlineAsm();
  }

  // The accesses of one instruction, as count() counts them.
  std::vector<Access> accesses(Instruction& i) {
    std::vector<Access> out = accesses_any(i);
    // Memory of another address space (a GPU's) is not the cache model's.
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const Access& a) {
                               return a.ptr->getType()->getScalarType()->getPointerAddressSpace() != 0;
                             }),
              out.end());
    return out;
  }

  std::vector<Access> accesses_any(Instruction& i) {
    std::vector<Access> out;
    auto cst = [&](uint64_t n) { return ConstantInt::get(i64(), n); };
    if (auto* l = dyn_cast<LoadInst>(&i)) {
      const uint64_t n = store_size(l->getType());
      if (n) out.push_back({l->getPointerOperand(), cst(n), false, l->getAlign().value()});
      return out;
    }
    if (auto* s = dyn_cast<StoreInst>(&i)) {
      const uint64_t n = store_size(s->getValueOperand()->getType());
      if (n) out.push_back({s->getPointerOperand(), cst(n), true, s->getAlign().value()});
      return out;
    }
    auto* cb = dyn_cast<CallBase>(&i);
    if (!cb) return out;
    Value *dst = nullptr, *src = nullptr, *n = nullptr;
    if (transfer(cb, &dst, &src, &n)) {
      if (src) out.push_back({src, n, false, 1});
      out.push_back({dst, n, true, 1});
      return out;
    }
    auto* ii = dyn_cast<IntrinsicInst>(cb);
    if (!ii) return out;
    auto lanes = [&](Value* ptrs, Type* vec, bool store) {
      auto* vt = dyn_cast<FixedVectorType>(vec);
      if (!vt) return;
      const uint64_t e = store_size(vt->getElementType());
      for (unsigned k = 0; k < vt->getNumElements(); ++k) {
        out.push_back({ptrs, ConstantInt::get(i64(), (uint64_t(k) << 32) | e), store, 0});
      }
    };
    switch (ii->getIntrinsicID()) {
      case Intrinsic::masked_load:
        out.push_back({ii->getArgOperand(0), cst(store_size(ii->getType())), false, 1});
        break;
      case Intrinsic::masked_store:
        out.push_back(
            {ii->getArgOperand(1), cst(store_size(ii->getArgOperand(0)->getType())), true, 1});
        break;
      case Intrinsic::masked_gather:
        lanes(ii->getArgOperand(0), ii->getType(), false);
        break;
      case Intrinsic::masked_scatter:
        lanes(ii->getArgOperand(1), ii->getArgOperand(0)->getType(), true);
        break;
      default:
        break;
    }
    return out;
  }

  Constant* name_literal(const std::string& name) {
    auto it = names_.find(name);
    if (it != names_.end()) return it->second;
    Constant* data = ConstantDataArray::getString(ctx_, name);
    auto* gv = new GlobalVariable(m_, data->getType(), true, GlobalValue::PrivateLinkage, data,
                                  ".rprof.region");
    gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    gv->setAlignment(Align(1));
    Constant* p = ConstantExpr::getPointerCast(gv, i8p());
    names_[name] = p;
    return p;
  }

  FunctionCallee hook(const char* name, bool enter) {
    SmallVector<Type*, 3> params = {i8p()};
    if (enter) {
      params.push_back(Type::getInt32Ty(ctx_));
      params.push_back(i8p());
    }
    FunctionCallee f =
        m_.getOrInsertFunction(name, FunctionType::get(Type::getVoidTy(ctx_), params, false));
    if (auto* fn = dyn_cast<Function>(f.getCallee())) fn->setDoesNotThrow();
    return f;
  }

  FunctionCallee mem_hook(bool store) {
    FunctionCallee f = m_.getOrInsertFunction(
        store ? RPROF_INST_STORE_SYMBOL : RPROF_INST_LOAD_SYMBOL,
        FunctionType::get(Type::getVoidTy(ctx_), {i8p(), i64()}, false));
    if (auto* fn = dyn_cast<Function>(f.getCallee())) fn->setDoesNotThrow();
    return f;
  }

  // The function's canonical frame address (the caller's stack pointer at
  // the call), as GCC's __builtin_dwarf_cfa: on x86-64 the return address's
  // slot + 8, which needs no frame pointer.
  Value* cfa(IRBuilder<>& b) {
    const bool x86_64 = Triple(m_.getTargetTriple()).getArch() == Triple::x86_64;
    if (x86_64) {
      Value* ra = b.CreateIntrinsic(Intrinsic::addressofreturnaddress, {i8p()}, {});
      return b.CreateConstGEP1_64(Type::getInt8Ty(ctx_), ra, 8);
    }
    return b.CreateIntrinsic(Intrinsic::eh_dwarf_cfa, {}, {b.getInt32(0)});
  }

  void enter_call(Instruction* before, Constant* name, int kind) {
    IRBuilder<> b(before);
    b.CreateCall(hook(RPROF_INST_ENTER_SYMBOL, true), {name, b.getInt32(kind), cfa(b)});
  }
  void exit_call(Instruction* before, Constant* name) {
    IRBuilder<> b(before);
    b.CreateCall(hook(RPROF_INST_EXIT_SYMBOL, false), {name});
  }

  std::string function_region_name(Function& f);
  std::string loop_region_name(Loop* l, Function& f);
  bool cas_retry_loop(Loop* l);
  void note_calls(Function& f);
  void regions(Function& f, const std::string& fname, DominatorTree& dt, LoopInfo& li);
  void instrument(Function& f, const std::string& name, bool counted);
  bool versionable(Function& f);
  void dispatch(Function& plain, Function* counted);
  bool counted_copy_ = false;  // instrumenting a function's counted version
  GlobalVariable* counting_flag() {
    auto* flag = dyn_cast_or_null<GlobalVariable>(m_.getNamedValue(RPROF_INST_COUNTING_SYMBOL));
    if (!flag) {
      flag = new GlobalVariable(m_, Type::getInt32Ty(ctx_), false, GlobalValue::ExternalLinkage,
                                nullptr, RPROF_INST_COUNTING_SYMBOL);
    }
    return flag;
  }
  bool versioned_ = false;
  std::set<BasicBlock*> hoist(Function& f, DominatorTree& dt, LoopInfo& li);
  void instrument_block(BasicBlock& bb);
  void instrument_memory(const std::vector<MemStmt>& stmts);
  void write_calls_note();
  void dump_stretch(const Function& f, const Counts& c, const Instruction* at);
};

std::string Instrumenter::function_region_name(Function& f) {
  std::string s = f.getName().str();
  // An OpenMP parallel region's body: named after the function that opens
  // it, as GCC's are (waxpby._omp_fn.0).
  if (s.rfind(".omp_outlined.", 0) == 0 || s.rfind("__omp_outlined__", 0) == 0) {
    for (User* u : f.users()) {
      SmallVector<User*, 4> todo = {u};
      while (!todo.empty()) {
        User* x = todo.pop_back_val();
        if (auto* ce = dyn_cast<ConstantExpr>(x)) {
          for (User* y : ce->users()) todo.push_back(y);
        } else if (auto* cb = dyn_cast<CallBase>(x)) {
          Function* parent = cb->getFunction();
          if (parent == &f || naming_.count(parent)) continue;  // no cycle
          naming_.insert(&f);
          struct Done {
            std::set<const Function*>& s;
            const Function* f;
            ~Done() { s.erase(f); }
          } done{naming_, &f};
          std::string p = function_region_name(*parent);
          // The body clang outlines with debug information (._debug__),
          // called by the outlined function: the same region.
          const std::string pn = parent->getName().str();
          if (pn.rfind(".omp_outlined.", 0) == 0 || pn.rfind("__omp_outlined__", 0) == 0) return p;
          if (p.size() > 2 && p.compare(p.size() - 2, 2, "()") == 0) p.resize(p.size() - 2);
          if (!omp_index_.count(&f)) omp_index_[&f] = omp_count_[p]++;
          return p + "._omp_fn." + std::to_string(omp_index_[&f]) + "()";
        }
      }
    }
    return s + "()";
  }
  // A clone LLVM made (foo.specialized.1, foo.llvm.123): the source's name.
  const size_t dot = s.find('.', 1);
  if (dot != std::string::npos) s.resize(dot);
  if (s.rfind("_Z", 0) == 0) {
    ItaniumPartialDemangler d;
    if (!d.partialDemangle(s.c_str())) {
      if (char* n = d.getFunctionName(nullptr, nullptr)) {
        s = n;
        std::free(n);
      }
    }
  }
  if (s.empty() || s.back() != ')') s += "()";
  return s;
}

std::string Instrumenter::loop_region_name(Loop* l, Function& f) {
  // The first source line of the loop's own instructions (inlined ones
  // left out); a loop of inlined code only: where its first instruction
  // came from.
  const DILocation* best = nullptr;
  const DILocation* any = nullptr;
  for (BasicBlock* bb : l->blocks()) {
    for (Instruction& i : *bb) {
      const DILocation* loc = i.getDebugLoc().get();
      if (!loc || loc->getLine() == 0) continue;
      if (!any) any = loc;
      if (loc->getInlinedAt()) continue;
      if (!best || loc->getLine() < best->getLine()) best = loc;
    }
  }
  if (!best && any) {
    best = any;
    while (best->getInlinedAt()) best = best->getInlinedAt();
  }
  std::string file;
  unsigned line = 0;
  if (best) {
    file = best->getFilename().str();
    line = best->getLine();
  } else if (DISubprogram* sp = f.getSubprogram()) {
    file = sp->getFilename().str();
  }
  if (file.empty()) file = m_.getSourceFileName();
  const size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return "loop " + file + ":" + std::to_string(line);
}

// A compare-and-swap retry loop (an atomic update of a float, an OpenMP
// reduction's combine): neither a region nor the program's loop.
bool Instrumenter::cas_retry_loop(Loop* l) {
  if (!l->getSubLoops().empty() || l->getNumBlocks() > 4) return false;
  for (BasicBlock* bb : l->blocks()) {
    for (Instruction& i : *bb) {
      if (isa<AtomicCmpXchgInst>(i)) return true;
    }
  }
  return false;
}

void Instrumenter::note_calls(Function& f) {
  defined_.insert(f.getName().str());
  for (Instruction& i : instructions(f)) {
    auto* cb = dyn_cast<CallBase>(&i);
    if (!cb) continue;
    if (auto* ii = dyn_cast<IntrinsicInst>(cb)) {
      if (const char* base = libm_base(ii->getIntrinsicID())) {
        Type* t = ii->getType()->getScalarType();
        called_.insert(std::string(base) + (t->isFloatTy() ? "f" : t->isX86_FP80Ty() ? "l" : ""));
      }
      continue;
    }
    Function* callee = cb->getCalledFunction();
    if (!callee || !callee->isDeclaration() || callee->isIntrinsic()) continue;
    if (fp_libcall_counted(callee)) continue;
    std::string n = callee->getName().str();
    if (!n.empty() && n[0] == '\1') n.erase(0, 1);  // a name given with asm("...")
    called_.insert(n);
  }
}

void Instrumenter::dump_stretch(const Function& f, const Counts& c, const Instruction* at) {
  if (!o_.dump || !c.any()) return;
  std::string file = "?";
  unsigned line = 0;
  if (at) {
    if (const DILocation* loc = at->getDebugLoc().get()) {
      file = loc->getFilename().str();
      line = loc->getLine();
    }
  }
  std::fprintf(o_.dump, "%s %s:%u", f.getName().str().c_str(), file.c_str(), line);
  for (int k = 0; k < RPROF_INST_NCOUNTERS; ++k) {
    std::fprintf(o_.dump, " %llu", static_cast<unsigned long long>(c.v[k]));
  }
  std::fprintf(o_.dump, "\n");
}

// The function's entry and returns, each loop nest's entry and exits.
void Instrumenter::regions(Function& f, const std::string& fname, DominatorTree& dt,
                           LoopInfo& li) {
  std::vector<Loop*> nests;
  for (Loop* l : li) {
    if (!cas_retry_loop(l)) nests.push_back(l);
  }
  if (nests.empty()) return;
  if (o_.loop_regions) {
    for (Loop* l : nests) {
      BasicBlock* pre = l->getLoopPreheader();
      if (!pre) pre = InsertPreheaderForLoop(l, &dt, &li, nullptr, false);
      if (!pre) continue;
      SmallVector<std::pair<BasicBlock*, BasicBlock*>, 4> exits;
      l->getExitEdges(exits);
      const std::string name = loop_region_name(l, f);
      Constant* lit = name_literal(name);
      enter_call(pre->getTerminator(), lit, RPROF_INST_KIND_LOOP);
      // Each edge once (a switch may reach an exit by several cases).
      std::sort(exits.begin(), exits.end());
      exits.erase(std::unique(exits.begin(), exits.end()), exits.end());
      for (auto [from, to] : exits) {
        // An exit by an exception: the runtime closes the nest at the
        // function's next end.
        Instruction* term = from->getTerminator();
        if (to->isEHPad() || !(isa<BranchInst>(term) || isa<SwitchInst>(term))) continue;
        BasicBlock* at = nullptr;
        if (!is_contained(successors(from), to)) {
          // Split already (an edge another nest's exit shares): the block
          // on it.
          for (BasicBlock* s : successors(from)) {
            if (s->getSinglePredecessor() == from && s->getSingleSuccessor() == to) at = s;
          }
        } else {
          at = to->getSinglePredecessor() == from ? to : SplitEdge(from, to, &dt, &li);
        }
        if (!at) continue;
        exit_call(&*at->getFirstInsertionPt(), lit);
      }
      if (o_.dump) std::fprintf(o_.dump, "%s region: %s\n", f.getName().str().c_str(), name.c_str());
    }
  }
  if (o_.function_regions) {
    const std::string& name = fname;
    Constant* lit = name_literal(name);
    BasicBlock& entry = f.getEntryBlock();
    BasicBlock::iterator at = entry.getFirstInsertionPt();
    while (at != entry.end() && isa<AllocaInst>(*at)) ++at;
    enter_call(&*at, lit, RPROF_INST_KIND_FUNCTION);
    for (BasicBlock& bb : f) {
      for (Instruction& i : bb) {
        if (auto* c = dyn_cast<CallInst>(&i)) {
          if (c->isTailCall() && !c->isMustTailCall()) c->setTailCall(false);
        }
      }
      auto* r = dyn_cast<ReturnInst>(bb.getTerminator());
      if (!r) continue;
      Instruction* before = r;
      if (CallInst* tail = bb.getTerminatingMustTailCall()) before = tail;
      exit_call(before, lit);
    }
    if (o_.dump) std::fprintf(o_.dump, "%s region: %s\n", f.getName().str().c_str(), name.c_str());
  }
}

// Innermost loops without calls whose iteration count is known on entry:
// counted once before they run, times the iterations (a store-to-load chain
// per counter per iteration would slow a tight loop to its latency), as the
// GCC plugin's hoist_loop. Returns the blocks it took over.
std::set<BasicBlock*> Instrumenter::hoist(Function& f, DominatorTree& dt, LoopInfo& li) {
  std::set<BasicBlock*> taken;
  auto& tli = fam_.getResult<TargetLibraryAnalysis>(f);
  auto& ac = fam_.getResult<AssumptionAnalysis>(f);
  ScalarEvolution se(f, tli, ac, dt, li);
  SCEVExpander expander(se, dl_, "rprof.n");
  for (Loop* top : li) {
    SmallVector<Loop*, 8> todo = {top};
    std::vector<Loop*> inner;
    while (!todo.empty()) {
      Loop* l = todo.pop_back_val();
      if (l->getSubLoops().empty()) inner.push_back(l);
      for (Loop* s : l->getSubLoops()) todo.push_back(s);
    }
    for (Loop* l : inner) {
      BasicBlock* exiting = l->getExitingBlock();
      BasicBlock* latch = l->getLoopLatch();
      BasicBlock* pre = l->getLoopPreheader();
      if (!exiting || !latch || !pre || !dt.dominates(exiting, latch)) continue;
      const SCEV* btc = se.getBackedgeTakenCount(l);
      if (isa<SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy() ||
          !se.isLoopInvariant(btc, l) || !isSafeToExpandAt(btc, pre->getTerminator(), se)) {
        continue;
      }
      Counts every{}, but_last{};
      bool ok = true;
      std::vector<BasicBlock*> blocks;
      for (BasicBlock* bb : l->blocks()) {
        Counts c{};
        for (Instruction& i : *bb) {
          if (mine_.count(&i)) continue;
          if (count(c, i)) {
            ok = false;
            break;
          }
          if (auto* cb = dyn_cast<CallBase>(&i)) {
            Value *d = nullptr, *s = nullptr, *n = nullptr;
            if (transfer(cb, &d, &s, &n) && !isa<ConstantInt>(n)) ok = false;
          }
        }
        if (!ok) break;
        blocks.push_back(bb);
        if (!c.any()) continue;
        if (dt.dominates(bb, exiting)) {
          every.add(c);  // every iteration, the last one too
        } else if (dt.dominates(exiting, bb) && dt.dominates(bb, latch)) {
          but_last.add(c);
        } else {
          ok = false;  // conditional
        }
      }
      if (!ok || !(every.any() || but_last.any())) continue;
      Instruction* at = pre->getTerminator();
      Value* n = expander.expandCodeFor(btc, btc->getType(), at);
      IRBuilder<> b(at);
      n = b.CreateZExtOrTrunc(n, i64());
      Value* n1 = b.CreateAdd(n, ConstantInt::get(i64(), 1));
      for (int k = RPROF_INST_NCOUNTERS - 1; k >= 0; --k) {
        Value* total = nullptr;
        if (every.v[k]) total = b.CreateMul(n1, ConstantInt::get(i64(), every.v[k]));
        if (but_last.v[k]) {
          Value* t = b.CreateMul(n, ConstantInt::get(i64(), but_last.v[k]));
          total = total ? b.CreateAdd(total, t) : t;
        }
        if (total) add_value(b, k, total);
      }
      for (BasicBlock* bb : blocks) taken.insert(bb);
      if (o_.dump) {
        std::fprintf(o_.dump, "%s loop: counted once before it, times its iterations\n",
                     f.getName().str().c_str());
      }
    }
  }
  expander.clear();
  return taken;
}

void Instrumenter::instrument_block(BasicBlock& bb) {
  if (bb.getFirstInsertionPt() == bb.end()) return;  // a catchswitch: nothing to count
  std::vector<Instruction*> insts;
  for (Instruction& i : bb) {
    if (!mine_.count(&i) && !isa<PHINode>(i) && !isa<DbgInfoIntrinsic>(i)) insts.push_back(&i);
  }
  Counts c{};
  Instruction* start = &*bb.getFirstInsertionPt();  // where the stretch's counts go
  const Instruction* first = nullptr;               // its first instruction (the dump's line)
  for (Instruction* i : insts) {
    if (!first && i->getDebugLoc()) first = i;
    // A memory transfer's run-time size, added before it (an intrinsic
    // ends no stretch; a call to memcpy does, after its size is added).
    if (auto* cb = dyn_cast<CallBase>(i)) {
      Value *dst = nullptr, *src = nullptr, *n = nullptr;
      if (transfer(cb, &dst, &src, &n) && !isa<ConstantInt>(n)) {
        IRBuilder<> b(i);
        Value* v = b.CreateZExtOrTrunc(n, i64());
        note(v);
        add_value(b, RPROF_INST_BYTES_WRITE, v);
        if (src) add_value(b, RPROF_INST_BYTES_READ, v);
      }
    }
    if (!count(c, *i)) continue;
    // A real call: what came before it is counted at the stretch's start.
    if (c.any()) {
      dump_stretch(*bb.getParent(), c, first);
      insert_counts(start, c);
    }
    c = Counts{};
    first = nullptr;
    if (i->isTerminator()) return;  // an invoke: nothing after it here
    start = i->getNextNode();
  }
  if (c.any()) {
    dump_stretch(*bb.getParent(), c, first);
    insert_counts(start, c);
  }
}

// Before each statement that accesses memory: if one of its accesses
// touches a line the thread's filter selects, its calls (inst_counters.h,
// RPROF_INST_SET_BITS). The filter's bits are loaded where the block starts.
void Instrumenter::instrument_memory(const std::vector<MemStmt>& stmts) {
  if (stmts.empty()) return;
  BasicBlock* bb = stmts.front().inst->getParent();
  if (bb->getFirstInsertionPt() == bb->end()) return;
  IRBuilder<> b(&*bb->getFirstInsertionPt());
  Value* bits = b.CreateLoad(i64(), slot(b, RPROF_INST_SET_BITS), "rprof.b");
  if (counted_copy_) {
    // A counted version runs for counts alone too (RPROF_INST_COUNTING=1,
    // where GCC's nests run a copy without accesses): its filter then
    // passes nothing, whatever the thread's.
    Value* only_counts = b.CreateICmpEQ(b.CreateLoad(Type::getInt32Ty(ctx_), counting_flag()),
                                        b.getInt32(1));
    bits = b.CreateSelect(only_counts, b.getInt64(0), bits);
  }
  MDNode* unlikely = MDBuilder(ctx_).createBranchWeights(1, 1000);
  for (const MemStmt& m : stmts) {
    // A filter that passes nothing (B = 0: the program run without rprof,
    // or counted without the cache model) skips the tests: one compare and
    // branch per statement.
    IRBuilder<> q(m.inst);  // (b's place may have moved to a split block's tail)
    Instruction* on = SplitBlockAndInsertIfThen(q.CreateICmpNE(bits, q.getInt64(0)), m.inst,
                                                false, unlikely);
    IRBuilder<> p(on);
    auto selected = [&](Value* a) {
      Value* line = p.CreateAnd(p.CreateLShr(a, 6), 63);
      return p.CreateICmpNE(p.CreateAnd(p.CreateLShr(bits, line), 1), p.getInt64(0));
    };
    Value* any = nullptr;
    std::vector<std::pair<Value*, Value*>> where;
    for (const Access& a : m.accesses) {
      Value* ptr = a.ptr;
      Value* n = a.bytes;
      if (ptr->getType()->isVectorTy()) {  // a gather's or scatter's lane
        const uint64_t code = cast<ConstantInt>(n)->getZExtValue();
        ptr = p.CreateExtractElement(ptr, p.getInt64(code >> 32));
        n = p.getInt64(code & 0xffffffffu);
      }
      Value* addr = p.CreatePointerCast(ptr, i8p());
      n = p.CreateZExtOrTrunc(n, i64());
      where.push_back({addr, n});
      Value* ai = p.CreatePtrToInt(addr, i64());
      Value* c = selected(ai);
      auto* k = dyn_cast<ConstantInt>(n);
      const uint64_t nb = k ? k->getZExtValue() : 0;
      const bool one_line = k && nb && nb <= 64 && (nb & (nb - 1)) == 0 && a.align >= nb;
      if (!one_line) c = p.CreateOr(c, selected(p.CreateAdd(ai, p.CreateSub(n, p.getInt64(1)))));
      if (!k || nb > 64) {
        c = p.CreateOr(c, p.CreateAnd(p.CreateICmpUGT(n, p.getInt64(64)),
                                      p.CreateICmpNE(bits, p.getInt64(0))));
      }
      any = any ? p.CreateOr(any, c) : c;
    }
    Instruction* then = SplitBlockAndInsertIfThen(any, on, false, unlikely);
    IRBuilder<> t(then);
    for (size_t k = 0; k < m.accesses.size(); ++k) {
      t.CreateCall(mem_hook(m.accesses[k].store), {where[k].first, where[k].second});
    }
  }
}

// The calls note (inst_counters.h), as module assembly.
void Instrumenter::write_calls_note() {
  if (called_.empty() && defined_.empty()) return;
  auto plain = [](const std::string& n) {
    for (char ch : n) {
      if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 32) return false;
    }
    return !n.empty();
  };
  std::string s;
  s += std::string("\t.pushsection ") + RPROF_INST_CALLS_SECTION + ",\"\",@note\n\t.balign 4\n";
  s += "\t.long " + std::to_string(sizeof(RPROF_INST_NOTE_OWNER)) + "\n\t.long 2f-1f\n";
  s += "\t.long " + std::to_string(RPROF_INST_CALLS_TYPE) + "\n\t.asciz \"" RPROF_INST_NOTE_OWNER
       "\"\n\t.balign 4\n1:\n";
  for (const std::string& n : called_) {
    if (plain(n)) s += "\t.asciz \"C" + n + "\"\n";
  }
  for (const std::string& n : defined_) {
    if (plain(n)) s += "\t.asciz \"D" + n + "\"\n";
  }
  if (o_.memory) s += "\t.asciz \"M\"\n";
  if (versioned_) s += "\t.asciz \"V\"\n";
  s += "2:\n\t.balign 4\n\t.popsection\n";
  m_.appendModuleInlineAsm(s);
}

// One function: its regions and, when `counted`, its counts and accesses.
void Instrumenter::instrument(Function& f, const std::string& name, bool counted) {
  mine_.clear();
  // The memory accesses, before anything is added.
  std::map<BasicBlock*, std::vector<MemStmt>> memory;
  if (o_.memory && counted) {
    for (BasicBlock& bb : f) {
      for (Instruction& i : bb) {
        std::vector<Access> acc = accesses(i);
        if (!acc.empty()) memory[&bb].push_back({&i, std::move(acc)});
      }
    }
  }
  DominatorTree dt(f);
  LoopInfo li(dt);
  if (o_.function_regions || o_.loop_regions) regions(f, name, dt, li);
  if (!counted) return;
  std::set<BasicBlock*> hoisted;
  if (!f.hasOptNone()) {
    // Every innermost loop needs a preheader for its counts.
    SmallVector<Loop*, 4> all = li.getLoopsInPreorder();
    for (Loop* l : all) {
      if (l->getSubLoops().empty() && !l->getLoopPreheader()) {
        InsertPreheaderForLoop(l, &dt, &li, nullptr, false);
      }
    }
    hoisted = hoist(f, dt, li);
  }
  std::vector<BasicBlock*> blocks;
  for (BasicBlock& bb : f) blocks.push_back(&bb);
  for (BasicBlock* bb : blocks) {
    if (!hoisted.count(bb)) instrument_block(*bb);
  }
  for (auto& [bb, stmts] : memory) {
    // A block split before (regions) keeps its statements together by
    // their current blocks.
    std::map<BasicBlock*, std::vector<MemStmt>> by_block;
    std::vector<BasicBlock*> order;
    for (const MemStmt& st : stmts) {
      BasicBlock* at = st.inst->getParent();
      if (!by_block.count(at)) order.push_back(at);
      by_block[at].push_back(st);
    }
    for (BasicBlock* at : order) instrument_memory(by_block[at]);
  }
}

// Whether `f` gets a plain and a counted version: optimized, with a loop
// (not only a compare-and-swap retry), and its arguments forwardable.
bool Instrumenter::versionable(Function& f) {
  if (!o_.versions || f.hasOptNone() || f.isVarArg() || f.hasFnAttribute(Attribute::Naked) ||
      f.hasFnAttribute(Attribute::ReturnsTwice) || f.getEntryBlock().isEHPad()) {
    return false;
  }
  for (Argument& a : f.args()) {
    if (a.hasInAllocaAttr() || a.hasPreallocatedAttr() || a.hasSwiftErrorAttr() ||
        a.hasSwiftSelfAttr()) {
      return false;
    }
  }
  for (BasicBlock& bb : f) {
    // A musttail call, or a block whose address is taken (indirectbr).
    if (bb.getTerminatingMustTailCall() || bb.hasAddressTaken()) return false;
  }
  DominatorTree dt(f);
  LoopInfo li(dt);
  for (Loop* l : li) {
    if (!cas_retry_loop(l)) return true;
  }
  return false;
}

// Where `plain` starts (after its static allocas, before its region's
// entry): RPROF_INST_COUNTING_SYMBOL != 0 calls `counted` with the same
// arguments and returns what it returns.
void Instrumenter::dispatch(Function& plain, Function* counted) {
  BasicBlock& entry = plain.getEntryBlock();
  BasicBlock::iterator at = entry.getFirstInsertionPt();
  while (at != entry.end() && isa<AllocaInst>(*at)) ++at;
  BasicBlock* rest = entry.splitBasicBlock(at, "rprof.plain");
  Instruction* term = entry.getTerminator();
  IRBuilder<> b(term);
  auto* flag_type = Type::getInt32Ty(ctx_);
  Value* on = b.CreateICmpNE(b.CreateLoad(flag_type, counting_flag()), b.getInt32(0));
  BasicBlock* call_bb = BasicBlock::Create(ctx_, "rprof.counted", &plain, rest);
  IRBuilder<> c(call_bb);
  SmallVector<Value*, 8> args;
  for (Argument& a : plain.args()) args.push_back(&a);
  CallInst* call = c.CreateCall(counted->getFunctionType(), counted, args);
  call->setAttributes(plain.getAttributes());
  call->setCallingConv(plain.getCallingConv());
  call->setTailCall(true);
  if (DISubprogram* sp = plain.getSubprogram()) {
    call->setDebugLoc(DILocation::get(ctx_, sp->getLine(), 0, sp));
  }
  if (plain.getReturnType()->isVoidTy()) {
    c.CreateRetVoid();
  } else {
    c.CreateRet(call);
  }
  b.CreateCondBr(on, call_bb, rest);
  term->eraseFromParent();
}

bool Instrumenter::run() {
  std::vector<Function*> fns;
  for (Function& f : m_) {
    if (f.isDeclaration() || f.hasAvailableExternallyLinkage()) continue;
    if (f.getName().startswith("__rprof") || f.getName().startswith("rprof_inst")) continue;
    fns.push_back(&f);
  }
  // Region names first: an OpenMP body's is its opener's, and a counted
  // version's is its function's.
  std::map<Function*, std::string> names;
  for (Function* f : fns) names[f] = function_region_name(*f);
  for (Function* fp : fns) {
    Function& f = *fp;
    note_calls(f);
    for (GlobalAlias& a : m_.aliases()) {
      if (a.getAliaseeObject() == &f) defined_.insert(a.getName().str());
    }
    if (versionable(f)) {
      // Loop versions, per function: the plain function keeps its regions
      // and calls its counted copy when the process counts.
      ValueToValueMapTy vmap;
      Function* counted = CloneFunction(&f, vmap);
      counted->setName(f.getName() + ".rprof.counted");
      counted->setLinkage(GlobalValue::InternalLinkage);
      counted->setVisibility(GlobalValue::DefaultVisibility);
      counted->setDLLStorageClass(GlobalValue::DefaultStorageClass);
      instrument(f, names[&f], false);
      dispatch(f, counted);
      counted_copy_ = true;
      instrument(*counted, names[&f], true);
      counted_copy_ = false;
      versioned_ = true;
      if (o_.dump) std::fprintf(o_.dump, "%s versions: plain, counted\n", f.getName().str().c_str());
    } else {
      instrument(f, names[&f], true);
    }
  }
  write_calls_note();
  return true;
}

struct InstPass : PassInfoMixin<InstPass> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& mam) {
    static const Options options = read_options();
    if (!options.error.empty()) {
      report_fatal_error(Twine("rprof_inst: RPROF_INST_LLVM_OPTIONS: ") + options.error, false);
    }
    auto& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    Instrumenter(m, options, fam).run();
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "rprof_inst", LLVM_VERSION_STRING, [](PassBuilder& pb) {
            pb.registerOptimizerLastEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(InstPass()); });
          }};
}
