// FLOPs known from the source: PolyBench-style kernels (tests/sim/polybench.c,
// written for rprof) built at -O0, where the machine code performs each
// floating-point operation of the source once, in scalar double precision.
// The count the simulator gives each kernel's region must equal the count
// derived here from the loop bounds (FMA = 2; + - * / are 1 each).
#include <catch2/catch.hpp>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "sim_checks.h"

using namespace rprof::test;
using nlohmann::json;

namespace {

struct Kernel {
  const char* name;
  std::vector<uint64_t> dims;
  // FLOPs of the source for these dims (see polybench.c for each loop nest).
  std::function<uint64_t(const std::vector<uint64_t>&)> flops;
};

std::string arg_of(const Kernel& k) {
  std::string a = std::string(k.name) + "=";
  for (size_t i = 0; i < k.dims.size(); ++i) a += (i ? "," : "") + std::to_string(k.dims[i]);
  return a;
}

}  // namespace

TEST_CASE("sim: FLOPs of PolyBench-style kernels at -O0 equal the source's") {
  require_sim_backend();
  // Small, distinct sizes (Valgrind is slow; distinct so a swapped loop bound
  // changes the count).
  const std::vector<Kernel> kernels = {
      // C *= beta (ni*nj); C += alpha*A*B: 2 mul + 1 add per (i,j,k).
      {"gemm", {20, 22, 24}, [](auto d) { return d[0] * d[1] + 3 * d[0] * d[1] * d[2]; }},
      // tmp += alpha*A*B: 3 per (i,j,k); D *= beta (ni*nl); D += tmp*C: 2 per (i,l,j).
      {"2mm",
       {12, 14, 16, 18},
       [](auto d) { return 3 * d[0] * d[1] * d[2] + d[0] * d[3] + 2 * d[0] * d[3] * d[1]; }},
      // tmp += A*x and y += A*tmp: 2 + 2 per element.
      {"atax", {30, 34}, [](auto d) { return 4 * d[0] * d[1]; }},
      // x1 += A*y1 and x2 += A^T*y2: 2 + 2 per element.
      {"mvt", {40}, [](auto d) { return 4 * d[0] * d[0]; }},
      // lower triangle, n(n+1)/2 elements: C *= beta, then m times C += alpha*A*A.
      {"syrk", {24, 18}, [](auto d) { return d[0] * (d[0] + 1) / 2 * (1 + 3 * d[1]); }},
      // t steps, two sweeps of n-2 points, 2 adds + 1 mul each.
      {"jacobi1d", {10, 100}, [](auto d) { return 6 * d[0] * (d[1] - 2); }},
      // t steps, two sweeps of (n-2)^2 points, 4 adds + 1 mul each.
      {"jacobi2d", {4, 22}, [](auto d) { return 10 * d[0] * (d[1] - 2) * (d[1] - 2); }},
      // row i: i multiply-subtracts (2 each) and one division.
      {"trisolv", {50}, [](auto d) { return d[0] * (d[0] - 1) + d[0]; }},
  };
  std::vector<std::string> cmd = {sim_test_program("polybench")};
  for (const Kernel& k : kernels) cmd.push_back(arg_of(k));
  // The geometry does not change FLOPs; it is pinned so nothing is read from
  // this machine.
  const json p = sim_run(cmd, "l1=32K:8:64,l2=256K:8:64,llc=2M:16:64");
  for (const Kernel& k : kernels) {
    const uint64_t want = k.flops(k.dims);
    const json r = find_region(p, k.name);
    INFO(arg_of(k) << ": want " << want << " FLOPs");
    REQUIRE(r.is_object());
    CHECK(r["calls"] == 1);
    std::printf("%-9s %-16s source %8llu FLOPs, counted %8llu FLOPs\n", k.name, arg_of(k).c_str(),
                static_cast<unsigned long long>(want),
                static_cast<unsigned long long>(all_flops(r)));
    CHECK(all_flops(r) == want);
    // -O0 on x86-64: scalar SSE2 double precision, one FLOP per instruction.
    CHECK(counter_of(r, "flops.dp.scalar") == want);
    CHECK(counter_of(r, "fpins.dp.scalar") == want);
  }
}
