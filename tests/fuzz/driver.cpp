// A small mutation fuzzer with libFuzzer's command line, for builds without
// clang's -fsanitize=fuzzer (GCC): the target is built under ASan+UBSan, runs
// every file of the corpus folders given, then mutates them (bytes, JSON
// tokens, splices of two inputs) until -max_total_time or -runs is reached.
//
//   fuzz_raw [-max_total_time=S] [-runs=N] [-seed=N] [-timeout=S] DIR|FILE...
//
// An input that crashes, trips a sanitizer, throws anything but rprof::Error
// or runs past -timeout is written to crash-<n>.json in the working directory
// before the process dies (the sanitizer's death callback, std::terminate, or
// SIGALRM), so it can be added to the corpus as a reproducer.
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"

extern "C" const char* __asan_default_options() {
  // Leak checking needs ptrace, which containers often refuse; a reader
  // that grows past 1.5 GB is a bug (the caps keep it far below).
  return "detect_leaks=0:hard_rss_limit_mb=1536:abort_on_error=1";
}
extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

namespace {

std::string g_current;  // the input being run, written out if it kills us

void save_current(const char* why) {
  char name[64];
  std::snprintf(name, sizeof name, "crash-%d.json", static_cast<int>(getpid()));
  if (FILE* f = std::fopen(name, "wb")) {
    std::fwrite(g_current.data(), 1, g_current.size(), f);
    std::fclose(f);
    std::fprintf(stderr, "fuzz: %s; the input (%zu bytes) is in %s\n", why, g_current.size(), name);
  }
}

void on_death() { save_current("crash"); }
// A trap (__builtin_trap: a target's own check), or a fault ASan did not
// report: save the input, then die of the signal as before.
void on_fatal(int sig) {
  save_current(sig == SIGILL ? "trap (a check in the target failed)" : "fatal signal");
  signal(sig, SIG_DFL);
  raise(sig);
}
void on_alarm(int) {
  save_current("timeout");
  _exit(70);
}
void on_terminate() {
  save_current("uncaught exception");
  std::abort();
}

const char* const kTokens[] = {
    "{", "}", "[", "]", "\"", ":", ",", "-", "0", "-1", "-5", "1e308", "1e30", "-1e308", "1e999",
    "0.5", "NaN", "Infinity", "true", "false", "null", "\\u0000", "\\ud800", "\"\\",
    "18446744073709551615", "18446744073709551616", "9223372036854775807",
    "9223372036854775808", "-9223372036854775809", "4294967297", "2147483646", "2147483648",
    "\"format\"", "\"rprof-raw\"", "\"rprof-profile\"", "\"rprof-machine\"",
    "\"schema_version\"", "\"world_size\"", "\"rank\"", "\"regions\"", "\"threads\"",
    "\"nodes\"", "\"parent\"", "\"region\"", "\"calls\"", "\"open\"", "\"counters\"",
    "\"path\"", "\"name\"", "\"rows\"", "\"gflops\"", "\"gbs\"", "\"ceilings\"",
    "\"missing_ranks\"", "\"time_s\"", "\"incl\"", "\"excl\"", "[[[[[[[[[[[[[[[[",
    "]]]]]]]]]]]]]]]]", "{\"a\":{\"a\":{\"a\":{\"a\":"};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}
  size_t below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  std::string mutate(std::string s, const std::vector<std::string>& corpus) {
    const size_t rounds = 1 + below(4);
    for (size_t i = 0; i < rounds; ++i) step(s, corpus);
    if (s.size() > kMaxLen) s.resize(kMaxLen);
    return s;
  }

 private:
  static constexpr size_t kMaxLen = 1 << 20;

  void step(std::string& s, const std::vector<std::string>& corpus) {
    const size_t at = below(s.size() + 1);
    switch (below(9)) {
      case 0:  // flip a bit
        if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:  // a random byte
        if (!s.empty()) s[below(s.size())] = static_cast<char>(below(256));
        break;
      case 2:  // delete a run
        if (!s.empty()) s.erase(below(s.size()), 1 + below(16));
        break;
      case 3:  // insert a token
      case 4: {
        const char* t = kTokens[below(sizeof kTokens / sizeof kTokens[0])];
        s.insert(at, t);
        break;
      }
      case 5: {  // replace a number with a token
        const size_t d = s.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        const size_t e = s.find_first_not_of("0123456789.eE+-", d);
        s.replace(d, (e == std::string::npos ? s.size() : e) - d,
                  kTokens[below(sizeof kTokens / sizeof kTokens[0])]);
        break;
      }
      case 6: {  // duplicate a chunk (repeated members, long arrays)
        if (s.empty()) break;
        const size_t b = below(s.size());
        const std::string chunk = s.substr(b, 1 + below(256));
        s.insert(at, chunk);
        break;
      }
      case 7: {  // splice in part of another input
        const std::string& o = corpus[below(corpus.size())];
        if (o.empty()) break;
        const size_t b = below(o.size());
        s.replace(at, below(64), o.substr(b, 1 + below(512)));
        break;
      }
      default:  // truncate
        s.resize(below(s.size() + 1));
        break;
    }
  }

  std::mt19937_64 rng_;
};

