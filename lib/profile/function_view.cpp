#include "profile/function_view.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

namespace rprof {
namespace {

namespace fs = std::filesystem;

// A function's simulated work, the weight when there are no sampled times:
// FP instructions plus 8-byte words loaded or stored.
bool has_flops(const CounterMap& c) {
  for (const auto& [k, v] : c) {
    if (v > 0 && k.rfind("flops.", 0) == 0) return true;
  }
  return false;
}

double simulated_work(const CounterMap& c) {
  double w = 0;
  for (const auto& [k, v] : c) {
    if (k.rfind("fpins.", 0) == 0) w += static_cast<double>(v);
    if (k == "bytes.l1.read" || k == "bytes.l1.write") w += static_cast<double>(v) / 8;
  }
  return w;
}

std::string canonical(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

struct TimeKey {
  std::string object, symbol;
  uint64_t start;  // only without a symbol
  bool operator<(const TimeKey& o) const {
    return std::tie(object, symbol, start) < std::tie(o.object, o.symbol, o.start);
  }
};

TimeKey key_of(const std::string& object, const std::string& symbol, uint64_t start) {
  return {canonical(object), symbol, symbol.empty() ? start : 0};
}

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

std::string demangle_symbol(const std::string& s) {
  if (s.rfind("__", 0) == 0) {
    const size_t mod = s.find("_MOD_", 2);
    if (mod != std::string::npos && mod > 2 && mod + 5 < s.size()) {
      return s.substr(2, mod - 2) + "::" + s.substr(mod + 5);
    }
  }
  if (s.rfind("_Z", 0) != 0) return s;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : s;
}

std::string function_display_name(const FunctionCounts& f) {
  if (!f.symbol.empty()) return demangle_symbol(f.symbol);
  char range[32];
  std::snprintf(range, sizeof(range), "+0x%llx", static_cast<unsigned long long>(f.start));
  const std::string base = f.object.empty() ? "(unknown object)"
                                            : fs::path(f.object).filename().string();
  return base + range;
}

void add_function_regions(Profile& p, const FunctionTable& table, const FunctionTimes& times,
                          const FunctionViewOptions& options) {
  const Region* prog = nullptr;
  for (const Region& r : p.regions) {
    if (r.is_program()) prog = &r;
  }
  if (prog == nullptr) {
    p.notes.push_back("function view: no [program] region (the run was not timed), so no "
                      "function regions");
    return;
  }
  // Sampled self times by (object, symbol), and each function's total simulated
  // work over its contexts (to split its time over marked regions).
  std::map<TimeKey, const FunctionTime*> sampled;
  if (times.sampled) {
    for (const FunctionTime& t : times.functions) {
      sampled[key_of(t.object, t.symbol, t.start)] = &t;
    }
  }
  std::map<TimeKey, double> work_of_function;
  std::map<std::vector<std::string>, double> work_of_context;
  double total_work = 0;
  for (const FunctionCounts& f : table.rows) {
    const double w = simulated_work(f.counters);
    work_of_function[key_of(f.object, f.symbol, f.start)] += w;
    work_of_context[f.context] += w;
    total_work += w;
  }
  // Without samples: the time a context spent outside its child regions
  // (exclusive time; [program]'s is outside every marked region).
  const auto context_time = [&](const std::vector<std::string>& context) {
    const Region* r = context.empty() ? prog : p.find(context);
    return r != nullptr ? r->exclusive_time_s : 0.0;
  };

  struct Candidate {
    const FunctionCounts* f;
    double work;
    double time_s;
  };
  std::vector<Candidate> cands;
  for (const FunctionCounts& f : table.rows) {
    Candidate c{&f, simulated_work(f.counters), 0};
    const TimeKey k = key_of(f.object, f.symbol, f.start);
    if (times.sampled) {
      const auto it = sampled.find(k);
      const double fw = work_of_function[k];
      // A function under several marked regions: its time split by each
      // one's share of its simulated work.
      if (it != sampled.end()) c.time_s = it->second->self_s * (fw > 0 ? c.work / fw : 1.0);
    } else if (work_of_context[f.context] > 0) {
      c.time_s = context_time(f.context) * c.work / work_of_context[f.context];
    }
    cands.push_back(c);
  }
  // The sampled self time orders them; where it does not tell two apart
  // (neither sampled, a short program), one with FLOPs comes first: a kernel
  // too short for a sample outranks the allocator's bookkeeping.
  std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
    if (times.sampled && a.time_s != b.time_s) return a.time_s > b.time_s;
    const bool fa = has_flops(a.f->counters), fb = has_flops(b.f->counters);
    if (times.sampled && fa != fb) return fa;
    return a.work > b.work;
  });

