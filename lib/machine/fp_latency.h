// The latency of dependent floating-point operations: a chain of adds,
// multiplies or FMAs, each waiting for the one before, on registers only.
// A loop that carries one accumulator (a sum, a dot product compiled
// without -ffast-math) runs at one such operation per latency, however
// many units the core has: the dependency-chain ceiling beside the peak
// (docs/verdicts.md, "Dependency chains").
#ifndef RPROF_MACHINE_FP_LATENCY_H_
#define RPROF_MACHINE_FP_LATENCY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/kinds.h"

namespace rprof {

enum class FpOp { kAdd = 0, kMul = 1, kFma = 2 };

const char* fp_op_key(FpOp op);  // "add", "mul", "fma"
bool parse_fp_op(const std::string& s, FpOp& out);

struct FpChainKernel {
  Precision precision;
  FpOp op;
  const char* isa;
  // Runs `iters` iterations of 8 dependent operations; the result keeps
  // the chain alive.
  double (*run)(uint64_t iters);
  static constexpr int kOpsPerIter = 8;
};

// The chains this CPU can run (FMA where it has FMA), scalar: a vector
// operation's latency is the scalar one's on the x86 cores we know.
std::vector<FpChainKernel> fp_chain_kernels();

}  // namespace rprof

#endif  // RPROF_MACHINE_FP_LATENCY_H_
