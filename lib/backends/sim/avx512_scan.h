// Whether a program's own code uses AVX-512, which Valgrind cannot run:
// found before any run, so --backend=auto can choose another backend and say
// why instead of failing after a native run and half a simulated one.
//
// Why a heuristic and not a decoder: x86 code has no instruction boundaries
// in the file, and a 0x62 byte (the EVEX prefix) is as common inside
// immediates and displacements as anywhere. A linear-sweep decoder of the
// whole ISA is too much for one yes/no; instead an EVEX prefix counts only
// when its fixed bits are right and the instructions it and the next ones
// would be (lengths computed from ModRM, SIB, displacement and immediate)
// are followed, back to back, by more VEX or EVEX instructions: a run of
// kAvx512RunLength vector instructions, two of them EVEX, which compiled
// AVX-512 code has in every vectorized loop. Only sections of code are read
// (an executable segment may hold .rodata too). Over the 1,381 files of a
// Debian 12 /usr/bin and the libraries beside them it named AVX-512 in 8,
// each one real EVEX code by objdump (ld.so, libcrypto, LLVM 15, node ...),
// and in rprof's own calibration kernels (docs/sim-backend.md).
// Only the program's file is scanned: libraries (libc) carry AVX-512 code
// they select at run time, which under Valgrind (no AVX-512 in its CPUID)
// they never run. What the scan misses is still caught when the simulated
// run stops (diagnose_sim_run).
#ifndef RPROF_BACKENDS_SIM_AVX512_SCAN_H_
#define RPROF_BACKENDS_SIM_AVX512_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace rprof {

// Vector instructions in a row, the first EVEX-encoded and at least
// kAvx512MinEvex of them, that count as AVX-512 code.
inline constexpr int kAvx512RunLength = 3;
inline constexpr int kAvx512MinEvex = 2;

// The offset (within `code`) of the first EVEX instruction that starts such
// a run, or -1.
int64_t find_avx512_run(const uint8_t* code, size_t size);

// The file address ("0x401136") of the first such run in the code sections
// (else the executable segments) of the ELF file at `path`, or "" (none, or
// not a readable ELF file).
std::string avx512_code_in(const std::string& path);

}  // namespace rprof

#endif  // RPROF_BACKENDS_SIM_AVX512_SCAN_H_
