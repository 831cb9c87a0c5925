// rprof cc [--] COMPILER ARGS...: compile and link with rprof's GCC plugin,
// or its LLVM pass plugin when COMPILER is clang (the inst backend); rprof cc
// --flags [COMPILER] / --libs: what it adds, for build systems that set flags
// themselves.
#include <iostream>

#include "backends/inst/inst_cc.h"
#include "common/error.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

const char* const kUsage =
    "Usage: rprof cc [--] COMPILER ARGS...   compile or link with rprof's GCC or LLVM plugin\n"
    "       rprof cc --flags [COMPILER]       the compile flags it adds (-fplugin=...; for\n"
    "                                         clang: -fpass-plugin=... -gline-tables-only)\n"
    "       rprof cc --libs                   the link flags it adds (run-time archive)\n"
    "\n"
    "COMPILER is gcc, g++, gfortran or an MPI wrapper of them (mpicc, mpicxx, mpif90) of the\n"
    "GCC version rprof was built with, or clang, clang++ (or a wrapper of them) of the LLVM\n"
    "version rprof's LLVM plugin was built with. The program it builds counts its own FLOPs (by\n"
    "precision and vector width, FMA = 2 per lane) and the bytes its code loads and stores;\n"
    "`rprof ./app` then reads them (--backend=inst, chosen by default where no hardware\n"
    "counters work). Objects built without the plugin link in and are not counted.\n"
    "Example: rprof cc gcc -O3 -march=native -c kernel.c && rprof cc gcc kernel.o -o app\n"
    "CMake: find_package(rprof) then rprof_instrument(target). See docs/inst-backend.md.\n";

void print_flags(const std::vector<std::string>& flags) {
  for (size_t i = 0; i < flags.size(); ++i) std::cout << (i ? " " : "") << flags[i];
  std::cout << "\n";
}

}  // namespace

int cmd_cc(const Args& args) {
  if (args.size() < 2 || args[1] == "--help" || args[1] == "-h") {
    std::cout << kUsage;
    return args.size() < 2 ? 2 : 0;
  }
  if (args[1] == "--flags" || args[1] == "--libs") {
    const bool flags = args[1] == "--flags";
    if (args.size() > (flags ? 3 : 2)) {
      throw Error("rprof cc " + args[1] + (flags ? " takes at most a compiler" : " takes no arguments"),
                  2);
    }
    std::string why;
    const InstFiles files = find_inst_files(&why);
    bool clang = false;
    if (args.size() == 3) {
      bool flang = false;
      clang = compiler_is_clang(args[2], &flang);
      if (flang) throw Error("rprof cc: " + args[2] + " (flang-new) is not instrumented", 2);
    }
    if (clang && (files.llvm_plugin.empty() || files.runtime.empty())) {
      throw Error("rprof cc: " + files.llvm_why, 1);
    }
    if (!clang && (files.plugin.empty() || files.runtime.empty())) {
      throw Error("rprof cc: " + why, 1);
    }
    print_flags(flags ? inst_compile_flags(files, clang) : inst_link_flags(files));
    return 0;
  }
  run_instrumented_compiler(Args(args.begin() + 1, args.end()));
}

}  // namespace rprof
