#include "backends/sim/sim_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <tuple>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/sim/sim_protocol.h"
#include "common/error.h"
#include "common/fs.h"
#include "runtime/handshake.h"
#include "profile/run_layout.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

#if defined(RPROF_HAVE_SIM)
const char* const kToolFile = RPROF_SIM_TOOL_NAME "-amd64-linux";

// "" when dir is a usable VALGRIND_LIB for the tool, else what is missing.
std::string check_libdir(const std::string& dir) {
  const std::string tool = dir + "/" + kToolFile;
  if (access(tool.c_str(), X_OK) != 0) return tool + " is missing";
  const std::string preload = dir + "/vgpreload_core-amd64-linux.so";
  if (access(preload.c_str(), R_OK) != 0) {
    return preload + " is missing (the links to Valgrind's run-time files; "
                     "reinstall rprof or rebuild)";
  }
  return "";
}

std::string find_valgrind() {
#if defined(RPROF_VALGRIND_BIN)
  if (access(RPROF_VALGRIND_BIN, X_OK) == 0) return RPROF_VALGRIND_BIN;
#endif
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const std::string p = (dir.empty() ? "." : dir) + "/valgrind";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}
#endif  // RPROF_HAVE_SIM

}  // namespace

std::optional<SimTool> find_sim_tool(std::string* why, std::string* fix) {
  std::string unused;
  if (fix == nullptr) fix = &unused;
#if !defined(RPROF_HAVE_SIM)
  *why = "this rprof was built without the sim backend (install the valgrind "
         "package and rebuild)";
  *fix = "install the valgrind package and rebuild rprof";
  return std::nullopt;
#else
  SimTool t;
  t.valgrind = find_valgrind();
  if (t.valgrind.empty()) {
    *why = "valgrind is not installed (apt-get install valgrind)";
    *fix = "apt-get install valgrind";
    return std::nullopt;
  }
  *fix = "build rprof with its sim backend, or set " RPROF_ENV_SIM_LIBDIR;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv(RPROF_ENV_SIM_LIBDIR); env != nullptr && *env) {
    candidates.push_back(env);
  } else {
    const std::string exe_dir = self_exe_dir();
    if (exe_dir.empty()) {
      *why = "cannot read /proc/self/exe to find the rprof-sim tool";
      return std::nullopt;
    }
    candidates.push_back(exe_dir + "/" RPROF_SIM_LIBDIR_FROM_BINDIR);
    candidates.push_back(exe_dir + "/../libexec/rprof/valgrind");  // build tree
  }
  std::string first_problem;
  for (const std::string& c : candidates) {
    const std::string problem = check_libdir(c);
    if (problem.empty()) {
      t.libdir = fs::path(c).lexically_normal().string();
      fix->clear();
      return t;
    }
    if (first_problem.empty()) first_problem = problem;
  }
  *why = "the rprof-sim Valgrind tool was not found: " + first_problem;
  return std::nullopt;
#endif
}

