// Peak floating-point kernels, one per precision, vector width and operation
// mix, each compiled for its instruction set with a target attribute and
// chosen at run time (only kernels the CPU supports are listed).
//
// Every kernel runs independent dependency chains (12 for FMA, enough to
// cover a 4-cycle latency on 2-3 pipes) on registers only, so it measures
// the arithmetic units and nothing else. FLOPs per iteration follow the
// project convention: an FMA counts 2 FLOPs per lane, an add or a mul 1.
#ifndef RPROF_MACHINE_FLOP_KERNELS_H_
#define RPROF_MACHINE_FLOP_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/kinds.h"

namespace rprof {

// The operation mix of a peak kernel.
enum class FlopMix {
  kFma = 0,     // fused multiply-add only
  kAddMul = 1,  // separate adds and multiplies (no FMA), half each
  kFmaAdd = 2,  // FMAs and adds interleaved (AMD Zen has separate add pipes)
};

const char* mix_key(FlopMix m);  // "fma", "addmul", "fma_add"
bool parse_mix(const std::string& s, FlopMix& out);

struct FlopKernel {
  Precision precision;
  Width width;
  FlopMix mix;
  const char* isa;          // instruction set the kernel is compiled for
  const char* description;  // for the machine file's provenance
  double flops_per_iter;    // FMA = 2 FLOPs
  // Runs `iters` iterations; the result only keeps the work alive.
  double (*run)(uint64_t iters, double seed);
};

// Kernels this CPU can run (checked with __builtin_cpu_supports), narrowest
// width first.
std::vector<FlopKernel> flop_kernels();

}  // namespace rprof

#endif  // RPROF_MACHINE_FLOP_KERNELS_H_