  // prog points into p.regions, which grows below: what is needed of it, now.
  std::vector<std::string> measured;  // what the tool counts for every function
  for (const auto& kv : prog->counters) {
    for (const char* prefix : {"bytes.", "flops.", "fpins."}) {
      if (kv.first.rfind(prefix, 0) == 0) measured.push_back(kv.first);
    }
  }
  std::set<std::vector<std::string>> taken;
  for (const Region& r : p.regions) taken.insert(r.path);
  size_t shown = 0, quiet = 0, outside = 0;
  double shown_work = 0, quiet_work = 0, outside_work = 0;
  // Objects none of whose code a symbol covered (code outside symbols in an
  // object that has some, such as PLT stubs, is grouped by range silently).
  std::set<std::string> no_symbols, with_symbols;
  for (const FunctionCounts& f : table.rows) {
    (f.symbol.empty() ? no_symbols : with_symbols).insert(f.object);
  }
  for (const std::string& o : with_symbols) no_symbols.erase(o);
  no_symbols.erase("");
  // rprof's runtime (its PLT stubs) and Valgrind's preload are not the program.
  for (auto it = no_symbols.begin(); it != no_symbols.end();) {
    const std::string base = fs::path(*it).filename().string();
    const bool ours = base.rfind("librprof", 0) == 0 || base.rfind("vgpreload_", 0) == 0;
    it = ours ? no_symbols.erase(it) : std::next(it);
  }
  for (const Candidate& c : cands) {
    const FunctionCounts& f = *c.f;
    if (c.work == 0 && !(times.sampled && c.time_s > 0)) continue;  // nothing to show
    // Sampled: a function no sample hit and without FLOPs (start-up, libc's
    // allocator and printf) is not among the hottest unless its simulated
    // work says otherwise (1% of the program's). A function with FLOPs keeps
    // its place however short it ran: its counts are exact.
    if (times.sampled && c.time_s == 0 && c.work < 0.01 * total_work && !has_flops(f.counters)) {
      ++quiet;
      quiet_work += c.work;
      continue;
    }
    // A function that opens a marked region runs a few instructions (its
    // prologue, the marker call) under the enclosing context: without FLOPs
    // and under 1% of the function's work over all its contexts, that part
    // is not a row of its own (it would show as a second, 0 s row).
    const double fw = work_of_function[key_of(f.object, f.symbol, f.start)];
    if (fw > 0 && c.work < 0.01 * fw && !has_flops(f.counters)) {
      ++outside;
      outside_work += c.work;
      continue;
    }
    if (shown >= options.top) continue;
    Region g;
    g.name = function_display_name(f);
    g.path = f.context.empty() ? std::vector<std::string>{kProgramRegion} : f.context;
    g.path.push_back(g.name);
    if (taken.count(g.path)) {  // same name twice (static functions): say where
      g.name += " (" + fs::path(f.object).filename().string() + ")";
      g.path.back() = g.name;
    }
    if (taken.count(g.path)) continue;
    taken.insert(g.path);
    g.calls = 0;
    g.time_s = g.exclusive_time_s = g.thread_time_s = c.time_s;
    g.counters = g.exclusive_counters = f.counters;
    g.fn_inclusive = f.inclusive;
    // The tool writes counts above zero only; traffic was counted at every
    // boundary the program has, and FLOPs at every precision and width, so
    // an absent one is 0 bytes or 0 FLOPs, measured (a function without FP
    // work shows 0 FLOPs, not an unknown count).
    for (const std::string& name : measured) {
      g.counters.emplace(name, 0);
      g.exclusive_counters.emplace(name, 0);
      g.fn_inclusive.emplace(name, 0);
    }
    if (times.sampled) {
      g.fn_sampled = true;
      g.fn_period_s = times.period_s;
      const auto it = sampled.find(key_of(f.object, f.symbol, f.start));
      g.fn_samples = it != sampled.end() ? it->second->self_samples : 0;
      // No sample in it: it may have run on any thread of the run.
      g.fn_threads = std::max(1u, it != sampled.end() && it->second->self_samples > 0
                                      ? it->second->threads
                                      : times.threads);
    }
    g.fn_object = f.object.empty() ? "(unknown object)" : f.object;
    g.fn_symbol = f.symbol;
    if (!f.file.empty()) g.fn_source = f.file + ":" + std::to_string(f.line);
    p.regions.push_back(std::move(g));
    ++shown;
    shown_work += c.work;
  }
  sort_tree(p.regions);
  // The run's note on a program without marker data says that only the
  // whole program was measured: its functions now are too.
  const std::string whole = "only the whole program was measured";
  for (std::string& n : p.notes) {
    if (shown > 0 && n.rfind("no marker data", 0) == 0 && n.size() > whole.size() &&
        n.compare(n.size() - whole.size(), whole.size(), whole) == 0) {
      n.replace(n.size() - whole.size(), whole.size(),
                "the whole program was measured, and its functions (the function view)");
    }
  }
  // Their counter names among the profile's (the CSV's columns).
  std::set<std::string> names(p.counters.begin(), p.counters.end());
  for (const FunctionCounts& f : table.rows) {
    for (const auto& kv : f.counters) names.insert(kv.first);
  }
  p.counters.assign(names.begin(), names.end());

