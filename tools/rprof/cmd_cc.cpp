// rprof cc [--] COMPILER ARGS...: compile and link with rprof's GCC plugin
// (the inst backend); rprof cc --flags / --libs: what it adds, for build
// systems that set flags themselves.
#include <iostream>

#include "backends/inst/inst_cc.h"
#include "common/error.h"
#include "tools/rprof/commands.h"

namespace rprof {
namespace {

const char* const kUsage =
    "Usage: rprof cc [--] COMPILER ARGS...   compile or link with rprof's GCC plugin\n"
    "       rprof cc --flags                  the compile flags it adds (-fplugin=...)\n"
    "       rprof cc --libs                   the link flags it adds (run-time archive)\n"
    "\n"
    "COMPILER is gcc, g++, gfortran or an MPI wrapper of them (mpicc, mpicxx, mpif90) of the\n"
    "GCC version rprof was built with. The program it builds counts its own FLOPs (by\n"
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
    if (args.size() > 2) throw Error("rprof cc " + args[1] + " takes no arguments", 2);
    std::string why;
    const InstFiles files = find_inst_files(&why);
    if (files.plugin.empty() || files.runtime.empty()) throw Error("rprof cc: " + why, 1);
    print_flags(args[1] == "--flags" ? inst_compile_flags(files) : inst_link_flags(files));
    return 0;
  }
  run_instrumented_compiler(Args(args.begin() + 1, args.end()));
}

}  // namespace rprof
