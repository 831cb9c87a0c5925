#include "machine/fp_latency.h"

namespace rprof {
namespace {

// Operands come through volatiles, so the compiler cannot fold the chain;
// the asm keeps its 8 operations dependent and in order. mul by 1.0 and
// FMA with a zero product keep the value (no overflow or denormals).
volatile double g_one = 1.0, g_zero = 0.0;

#define RPROF_CHAIN8(INSN) INSN "\n\t" INSN "\n\t" INSN "\n\t" INSN "\n\t" \
                           INSN "\n\t" INSN "\n\t" INSN "\n\t" INSN

double add_dp(uint64_t n) {
  double x = g_zero;
  const double c = g_zero;
  for (uint64_t i = 0; i < n; ++i) asm volatile(RPROF_CHAIN8("addsd %1, %0") : "+x"(x) : "x"(c));
  return x;
}
double mul_dp(uint64_t n) {
  double x = g_one;
  const double c = g_one;
  for (uint64_t i = 0; i < n; ++i) asm volatile(RPROF_CHAIN8("mulsd %1, %0") : "+x"(x) : "x"(c));
  return x;
}
float add_sp_(uint64_t n) {
  float x = static_cast<float>(g_zero);
  const float c = static_cast<float>(g_zero);
  for (uint64_t i = 0; i < n; ++i) asm volatile(RPROF_CHAIN8("addss %1, %0") : "+x"(x) : "x"(c));
  return x;
}
float mul_sp_(uint64_t n) {
  float x = static_cast<float>(g_one);
  const float c = static_cast<float>(g_one);
  for (uint64_t i = 0; i < n; ++i) asm volatile(RPROF_CHAIN8("mulss %1, %0") : "+x"(x) : "x"(c));
  return x;
}
__attribute__((target("fma"))) double fma_dp(uint64_t n) {
  double x = g_zero;
  const double a = g_zero, b = g_zero;
  for (uint64_t i = 0; i < n; ++i) {
    asm volatile(RPROF_CHAIN8("vfmadd231sd %1, %2, %0") : "+x"(x) : "x"(a), "x"(b));
  }
  return x;
}
__attribute__((target("fma"))) float fma_sp_(uint64_t n) {
  float x = static_cast<float>(g_zero);
  const float a = static_cast<float>(g_zero), b = static_cast<float>(g_zero);
  for (uint64_t i = 0; i < n; ++i) {
    asm volatile(RPROF_CHAIN8("vfmadd231ss %1, %2, %0") : "+x"(x) : "x"(a), "x"(b));
  }
  return x;
}
double add_sp(uint64_t n) { return add_sp_(n); }
double mul_sp(uint64_t n) { return mul_sp_(n); }
__attribute__((target("fma"))) double fma_sp(uint64_t n) { return fma_sp_(n); }

#undef RPROF_CHAIN8

}  // namespace

const char* fp_op_key(FpOp op) {
  switch (op) {
    case FpOp::kAdd: return "add";
    case FpOp::kMul: return "mul";
    default: return "fma";
  }
}

bool parse_fp_op(const std::string& s, FpOp& out) {
  for (FpOp op : {FpOp::kAdd, FpOp::kMul, FpOp::kFma}) {
    if (s == fp_op_key(op)) {
      out = op;
      return true;
    }
  }
  return false;
}

std::vector<FpChainKernel> fp_chain_kernels() {
  std::vector<FpChainKernel> out = {
      {Precision::kDP, FpOp::kAdd, "sse2", add_dp},
      {Precision::kDP, FpOp::kMul, "sse2", mul_dp},
      {Precision::kSP, FpOp::kAdd, "sse", add_sp},
      {Precision::kSP, FpOp::kMul, "sse", mul_sp},
  };
  if (__builtin_cpu_supports("fma")) {
    out.push_back({Precision::kDP, FpOp::kFma, "fma", fma_dp});
    out.push_back({Precision::kSP, FpOp::kFma, "fma", fma_sp});
  }
  return out;
}

}  // namespace rprof
