// The function view without Valgrind: parsing the tool's per-function table
// (summing processes, region paths, versioned symbols, malformed input) and
// turning it into regions joined with sampled times (profile/function_view.h).
#include <catch2/catch.hpp>
#include <string>

#include "backends/sim/sim_run.h"
#include "common/error.h"
#include "profile/function_view.h"

using namespace rprof;

namespace {

std::string counts(uint64_t dp_flops, uint64_t l1_read) {
  // 20 counters in sim_protocol.h order: flops.dp.scalar is #3, fpins.dp.scalar
  // #9, bytes.l1.read #12.
  std::string s;
  for (int k = 0; k < 20; ++k) {
    const uint64_t v = k == 3 || k == 9 ? dp_flops : k == 12 ? l1_read : 0;
    s += "\t" + std::to_string(v);
  }
  return s;
}

const char* const kObj = "/opt/app/bin/app";

std::string table() {
  return std::string("rprof-sim-functions 1\n") +
         "ctx\t1\t0\tsolve\n"
         "ctx\t2\t1\tinner\n"
         "fn\t1\t" + kObj + "\tkernel\t401000\t/src/app.c\t12\n"
         "fn\t2\t" + kObj + "\tmain\t401100\t/src/app.c\t40\n"
         "fn\t3\t/lib/libc.so.6\tmemcpy@@GLIBC_2.14\t1000\t\t0\n"
         "c\t0\t1" + counts(100, 800) + "\n"
         "c\t2\t1" + counts(300, 2400) + "\n"
         "c\t0\t2" + counts(1, 8) + "\n"
         "i\t0\t2" + counts(401, 3216) + "\n"
         "c\t1\t3" + counts(0, 64) + "\n";
}

Profile program(double time_s) {
  Profile p;
  Region r;
  r.name = kProgramRegion;
  r.path = {kProgramRegion};
  r.calls = 1;
  r.time_s = time_s;
  r.exclusive_time_s = time_s / 2;
  p.regions.push_back(r);
  Region s;
  s.name = "solve";
  s.path = {"solve"};
  s.time_s = s.exclusive_time_s = time_s / 2;
  p.regions.push_back(s);
  Region i;
  i.name = "inner";
  i.path = {"solve", "inner"};
  i.time_s = i.exclusive_time_s = time_s / 4;
  p.regions.push_back(i);
  return p;
}

const Region* find(const Profile& p, const std::vector<std::string>& path) { return p.find(path); }

}  // namespace

TEST_CASE("function table: contexts become region paths, processes are summed") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  parse_sim_functions(table(), "b.txt", t);  // a second process: same rows, summed
  REQUIRE(t.rows.size() == 4);
  const FunctionCounts& k_out = t.rows[0];
  CHECK(k_out.context.empty());
  CHECK(k_out.symbol == "kernel");
  CHECK(k_out.file == "/src/app.c");
  CHECK(k_out.line == 12);
  CHECK(k_out.counters.at("flops.dp.scalar") == 200);
  const FunctionCounts& k_in = t.rows[1];
  CHECK(k_in.context == std::vector<std::string>{"solve", "inner"});
  CHECK(k_in.counters.at("flops.dp.scalar") == 600);
  CHECK(t.rows[2].inclusive.at("flops.dp.scalar") == 802);
  CHECK(t.rows[3].symbol == "memcpy");  // the version suffix is not the ELF name
}

TEST_CASE("function table: malformed input is refused with file and line") {
  FunctionTable t;
  std::string what;
  try {
    parse_sim_functions("rprof-sim-functions 1\nc\t0\t9" + counts(1, 1) + "\n", "x.txt", t);
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("x.txt:2") != std::string::npos);
  CHECK(what.find("unknown function id") != std::string::npos);
  CHECK_THROWS_AS(parse_sim_functions("something else\n", "y.txt", t), Error);
  CHECK_THROWS_AS(parse_sim_functions("rprof-sim-functions 1\nc\t0\t1\t2\n", "z.txt", t), Error);
}