namespace {

// Valgrind expands %p, %q{VAR} and %% in the file names of --log-file and of
// the tool's --rp-out / --rp-fn-out: a '%' of the output directory's own name
// is written %% so the path stays the one the user chose.
std::string valgrind_literal(const std::string& path) {
  std::string out;
  for (const char c : path) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

SimRunFiles sim_run_files(const std::string& out_dir, bool capture_app_output) {
  SimRunFiles f;
  f.dir = out_dir + "/" + layout::kSimDir;
  f.raw_dir = out_dir + "/" + layout::kSimRawDir;
  const std::string vg_dir = valgrind_literal(f.dir);
  f.log = vg_dir + "/valgrind.%p.log";
  f.totals = vg_dir + "/totals.%p.txt";
  f.functions = vg_dir + "/functions.%p.txt";
  if (capture_app_output) {
    f.app_stdout = f.dir + "/stdout.txt";
    f.app_stderr = f.dir + "/stderr.txt";
  }
  for (const std::string& d : {f.dir, f.raw_dir}) {
    if (mkdir(d.c_str(), 0700) != 0) throw Error("cannot create " + d);
  }
  return f;
}

LaunchSpec sim_launch_spec(const SimTool& tool, const SimCaches& caches,
                           const std::vector<std::string>& app, const SimRunFiles& files,
                           bool functions) {
  LaunchSpec spec;
  spec.argv = app;
  // Children are simulated too (forked or exec'd, MPI ranks under mpirun):
  // their markers count as in the timed run.
  spec.wrapper = {tool.valgrind,
                  std::string("--tool=") + RPROF_SIM_TOOL_NAME,
                  "--trace-children=yes",
                  "--max-threads=" + std::to_string(kSimMaxThreads),
                  "--log-file=" + files.log,
                  "--rp-out=" + files.totals};
  for (const std::string& o : sim_tool_options(caches)) spec.wrapper.push_back(o);
  if (functions) {
    // --demangle=no: the tool keys functions by their raw ELF names, the
    // join key with the sampled times.
    spec.wrapper.insert(spec.wrapper.begin() + 1, "--demangle=no");
    spec.wrapper.push_back("--rp-functions=yes");
    spec.wrapper.push_back("--rp-fn-out=" + files.functions);
  }
  spec.env["VALGRIND_LIB"] = tool.libdir;
  spec.env[RPROF_ENV_OUTPUT_DIR] = files.raw_dir;
  spec.env[RPROF_ENV_BACKEND] = "sim";
  // Calls into the runtime go through PLT slots that the tool reads when it
  // translates the stub; bound at load time, they are never counted.
  spec.env["LD_BIND_NOW"] = "1";
  // Valgrind runs one thread at a time: OpenMP threads spinning at a barrier
  // only burn simulated time (and count their spin loads), so let them sleep
  // unless the user chose otherwise.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) spec.env["OMP_WAIT_POLICY"] = "passive";
  // The simulated caches see the stack's addresses: counts must not move
  // with the output path, the working directory or the pid (launcher.h).
  spec.fixed_stack = true;
  spec.stdout_path = files.app_stdout;
  spec.stderr_path = files.app_stderr;
  return spec;
}

namespace {

// Files of dir named <prefix>*<suffix>, sorted.
std::vector<std::string> files_like(const std::string& dir, const std::string& prefix,
                                    const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > prefix.size() + suffix.size() && n.rfind(prefix, 0) == 0 &&
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

CounterMap read_sim_totals(const std::string& dir) {
  CounterMap m;
  for (const std::string& f : files_like(dir, "totals.", ".txt")) {
    std::ifstream in(f);
    std::string name;
    uint64_t value = 0;
    while (in >> name >> value) m[name] += value;
  }
  return m;
}

bool has_sim_totals(const std::string& dir) {
  return !files_like(dir, "totals.", ".txt").empty();
}

namespace {

// A per-function table larger than this is refused (a runaway program with
// millions of distinct symbols or regions would otherwise eat the memory).
constexpr uintmax_t kMaxFunctionTableBytes = 256u << 20;

const char* const kSimCounterNames[RPROF_SIM_NCOUNTERS] = {
#define RPROF_SIM_NAME(i, name) name,
    RPROF_SIM_COUNTERS(RPROF_SIM_NAME)
#undef RPROF_SIM_NAME
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t tab = line.find('\t', at);
    out.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
    if (tab == std::string::npos) return out;
    at = tab + 1;
  }
}

uint64_t to_u64(const std::string& s, int base, const std::string& where) {
  if (s.empty()) throw Error(where + ": empty number");
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (*end != '\0' || errno != 0 || s[0] == '-') throw Error(where + ": bad number '" + s + "'");
  return v;
}

}  // namespace

void parse_sim_functions(const std::string& text, const std::string& file, FunctionTable& into) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  struct Ctx {
    uint64_t parent;
    std::string name;
  };
  std::map<uint64_t, Ctx> ctxs;
  std::map<uint64_t, FunctionCounts> fns;
  std::map<std::tuple<std::vector<std::string>, std::string, std::string, uint64_t>, size_t> row_of;
  for (size_t i = 0; i < into.rows.size(); ++i) {
    const FunctionCounts& r = into.rows[i];
    row_of[{r.context, r.object, r.symbol, r.start}] = i;
  }
  auto path_of = [&](uint64_t id, const std::string& where) {
    std::vector<std::string> path;
    for (size_t guard = 0; id != 0; ++guard) {
      const auto it = ctxs.find(id);
      if (it == ctxs.end() || guard > ctxs.size()) throw Error(where + ": bad region id");
      path.insert(path.begin(), it->second.name);
      id = it->second.parent;
    }
    return path;
  };
  while (std::getline(in, line)) {
    const std::string where = file + ":" + std::to_string(++n);
    if (n == 1) {
      if (line != "rprof-sim-functions 1") throw Error(where + ": not a rprof-sim function table");
      continue;
    }
    if (line.empty()) continue;
    if (line == "overflow contexts") {
      into.context_overflow = true;
      continue;
    }
    if (line.rfind("overflow calls ", 0) == 0) {
      into.call_paths_cap = to_u64(line.substr(15), 10, where);
      continue;
    }
    const std::vector<std::string> f = split_tabs(line);
    if (f[0] == "ctx" && f.size() == 4) {
      ctxs[to_u64(f[1], 10, where)] = Ctx{to_u64(f[2], 10, where), f[3]};
    } else if (f[0] == "fn" && f.size() == 7) {
      FunctionCounts fc;
      fc.object = f[2];
      // Valgrind names versioned symbols "name@@VERSION": the ELF symbol is "name".
      fc.symbol = f[3].substr(0, f[3].find('@'));
      fc.start = to_u64(f[4], 16, where);
      fc.file = f[5].empty() ? f[5] : fs::path(f[5]).lexically_normal().string();
      fc.line = static_cast<unsigned>(to_u64(f[6], 10, where));
      fns[to_u64(f[1], 10, where)] = std::move(fc);
    } else if ((f[0] == "c" || f[0] == "i") && f.size() == 3 + RPROF_SIM_NCOUNTERS) {
      const uint64_t fn = to_u64(f[2], 10, where);
      FunctionCounts fc;
      if (fn != 0) {
        const auto it = fns.find(fn);
        if (it == fns.end()) throw Error(where + ": unknown function id " + f[2]);
        fc = it->second;
      }
      fc.context = path_of(to_u64(f[1], 10, where), where);
      const auto key = std::make_tuple(fc.context, fc.object, fc.symbol, fc.start);
      auto at = row_of.find(key);
      if (at == row_of.end()) {
        at = row_of.emplace(key, into.rows.size()).first;
        into.rows.push_back(std::move(fc));
      }
      FunctionCounts& row = into.rows[at->second];
      CounterMap& m = f[0] == "c" ? row.counters : row.inclusive;
      for (int k = 0; k < RPROF_SIM_NCOUNTERS; ++k) {
        const uint64_t v = to_u64(f[3 + k], 10, where);
        if (v != 0) m[kSimCounterNames[k]] += v;
      }
    } else {
      throw Error(where + ": unexpected line");
    }
  }
}

FunctionTable read_sim_functions(const std::string& dir) {
  FunctionTable t;
  for (const std::string& f : files_like(dir, "functions.", ".txt")) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(f, ec);
    if (ec) throw Error("cannot read " + f);
    if (size > kMaxFunctionTableBytes) {
      throw Error(f + " is larger than " + std::to_string(kMaxFunctionTableBytes >> 20) +
                  " MiB: too many functions or marked regions for the function view");
    }
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    parse_sim_functions(ss.str(), f, t);
  }
  return t;
}

std::string read_sim_logs(const std::string& dir) {
  std::string all;
  for (const std::string& f : files_like(dir, "valgrind.", ".log")) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
  }
  return all;
}

