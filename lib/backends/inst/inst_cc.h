// `rprof cc`: compiles and links with rprof's GCC plugin, or its LLVM pass
// plugin for clang (the inst backend),
// and what the inst driver asks of a program: was it built that way?
#ifndef RPROF_BACKENDS_INST_INST_CC_H_
#define RPROF_BACKENDS_INST_INST_CC_H_

#include <string>
#include <vector>

namespace rprof {

// This rprof's plugin and run-time archive: installed beside it
// (<libdir>/rprof) or in its build tree (<build>/lib/rprof). A part that is
// missing is "" with the reason in *why.
struct InstFiles {
  std::string plugin;   // rprof_inst.so
  std::string runtime;  // librprof_inst_rt.a
  std::string gcc_major;  // the GCC the plugin is built for ("" when none)
  std::string librprof;   // librprof.so beside them, preloaded into a program without markers
  std::string llvm_plugin;  // rprof_inst_llvm.so, the LLVM pass plugin for clang ("" when none)
  std::string llvm_major;   // the LLVM (clang) major version it is built for ("" when none)
  std::string llvm_why;     // why there is no LLVM plugin ("" when there is)
};
InstFiles find_inst_files(std::string* why);

// "" when `program` carries the note of a program built with `rprof cc`
// (inst_counters.h), else why not ("not built with rprof cc", "built by a
// newer rprof (counter layout 2; this rprof reads 1)", "cannot read it").
std::string inst_refusal(const std::string& program);

// Whether `program` imports dlopen (or dlmopen): it may load a library built
// with rprof cc that no ldd shows. Read from its dynamic string table's
// names (a program that only mentions the word elsewhere is taken as one
// that may: the cost is a run that counts nothing, and says so).
bool calls_dlopen(const std::string& program);

// The functions the program's instrumented code calls that no instrumented
// unit defines (the calls notes, inst_counters.h), demangled: code that may
// be built without the plugin, whose FLOPs and bytes are not counted. rprof's
// markers and the memory functions whose bytes are counted at the call are
// left out; libm's functions come first, then the rest by name.
std::vector<std::string> uncounted_callees(const std::string& program);
// The same over several objects built with rprof cc (a program and its
// instrumented libraries): a function one defines is not uncounted in another.
std::vector<std::string> uncounted_callees(const std::vector<std::string>& objects);

// The shared libraries `program` loads at start (resolved as the loader
// does: ldd) that were built with rprof cc (their note, inst_refusal): their
// counts reach the program's runtime whether the program is instrumented or
// not. Libraries loaded later with dlopen are not seen here.
std::vector<std::string> inst_libraries(const std::string& program);

// Whether any unit of `program` was built with its memory accesses
// instrumented (plugin option memory=on: an "M" entry in its calls note,
// inst_counters.h), so the runtime can run the sampled cache model on it.
bool inst_memory_instrumented(const std::string& program);

// Whether any unit of `program` has a loop nest compiled twice, counted and
// plain (plugin option versions=on: a "V" entry in its calls note), so a run
// with RPROF_INST_COUNTING unset times its loops at native speed.
bool inst_loops_versioned(const std::string& program);

// What `rprof cc` adds to a compile (`-fplugin=...`; for clang
// `-fpass-plugin=... -gline-tables-only`) and to a link (the run-time archive
// and -ldl), for build systems: `rprof cc --flags [clang]` and `--libs`.
std::vector<std::string> inst_compile_flags(const InstFiles& files, bool clang = false);
std::vector<std::string> inst_link_flags(const InstFiles& files);

// Whether a compiler command line links (no -c, -S, -E, -M, -MM,
// -fsyntax-only, and at least one input), so the run-time archive is added.
bool compiler_links(const std::vector<std::string>& args);

// Whether `compiler` is clang (or a wrapper of it, mpicc on clang): what its
// --version says. *flang: whether it is LLVM's Fortran compiler (flang-new).
bool compiler_is_clang(const std::string& compiler, bool* flang = nullptr);

// rprof cc [--] COMPILER ARGS...: runs COMPILER with the plugin (and, when it
// links, the run-time archive); returns only on failure (exec replaces rprof),
// by throwing Error. args: what follows "cc".
[[noreturn]] void run_instrumented_compiler(const std::vector<std::string>& args);

}  // namespace rprof

#endif  // RPROF_BACKENDS_INST_INST_CC_H_