TEST_CASE("function view: sampled self times joined by object and symbol, split by region") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  Profile p = program(2.0);
  FunctionTimes times;
  times.sampled = true;
  times.samples = 1000;
  times.functions.push_back({kObj, "kernel", 0x401000, 800, 0, 0.8, 0, 1});
  times.functions.push_back({kObj, "main", 0x401100, 10, 0, 0.01, 0, 1});
  add_function_regions(p, t, times, FunctionViewOptions{});
  const Region* k_out = find(p, {kProgramRegion, "kernel"});
  const Region* k_in = find(p, {"solve", "inner", "kernel"});
  REQUIRE(k_out != nullptr);
  REQUIRE(k_in != nullptr);
  // kernel's 0.8 s split by its simulated work: 1/4 outside, 3/4 in solve/inner.
  CHECK(k_out->time_s == Approx(0.2));
  CHECK(k_in->time_s == Approx(0.6));
  CHECK(k_in->fn_source == "/src/app.c:12");
  CHECK(k_in->counters.at("flops.dp.scalar") == 300);
  const Region* m = find(p, {kProgramRegion, "main"});
  REQUIRE(m != nullptr);
  CHECK(m->fn_inclusive.at("flops.dp.scalar") == 401);
  bool sampled_note = false;
  for (const std::string& n : p.notes) sampled_note |= n.find("cpu-clock") != std::string::npos;
  CHECK(sampled_note);
}

TEST_CASE("function view: each function keeps its samples, the period and its threads") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  Profile p = program(2.0);
  FunctionTimes times;
  times.sampled = true;
  times.samples = 800;
  times.period_s = 1e-3;
  times.threads = 3;
  times.functions.push_back({kObj, "kernel", 0x401000, 800, 0, 0.8, 0, 1});
  add_function_regions(p, t, times, FunctionViewOptions{});
  const Region* k = find(p, {kProgramRegion, "kernel"});
  REQUIRE(k != nullptr);
  CHECK(k->fn_sampled);
  CHECK(k->fn_samples == 800);
  CHECK(k->fn_period_s == 1e-3);
  CHECK(k->fn_threads == 1);  // the threads with a sample in it
  // main: FLOPs and no sample; it can have run on any of the run's 3 threads.
  const Region* m = find(p, {kProgramRegion, "main"});
  REQUIRE(m != nullptr);
  CHECK(m->fn_sampled);
  CHECK(m->fn_samples == 0);
  CHECK(m->time_s == 0);
  CHECK(m->fn_threads == 3);
  // Without sampling there is nothing to bound a time by.
  Profile q = program(2.0);
  add_function_regions(q, t, FunctionTimes{}, FunctionViewOptions{});
  REQUIRE(find(q, {kProgramRegion, "main"}) != nullptr);
  CHECK(!find(q, {kProgramRegion, "main"})->fn_sampled);
}

TEST_CASE("function view: without samples the times are simulated and the report says why") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  Profile p = program(1.0);
  FunctionTimes times;
  times.why = "perf_event_paranoid is 4";
  FunctionViewOptions o;
  o.top = 1;
  add_function_regions(p, t, times, o);
  // Only the busiest (kernel under solve/inner) becomes a region.
  size_t functions = 0;
  for (const Region& r : p.regions) functions += r.is_function() ? 1 : 0;
  CHECK(functions == 1);
  const Region* k = find(p, {"solve", "inner", "kernel"});
  REQUIRE(k != nullptr);
  // The only function in solve/inner: all of that region's exclusive time.
  CHECK(k->time_s == Approx(0.25));
  bool why = false, left_out = false;
  for (const std::string& n : p.notes) {
    why |= n.find("times are simulated: perf_event_paranoid is 4") != std::string::npos;
    left_out |= n.find("3 more function(s) left out") != std::string::npos;
  }
  CHECK(why);
  CHECK(left_out);
}

TEST_CASE("function view: --functions=N shows more only of what N left out, not the quiet functions") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  FunctionTimes times;
  times.sampled = true;
  times.samples = 1000;
  times.functions.push_back({kObj, "kernel", 0x401000, 800, 0, 0.8, 0, 1});
  times.functions.push_back({kObj, "main", 0x401100, 10, 0, 0.01, 0, 1});
  const auto notes_with = [&](size_t top) {
    Profile p = program(2.0);
    FunctionViewOptions o;
    o.top = top;
    add_function_regions(p, t, times, o);
    std::string all;
    for (const std::string& n : p.notes) all += n + "\n";
    return all;
  };
  // The run's note on a program without marker data names the functions.
  {
    Profile p = program(2.0);
    p.notes.push_back("no marker data: the program is not linked with the rprof runtime (or its "
                      "markers were inactive); only the whole program was measured");
    add_function_regions(p, t, times, FunctionViewOptions{});
    CHECK(p.notes.front() ==
          "no marker data: the program is not linked with the rprof runtime (or its markers "
          "were inactive); the whole program was measured, and its functions (the function "
          "view)");
  }
  // memcpy: no FLOPs, no sample, 8 of the 810 words of simulated work (1.0%
  // would be 8.1): quiet, whatever N.
  const std::string one = notes_with(1);
  CHECK(one.find("function view: 2 more function(s) left out (24.9% of the simulated work") !=
        std::string::npos);
  CHECK(one.find("--functions=N shows more") != std::string::npos);
  CHECK(one.find("function view: 1 function(s) without FLOPs that no cpu-clock sample hit") !=
        std::string::npos);
  const std::string all = notes_with(100);
  CHECK(all.find("more function(s) left out") == std::string::npos);
  CHECK(all.find("--functions=N shows more") == std::string::npos);
  CHECK(all.find("function view: 1 function(s) without FLOPs that no cpu-clock sample hit, each "
                 "under 1% of the simulated work (start-up, the allocator, printf), left out "
                 "(1.0% of the simulated work)") != std::string::npos);
}