  size_t with_work = 0;
  for (const Candidate& c : cands) with_work += c.work > 0 || c.time_s > 0 ? 1 : 0;
  p.notes.push_back(
      "function view: " + std::to_string(shown) + " function(s) shown as regions (" +
      (times.sampled ? "the hottest by sampled self time" : "the busiest by simulated work") +
      "), each with its self counts (what its own instructions did, not its callees'; the "
      "roofline and verdict use them) and, in profile.json, its inclusive counts; "
      "under a marked region, the innermost one open when it ran");
  // A larger N shows the functions beyond the N hottest, not the quiet ones.
  if (with_work > shown + quiet + outside) {
    p.notes.push_back("function view: " + std::to_string(with_work - shown - quiet - outside) +
                      " more function(s) left out (" +
                      percent(total_work - shown_work - quiet_work - outside_work, total_work) +
                      " of the simulated work: FP instructions and 8-byte words loaded or "
                      "stored); --functions=N shows more");
  }
  if (quiet > 0) {
    p.notes.push_back("function view: " + std::to_string(quiet) +
                      " function(s) without FLOPs that no cpu-clock sample hit, each under 1% of "
                      "the simulated work (start-up, the allocator, printf), left out (" +
                      percent(quiet_work, total_work) + " of the simulated work)");
  }
  if (outside > 0) {
    p.notes.push_back("function view: " + std::to_string(outside) +
                      " function part(s) without FLOPs under 1% of their function's work "
                      "(the instructions around a marked region it opens) not shown as rows "
                      "of their own");
  }
  if (times.sampled) {
    p.notes.push_back(
        "function times: self CPU time of a native run sampled with the cpu-clock software "
        "event every " + fmt::format("{:.4g} us", times.period_s * 1e6) +
        " of CPU time per thread, summed over threads (" + std::to_string(times.samples) +
        " samples); each function's time carries its samples n and relative error "
        "1/sqrt(n); a function under several marked regions has its time split by its "
        "simulated work in each");
    if (!times.period_note.empty()) p.notes.push_back("function times: " + times.period_note);
    if (times.throttled > 0) {
      p.notes.push_back("function times: the kernel throttled the sampling " +
                        std::to_string(times.throttled) +
                        " time(s) (kernel.perf_event_max_sample_rate): samples are missing, "
                        "so the sampled times undercount; use a longer --sample-period");
    }
  } else {
    p.notes.push_back(
        "times are simulated: " + (times.why.empty() ? std::string("no sampled run") : times.why) +
        "; each function's time is its region's exclusive time (for [program]: outside every "
        "marked region) split by its share of the simulated work there (FP instructions and "
        "8-byte words loaded or stored), an estimate");
  }
  for (const std::string& o : no_symbols) {
    p.notes.push_back("no symbols for " + o +
                      ": its code is grouped by object and 4 KiB address range");
  }
  if (table.call_paths_cap != 0) {
    p.notes.push_back("function view: more than " + std::to_string(table.call_paths_cap) +
                      " distinct call paths; calls deeper than that were counted without their "
                      "callers, so inclusive counts are lower bounds (self counts stay exact)");
  }
  if (table.context_overflow) {
    p.notes.push_back("function view: too many marked regions to tell apart; some functions "
                      "are shown under an outer region");
  }
}

}  // namespace rprof
