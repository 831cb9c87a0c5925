#include "backends/inst/inst_cc.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <optional>
#include <fstream>
#include <set>
#include <string_view>

#include "backends/inst/inst_counters.h"
#include "common/elf_file.h"
#include "common/error.h"
#include "common/fs.h"
#include "profile/function_view.h"

namespace rprof {
namespace {

bool is_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The path without "..": what people read in `rprof cc --flags`.
std::string resolved(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

// Options of GCC's driver whose value is the next argument.
const std::set<std::string>& options_with_value() {
  static const std::set<std::string> kOptions = {
      "-o",       "-I",          "-L",      "-l",        "-x",          "-include",
      "-imacros", "-isystem",    "-idirafter", "-iprefix", "-iwithprefix", "-iquote",
      "-MF",      "-MT",         "-MQ",     "-Xlinker",  "-Xassembler", "-Xpreprocessor",
      "-T",       "-u",          "-z",      "-aux-info", "--param",     "-dumpbase",
      "-dumpdir", "-isysroot",   "-B",      "-e",        "-wrapper",    "-specs"};
  return kOptions;
}

// The major version a compiler reports (`-dumpversion`), "" when it cannot
// be run.
// What `argv` prints on stdout (its stderr discarded), "" when it cannot run
// or fails.
std::string output_of(const std::vector<std::string>& argv) {
  int fds[2];
  if (argv.empty() || pipe(fds) != 0) return "";
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    close(fds[0]);
    close(fds[1]);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = ::read(fds[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return out;
}

std::string compiler_major(const std::string& compiler) {
  const std::string out = output_of({compiler, "-dumpversion"});
  size_t end = 0;
  while (end < out.size() && out[end] >= '0' && out[end] <= '9') ++end;
  return out.substr(0, end);
}

}  // namespace

InstFiles find_inst_files(std::string* why) {
  InstFiles files;
  files.gcc_major = RPROF_INST_GCC_MAJOR;
  files.llvm_major = RPROF_INST_LLVM_MAJOR;
  const std::string dir = self_exe_dir();
  std::vector<std::string> dirs;
  if (!dir.empty()) {
    dirs.push_back(dir + "/" RPROF_INST_DIR_FROM_BINDIR);
    dirs.push_back(dir + "/../lib/rprof");  // the build tree
  }
  for (const std::string& d : dirs) {
    if (files.plugin.empty() && is_file(d + "/rprof_inst.so")) {
      files.plugin = resolved(d + "/rprof_inst.so");
    }
    if (files.runtime.empty() && is_file(d + "/librprof_inst_rt.a")) {
      files.runtime = resolved(d + "/librprof_inst_rt.a");
    }
    if (files.llvm_plugin.empty() && is_file(d + "/rprof_inst_llvm.so")) {
      files.llvm_plugin = resolved(d + "/rprof_inst_llvm.so");
    }
    if (files.librprof.empty() && is_file(d + "/../librprof.so")) {
      files.librprof = resolved(d + "/../librprof.so");
    }
  }
  if (why) {
    if (files.gcc_major.empty()) {
      *why = "this rprof was built without its GCC plugin (no GCC plugin headers at build time: "
             "install gcc-N-plugin-dev for the GCC that builds rprof, then rebuild)";
    } else if (files.plugin.empty() || files.runtime.empty()) {
      *why = "the GCC plugin or its run-time archive is missing beside this rprof (looked in " +
             (dirs.empty() ? std::string("nowhere: /proc/self/exe unreadable") : dirs.front()) +
             ")";
    }
  }
  if (files.llvm_major.empty()) {
    files.llvm_why = "this rprof was built without its LLVM plugin (no LLVM development files "
                     "for the clang found at build time: install llvm-N-dev, N its major "
                     "version, then rebuild)";
  } else if (files.llvm_plugin.empty() || files.runtime.empty()) {
    files.llvm_why = "the LLVM plugin or its run-time archive is missing beside this rprof "
                     "(looked in " +
                     (dirs.empty() ? std::string("nowhere") : dirs.front()) + ")";
  }
  if (files.gcc_major.empty()) files.plugin.clear();
  if (files.llvm_major.empty()) files.llvm_plugin.clear();
  return files;
}

std::string inst_refusal(const std::string& program) {
  std::string error;
  const std::optional<ElfFile> elf = ElfFile::load(program, &error);
  if (!elf) return "cannot read " + program + " (" + error + ")";
  const ElfNote* note = elf->note(RPROF_INST_NOTE_OWNER, RPROF_INST_NOTE_TYPE);
  if (!note) {
    return program + " was not built with rprof cc (no " RPROF_INST_NOTE_SECTION " note)";
  }
  uint32_t version = 0;
  if (note->desc.size() >= sizeof(version)) std::memcpy(&version, note->desc.data(), sizeof(version));
  if (version != RPROF_INST_LAYOUT_VERSION) {
    return program + " was built by another rprof (counter layout " + std::to_string(version) +
           "; this rprof reads layout " + std::to_string(RPROF_INST_LAYOUT_VERSION) +
           "): rebuild it with this rprof's `rprof cc`";
  }
  return "";
}

bool calls_dlopen(const std::string& program) {
  std::ifstream in(program, std::ios::binary);
  if (!in) return false;
  // Names in .dynstr are NUL-delimited; read in blocks that overlap by the
  // longest needle so none is split.
  static const std::string kNeedles[] = {std::string("\0dlopen\0", 8),
                                         std::string("\0dlmopen\0", 9)};
  constexpr size_t kBlock = 1 << 20, kOverlap = 16;
  std::string window;
  std::vector<char> buf(kBlock);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    window.append(buf.data(), got);
    for (const std::string& n : kNeedles) {
      if (window.find(n) != std::string::npos) return true;
    }
    if (window.size() > kOverlap) window.erase(0, window.size() - kOverlap);
  }
  return false;
}

namespace {

// Functions whose work the instrumented code already counts (the memory
// functions, by their size at the call) or that are rprof's own.
bool counted_or_ours(const std::string& n) {
  static const std::set<std::string> kCounted = {
      "memcpy", "memmove", "mempcpy", "memset", "__memcpy_chk", "__memmove_chk",
      "__mempcpy_chk", "__memset_chk"};
  if (kCounted.count(n)) return true;
  for (const char* prefix : {"rprof_", "__rprof", "likwid_marker", "PAPI_hl_", "_rprof"}) {
    if (n.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// A C math library function (its FLOPs are the likeliest to matter).
bool libm_function(const std::string& n) {
  static const std::set<std::string> kMath = {
      "sin",   "cos",   "tan",   "asin",  "acos",  "atan",  "atan2", "sinh",  "cosh",
      "tanh",  "asinh", "acosh", "atanh", "exp",   "exp2",  "expm1", "log",   "log2",
      "log10", "log1p", "pow",   "sqrt",  "cbrt",  "hypot", "erf",   "erfc",  "tgamma",
      "lgamma", "fmod", "remainder", "sincos", "exp10", "j0", "j1", "y0", "y1"};
  if (kMath.count(n)) return true;
  if (n.size() > 1 && (n.back() == 'f' || n.back() == 'l')) {
    return kMath.count(n.substr(0, n.size() - 1)) > 0;
  }
  return false;
}

}  // namespace

namespace {

// Each entry of the calls notes of `object` (NUL-terminated: a one-letter
// flag, "M" or "V", or a name prefixed 'C' or 'D'), to `f`; none when it is
// no readable ELF file.
template <class F>
void for_each_calls_entry(const std::string& object, F f) {
  std::string error;
  const std::optional<ElfFile> elf = ElfFile::load(object, &error);
  if (!elf) return;
  for (const ElfNote& n : elf->notes()) {
    if (n.owner != RPROF_INST_NOTE_OWNER || n.type != RPROF_INST_CALLS_TYPE) continue;
    size_t at = 0;
    while (at < n.desc.size()) {
      size_t end = n.desc.find('\0', at);
      if (end == std::string::npos) end = n.desc.size();
      if (end > at) f(std::string_view(n.desc).substr(at, end - at));
      at = end + 1;
    }
  }
}

// Whether a calls note of `program` holds the one-letter entry `flag` ("M"
// alone, not a name that starts with M).
bool calls_note_flag(const std::string& program, char flag) {
  bool found = false;
  for_each_calls_entry(program, [&](std::string_view e) {
    found |= e.size() == 1 && e[0] == flag;
  });
  return found;
}

}  // namespace

bool inst_memory_instrumented(const std::string& program) {
  return calls_note_flag(program, 'M');
}

bool inst_loops_versioned(const std::string& program) { return calls_note_flag(program, 'V'); }

std::vector<std::string> inst_libraries(const std::string& program) {
  // The loader's own resolution (ldd: the loader in list mode, which runs
  // none of the program's code): RPATH, RUNPATH, LD_LIBRARY_PATH, the cache.
  if (elf_needed(program).empty()) return {};
  const std::string out = output_of({"ldd", program});
  std::vector<std::string> libs;
  size_t at = 0;
  while (at < out.size()) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(at, end - at);
    at = end + 1;
    // "\tlibdx.so => /path/libdx.so (0x...)"
    const size_t arrow = line.find(" => ");
    const size_t addr = line.rfind(" (0x");
    if (arrow == std::string::npos || addr == std::string::npos || addr <= arrow + 4) continue;
    const std::string path = line.substr(arrow + 4, addr - arrow - 4);
    if (!path.empty() && path[0] == '/' && inst_refusal(path).empty()) libs.push_back(path);
  }
  return libs;
}

std::vector<std::string> uncounted_callees(const std::string& program) {
  return uncounted_callees(std::vector<std::string>{program});
}

std::vector<std::string> uncounted_callees(const std::vector<std::string>& objects) {
  std::set<std::string> called, defined;
  for (const std::string& object : objects) {
    for_each_calls_entry(object, [&](std::string_view e) {
      if (e.size() < 2) return;
      if (e[0] == 'C') called.emplace(e.substr(1));
      if (e[0] == 'D') defined.emplace(e.substr(1));
    });
  }
  // libm first, then the program's and its libraries' functions, then the
  // language run-time's (names with a leading underscore, std::, operators).
  std::vector<std::string> groups[3];
  for (const std::string& c : called) {
    if (defined.count(c) || counted_or_ours(c)) continue;
    std::string shown = demangle_symbol(c);
    // Without its parameter list (operator() keeps its own).
    const size_t paren = shown.find('(', shown.rfind("operator()") != std::string::npos
                                             ? shown.rfind("operator()") + 10
                                             : 0);
    if (paren != std::string::npos && paren > 0) shown.resize(paren);
    const bool runtime = c[0] == '_' && c.rfind("_Z", 0) != 0;
    const bool lang = shown.rfind("std::", 0) == 0 || shown.find("operator") != std::string::npos ||
                      shown.rfind("__", 0) == 0;
    groups[libm_function(c) ? 0 : (runtime || lang) ? 2 : 1].push_back(shown);
  }
  std::vector<std::string> out;
  for (auto& g : groups) {
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    out.insert(out.end(), g.begin(), g.end());
  }
  return out;
}

std::vector<std::string> inst_compile_flags(const InstFiles& files, bool clang) {
  // clang: line tables name the loop regions (file:line); they change no
  // code. A -g of the command line, after them, wins.
  if (clang) return {"-fpass-plugin=" + files.llvm_plugin, "-gline-tables-only"};
  return {"-fplugin=" + files.plugin};
}

bool compiler_is_clang(const std::string& compiler, bool* flang) {
  const std::string out = output_of({compiler, "--version"});
  const std::string first = out.substr(0, out.find('\n'));
  if (flang) *flang = first.find("flang") != std::string::npos;
  return first.find("clang version") != std::string::npos;
}

std::vector<std::string> inst_link_flags(const InstFiles& files) {
  // Whole: every executable and shared library linked by rprof cc carries
  // the run-time object and its note, even where an instrumented library on
  // the command line already defines the counters (its definition would
  // otherwise satisfy the program's references and leave the program
  // without the note). The program's definitions interpose on a library's.
  // -ldl: dlsym is in libc from glibc 2.34; older ones need libdl.
  return {"-Wl,--whole-archive", files.runtime, "-Wl,--no-whole-archive", "-ldl"};
}

bool compiler_links(const std::vector<std::string>& args) {
  bool inputs = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-c" || a == "-S" || a == "-E" || a == "-M" || a == "-MM" ||
        a == "-fsyntax-only") {
      return false;
    }
    if (options_with_value().count(a)) {
      ++i;
      continue;
    }
    if (a.empty() || a[0] != '-' || a == "-") inputs = true;
  }
  return inputs;
}

void run_instrumented_compiler(const std::vector<std::string>& args_in) {
  std::vector<std::string> args = args_in;
  if (!args.empty() && args.front() == "--") args.erase(args.begin());
  if (args.empty()) {
    throw Error("rprof cc: no compiler given (rprof cc gcc -O2 -c kernel.c)", 2);
  }
  std::string why;
  const InstFiles files = find_inst_files(&why);
  const std::string& compiler = args.front();
  bool flang = false;
  const bool clang = compiler_is_clang(compiler, &flang);
  if (flang) {
    throw Error("rprof cc: " + compiler + " is LLVM's Fortran compiler (flang-new), which rprof "
                    "does not instrument: build the Fortran code with gfortran",
                2);
  }
  if (clang) {
    if (files.llvm_plugin.empty() || files.runtime.empty()) {
      throw Error("rprof cc: " + files.llvm_why, 1);
    }
  } else if (files.plugin.empty() || files.runtime.empty()) {
    throw Error("rprof cc: " + why, 1);
  }
  const std::string major = compiler_major(compiler);
  if (major.empty()) {
    throw Error("rprof cc: cannot run " + compiler + " -dumpversion (is " + compiler +
                    " a compiler on PATH?)",
                2);
  }
  if (clang && major != files.llvm_major) {
    throw Error("rprof cc: " + compiler + " is clang " + major +
                    "; rprof's LLVM plugin is built for LLVM " + files.llvm_major +
                    " (a pass plugin loads only into the LLVM it was built against: rebuild "
                    "rprof with llvm-" + major + "-dev installed)",
                2);
  }
  if (!clang && major != files.gcc_major) {
    throw Error("rprof cc: " + compiler + " reports version " + major +
                    "; rprof's plugin is built for GCC " + files.gcc_major +
                    " (GCC loads plugins only of its own version)",
                2);
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (clang) {
    // The GCC plugin's options (-fplugin-arg-rprof_inst-KEY=VALUE), which
    // clang has no way to pass to a pass plugin: the environment.
    std::string options;
    std::vector<std::string> kept;
    for (const std::string& a : rest) {
      static const std::string kPrefix = "-fplugin-arg-rprof_inst-";
      if (a.rfind(kPrefix, 0) == 0) {
        options += (options.empty() ? "" : ",") + a.substr(kPrefix.size());
        continue;
      }
      if (a == "-flto" || a.rfind("-flto=", 0) == 0) {
        throw Error("rprof cc: " + a + ": with LTO clang optimizes and vectorizes at link time, "
                    "after rprof's plugin has run at compile time: build without -flto",
                    2);
      }
      if (a == "-flegacy-pass-manager") {
        throw Error("rprof cc: -flegacy-pass-manager: rprof's LLVM plugin is a new pass "
                    "manager plugin; build without it",
                    2);
      }
      kept.push_back(a);
    }
    rest = kept;
    if (!options.empty()) setenv("RPROF_INST_LLVM_OPTIONS", options.c_str(), 1);
  }
  std::vector<std::string> argv = {compiler};
  for (const std::string& f : inst_compile_flags(files, clang)) argv.push_back(f);
  argv.insert(argv.end(), rest.begin(), rest.end());
  if (compiler_links(args)) {
    for (const std::string& f : inst_link_flags(files)) argv.push_back(f);
  }
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(cargv[0], cargv.data());
  throw Error("rprof cc: cannot run " + compiler + ": " + std::strerror(errno), 127);
}

}  // namespace rprof