std::string sim_log_names(const std::string& dir) {
  const std::string folder = fs::path(dir).filename().string();
  std::string names;
  for (const std::string& f : files_like(dir, "valgrind.", ".log")) {
    names += (names.empty() ? "" : ", ") + folder + "/" + fs::path(f).filename().string();
  }
  return names.empty() ? "no Valgrind log in " + folder + "/" : names;
}

std::string sanitizer_of(const std::string& program_path) {
  static const std::pair<const char*, const char*> kInits[] = {
      {"__asan_init", "AddressSanitizer"},
      {"__tsan_init", "ThreadSanitizer"},
      {"__msan_init", "MemorySanitizer"},
      {"__hwasan_init", "HWAddressSanitizer"}};
  std::ifstream in(program_path, std::ios::binary);
  if (!in) return "";
  constexpr size_t kChunk = 1 << 20, kOverlap = 16;
  std::string window;
  std::vector<char> buf(kChunk);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    window.append(buf.data(), got);
    for (const auto& [symbol, name] : kInits) {
      if (window.find(symbol) != std::string::npos) return name;
    }
    window.erase(0, window.size() > kOverlap ? window.size() - kOverlap : 0);
  }
  return "";
}

std::string avx512_advice(const std::string& program, const std::string& address) {
  return program + " uses AVX-512 (EVEX-encoded) instructions" +
         (address.empty() ? "" : " (at " + address + " in its code)") +
         ", which Valgrind cannot run, so the sim backend cannot count it: build it with "
         "`rprof cc` (the same flags; `rprof ./app` then counts it with --backend=inst), or "
         "without AVX-512 (e.g. -march=native -mno-avx512f, or -mavx2 -mfma) for "
         "--backend=sim; --backend=time times it without counts";
}