TEST_CASE("function view: C++ and gfortran module procedures are demangled, C names kept") {
  CHECK(demangle_symbol("_Z4tdotIdET_RKSt6vectorIS0_SaIS0_EES5_") ==
        "double tdot<double>(std::vector<double, std::allocator<double> > const&, "
        "std::vector<double, std::allocator<double> > const&)");
  CHECK(demangle_symbol("__kern_MOD_daxpy_m") == "kern::daxpy_m");
  CHECK(demangle_symbol("__my_mod_MOD_sub._omp_fn.0") == "my_mod::sub._omp_fn.0");
  CHECK(demangle_symbol("jacobi_") == "jacobi_");
  CHECK(demangle_symbol("MAIN__") == "MAIN__");
  CHECK(demangle_symbol("__memset_avx2_unaligned_erms") == "__memset_avx2_unaligned_erms");
  CHECK(demangle_symbol("___MOD_x") == "___MOD_x");
}

TEST_CASE("function view: a function without FP work has 0 FLOPs, measured, not an unknown count") {
  FunctionTable t;
  parse_sim_functions(table(), "a.txt", t);
  Profile p = program(2.0);
  // The simulated run counted FLOPs and bytes for the whole program.
  for (const char* name : {"flops.dp.scalar", "flops.sp.256", "fpins.dp.scalar", "bytes.l1.read",
                           "bytes.dram.read"}) {
    p.regions[0].counters[name] = 0;
  }
  FunctionTimes times;
  times.why = "--sim-only";
  add_function_regions(p, t, times, FunctionViewOptions{});
  const Region* copy = find(p, {"solve", "memcpy"});
  REQUIRE(copy != nullptr);
  CHECK(copy->counters.at("flops.dp.scalar") == 0);
  CHECK(copy->counters.at("flops.sp.256") == 0);
  CHECK(copy->counters.at("fpins.dp.scalar") == 0);
  CHECK(copy->counters.at("bytes.l1.read") == 64);
  CHECK(copy->counters.at("bytes.dram.read") == 0);
  CHECK(copy->fn_inclusive.at("flops.dp.scalar") == 0);
  const Region* k = find(p, {"solve", "inner", "kernel"});
  REQUIRE(k != nullptr);
  CHECK(k->counters.at("flops.dp.scalar") == 300);
}

TEST_CASE("function view: where no sample tells them apart, a function with FLOPs comes first") {
  // memcpy: no FLOPs, 1000 words of work; main: 1 FLOP, 2 of work; neither
  // sampled. kernel's two rows are sampled and come first.
  const std::string text = std::string("rprof-sim-functions 1\n") +
                           "ctx\t1\t0\tsolve\n"
                           "fn\t1\t" + kObj + "\tkernel\t401000\t/src/app.c\t12\n"
                           "fn\t2\t" + kObj + "\tmain\t401100\t/src/app.c\t40\n"
                           "fn\t3\t/lib/libc.so.6\tmemcpy\t1000\t\t0\n"
                           "c\t0\t1" + counts(100, 800) + "\n"
                           "c\t1\t1" + counts(300, 2400) + "\n"
                           "c\t0\t2" + counts(1, 8) + "\n"
                           "c\t0\t3" + counts(0, 8000) + "\n";
  FunctionTable t;
  parse_sim_functions(text, "a.txt", t);
  FunctionTimes times;
  times.sampled = true;
  times.samples = 800;
  times.threads = 1;
  times.functions.push_back({kObj, "kernel", 0x401000, 800, 0, 0.8, 0, 1});
  Profile p = program(2.0);
  FunctionViewOptions o;
  o.top = 3;
  add_function_regions(p, t, times, o);
  CHECK(find(p, {"solve", "kernel"}) != nullptr);
  CHECK(find(p, {kProgramRegion, "kernel"}) != nullptr);
  CHECK(find(p, {kProgramRegion, "main"}) != nullptr);
  CHECK(find(p, {kProgramRegion, "memcpy"}) == nullptr);
  o.top = 4;
  Profile q = program(2.0);
  add_function_regions(q, t, times, o);
  CHECK(find(q, {kProgramRegion, "memcpy"}) != nullptr);
}