bool read_whole(const std::filesystem::path& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int run_one(const std::string& input) {
  g_current = input;
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(g_current.data()),
                                g_current.size());
}

}  // namespace

int main(int argc, char** argv) {
  double max_time = 0;
  uint64_t runs = 0, seed = 1;
  unsigned timeout = 10;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("-max_total_time=")) max_time = std::atof(v);
    else if (const char* v2 = value("-runs=")) runs = std::strtoull(v2, nullptr, 10);
    else if (const char* v3 = value("-seed=")) seed = std::strtoull(v3, nullptr, 10);
    else if (const char* v4 = value("-timeout=")) timeout = static_cast<unsigned>(std::atoi(v4));
    else if (!a.empty() && a[0] == '-') std::fprintf(stderr, "fuzz: ignoring %s\n", a.c_str());
    else paths.push_back(a);
  }
  __sanitizer_set_death_callback(on_death);
  std::set_terminate(on_terminate);
  signal(SIGALRM, on_alarm);
  signal(SIGILL, on_fatal);

  std::vector<std::string> corpus;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec)) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        std::string s;
        if (read_whole(f, &s)) corpus.push_back(std::move(s));
      }
    } else {
      std::string s;
      if (!read_whole(p, &s)) {
        std::fprintf(stderr, "fuzz: cannot read %s\n", p.c_str());
        return 2;
      }
      corpus.push_back(std::move(s));
    }
  }
  if (corpus.empty()) corpus.push_back("{}");
  // Every corpus input once (the reproducers of bugs already fixed).
  for (const std::string& s : corpus) {
    alarm(timeout);
    run_one(s);
    alarm(0);
  }
  std::fprintf(stderr, "fuzz: %zu corpus inputs ran clean\n", corpus.size());
  if (max_time <= 0 && runs == 0) return 0;

  Mutator m(seed);
  const auto start = std::chrono::steady_clock::now();
  uint64_t n = 0;
  for (;; ++n) {
    if (runs != 0 && n >= runs) break;
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    if (max_time > 0 && (n & 63) == 0 && elapsed() >= max_time) break;
    std::string input = m.mutate(corpus[m.below(corpus.size())], corpus);
    alarm(timeout);
    run_one(input);
    alarm(0);
    // Keep a few mutants as seeds for further mutation (bounded).
    if (corpus.size() < 4096 && m.below(64) == 0) corpus.push_back(std::move(input));
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "fuzz: %llu mutated inputs in %.1f s (seed %llu), no crash\n",
               static_cast<unsigned long long>(n), secs, static_cast<unsigned long long>(seed));
  return 0;
}