bool log_shows_avx512(const std::string& log_text) {
  return log_text.find("unhandled instruction bytes: 0x62") != std::string::npos;
}

namespace {

// A Valgrind message line without its "==<pid>== " prefix.
std::string unprefixed(const std::string& line) {
  if (line.rfind("==", 0) != 0) return line;
  const size_t end = line.find("== ", 2);
  if (end == std::string::npos) return line;
  return line.substr(end + 3);
}

std::vector<std::string> message_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(unprefixed(line));
  return out;
}

// "valgrind: <what>:" followed by its reason on the next indented lines
// ("the 'impossible' happened:\n   Max number of threads is too low"): the
// message with its reason, never cut at the colon.
std::string with_reason(const std::vector<std::string>& lines, size_t i, const std::string& head) {
  std::string msg = head;
  for (size_t j = i + 1; j < lines.size() && j <= i + 4; ++j) {
    const std::string& l = lines[j];
    const size_t text = l.find_first_not_of(" \t");
    if (text == std::string::npos || text == 0) break;
    msg += " " + l.substr(text);
  }
  return msg;
}

}  // namespace

std::string diagnose_sim_run(const LaunchResult& result, const std::string& log_text,
                             const std::string& stderr_text, const std::string& program,
                             const std::string& log_names) {
  if (log_shows_avx512(log_text) || log_shows_avx512(stderr_text)) {
    return avx512_advice(program, "");
  }
  // Valgrind's own messages: in its log once that is open, on stderr before.
  std::vector<std::string> lines = message_lines(log_text);
  for (std::string& l : message_lines(stderr_text)) lines.push_back(std::move(l));
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.find("Bad option") != std::string::npos) {
      const bool why = i + 1 < lines.size() && !lines[i + 1].empty() &&
                       lines[i + 1].rfind("Use --help", 0) != 0;
      return "Valgrind rejected an option: " + line + (why ? " (" + lines[i + 1] + ")" : "");
    }
    if (line.find("Can't execute setuid/setgid/setcap executable") != std::string::npos) {
      return program +
             " is set-user-ID, set-group-ID or has file capabilities: Valgrind cannot run "
             "such a program, so --backend=sim cannot count it; count a copy without them "
             "(cp " + program + " /tmp/copy) or use --backend=time (timing only)";
    }
    const size_t at = line.find("valgrind: ");
    if (at != std::string::npos) {
      std::string msg = with_reason(lines, i, "Valgrind failed: " + line.substr(at + 10));
      if (msg.find("Max number of threads is too low") != std::string::npos) {
        msg += " (the program ran more threads at once than Valgrind's limit, " +
               std::to_string(kSimMaxThreads) +
               " under rprof; the simulator cannot count it: use --backend=time "
               "or fewer threads)";
      }
      return msg;
    }
  }
  if (result.signal == 0 && result.exit_code == 127) {
    for (const std::string& line : lines) {
      if (line.find("symbol lookup error") != std::string::npos ||
          line.find("error while loading shared libraries") != std::string::npos) {
        return "the dynamic loader stopped " + program + " under the simulator (" + line +
               "): the counted run binds every symbol at start (LD_BIND_NOW=1, so calls "
               "into the rprof runtime are not counted), and a symbol the program never "
               "calls, so natively never binds, is defined by no library";
      }
    }
  }
  if (result.signal != 0) {
    return program + " was killed by signal " + std::to_string(result.signal) +
           " under the simulator (see " + log_names + ")";
  }
  return "";
}

}  // namespace rprof
