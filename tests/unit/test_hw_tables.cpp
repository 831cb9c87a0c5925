// Event tables: selection from CPU identification (as /proc/cpuinfo shows it)
// for every supported model, and consistency of the tables themselves.
#include <catch2/catch.hpp>
#include <set>

#include "common/error.h"
#include "runtime/backend.h"
#include "hwcounters/event_tables.h"
#include "hwcounters/perf_plan.h"

using namespace rprof;

namespace {

std::string cpuinfo(const std::string& vendor, int family, int model, int stepping,
                    const std::string& name) {
  return "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " +
         std::to_string(family) + "\nmodel\t\t: " + std::to_string(model) +
         "\nmodel name\t: " + name + "\nstepping\t: " + std::to_string(stepping) +
         "\nflags\t\t: fpu sse2 avx avx2 fma\n\n";
}

}  // namespace

TEST_CASE("table selection from CPU identification strings") {
  struct Case {
    const char* vendor;
    int family, model, stepping;
    const char* name;
    const char* table;
  };
  const Case cases[] = {
      {"GenuineIntel", 6, 85, 4, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", "skx"},
      {"GenuineIntel", 6, 85, 7, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "skx"},  // Cascade Lake
      {"GenuineIntel", 6, 106, 6, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "icx"},
      {"GenuineIntel", 6, 143, 8, "Intel(R) Xeon(R) Platinum 8480+", "spr"},
      {"GenuineIntel", 6, 207, 2, "INTEL(R) XEON(R) PLATINUM 8592+", "spr"},  // Emerald Rapids
      {"GenuineIntel", 6, 158, 10, "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "skl"},
      {"GenuineIntel", 6, 94, 3, "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", "skl"},
      {"GenuineIntel", 6, 140, 1, "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", "icl"},
      {"GenuineIntel", 6, 126, 5, "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz", "icl"},
      {"GenuineIntel", 6, 151, 2, "12th Gen Intel(R) Core(TM) i9-12900K", "adl"},  // hybrid
      {"GenuineIntel", 6, 183, 1, "13th Gen Intel(R) Core(TM) i9-13900K", "adl"},   // Raptor Lake
      {"GenuineIntel", 6, 170, 4, "Intel(R) Core(TM) Ultra 7 155H", "generic"},     // Meteor Lake
      {"GenuineIntel", 6, 173, 1, "Intel(R) Xeon(R) 6980P", "gnr"},
      {"GenuineIntel", 6, 175, 3, "Intel(R) Xeon(R) 6780E", "generic"},  // Sierra Forest
      {"AuthenticAMD", 25, 1, 1, "AMD EPYC 7763 64-Core Processor", "zen3"},
      {"AuthenticAMD", 25, 33, 0, "AMD Ryzen 9 5950X 16-Core Processor", "zen3"},
      {"AuthenticAMD", 25, 80, 0, "AMD Ryzen 7 5800U with Radeon Graphics", "zen3"},
      {"AuthenticAMD", 25, 17, 1, "AMD EPYC 9654 96-Core Processor", "zen4"},
      {"AuthenticAMD", 25, 17, 1, "AMD EPYC", "zen4"},  // this VM's spelling
      {"AuthenticAMD", 25, 97, 2, "AMD Ryzen 9 7950X 16-Core Processor", "zen4"},
      {"AuthenticAMD", 25, 160, 2, "AMD EPYC 9754 128-Core Processor", "zen4"},  // Bergamo
      {"AuthenticAMD", 23, 49, 0, "AMD EPYC 7742 64-Core Processor", "zen2"},
      {"AuthenticAMD", 23, 113, 0, "AMD Ryzen 9 3900X 12-Core Processor", "zen2"},
      {"AuthenticAMD", 23, 1, 2, "AMD EPYC 7601 32-Core Processor", "generic"},  // Zen 1
      {"AuthenticAMD", 26, 2, 0, "AMD EPYC 9755 128-Core Processor", "zen5"},
      {"AuthenticAMD", 26, 68, 0, "AMD Ryzen 9 9950X 16-Core Processor", "zen5"},
      {"CentaurHauls", 6, 15, 0, "VIA Nano", "generic"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const CpuId id = parse_cpuinfo(cpuinfo(c.vendor, c.family, c.model, c.stepping, c.name));
    CHECK(select_table(id).id == c.table);
  }
}

TEST_CASE("every table: groups name its events and fit the counters") {
  for (const CpuTable& t : cpu_tables()) {
    INFO(t.id);
    CHECK_FALSE(t.groups.empty());
    std::set<std::string> used;
    for (const auto& g : t.groups) {
      int general = 0;
      for (const std::string& k : g) {
        const TableEvent* e = t.find(k);
        REQUIRE(e != nullptr);
        CHECK(used.insert(k).second);  // each event in one group only
        if (e->type != 0) general += k == "RETIRED_SSE_AVX_FLOPS.ANY" ? 2 : 1;  // MERGE pair
        else if (t.id.rfind("zen", 0) == 0) general += 1;  // Zen: no fixed counters in perf
      }
      CHECK(general <= (t.id.rfind("zen", 0) == 0 ? 6 : 4));
    }
    for (const TableEvent& e : t.events) {
      INFO(e.key);
      CHECK(used.count(e.key) == 1);  // every event is counted somewhere
      CHECK_FALSE(e.roles.empty());
      CHECK_FALSE(e.source.empty());
    }
    CHECK(t.uncore_group < static_cast<int>(t.groups.size()));
  }
}

TEST_CASE("a key means the same in every table (translation needs only the key)") {
  auto same = [](const EventRole& a, const EventRole& b) {
    return a.kind == b.kind && a.precision == b.precision && a.width == b.width &&
           a.boundary == b.boundary && a.write == b.write;
  };
  for (const CpuTable& t : cpu_tables()) {
    for (const TableEvent& e : t.events) {
      const std::vector<EventRole>* r = roles_of(e.key);
      REQUIRE(r != nullptr);
      REQUIRE(r->size() == e.roles.size());
      for (size_t i = 0; i < r->size(); ++i) {
        INFO(t.id << " " << e.key);
        CHECK(same((*r)[i], e.roles[i]));
      }
    }
  }
}

TEST_CASE("plans: one run per group, ids numbered across runs, within the runtime's slots") {
  for (const CpuTable& t : cpu_tables()) {
    INFO(t.id);
    PerfPlanOptions o;
    o.try_uncore = false;
    CpuId cpu;  // any CPU whose table is t: pick by trying the cases above is overkill,
    cpu.vendor = t.id.rfind("zen", 0) == 0 ? "AuthenticAMD" : "GenuineIntel";
    cpu.family = t.id == "zen2" ? 23 : t.id == "zen5" ? 26 : t.id.rfind("zen", 0) == 0 ? 25 : 6;
    const std::map<std::string, int> model = {
        {"skx", 85}, {"skl", 158}, {"icx", 106}, {"icl", 140}, {"spr", 143}, {"gnr", 173},
        {"adl", 151}, {"zen2", 49}, {"zen3", 1}, {"zen4", 17}, {"zen5", 2}, {"generic", 1}};
    cpu.model = model.at(t.id);
    o.allowed_cpus = std::vector<int>{0};  // a performance core on every hybrid machine
    o.root = std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/alder-lake";
    if (t.id == "generic") cpu.vendor = "Other";
    o.cpu = cpu;
    const PerfPlan plan = plan_perf_run(o);
    CHECK(plan.table_id == t.id);
    REQUIRE(plan.passes.size() == t.groups.size());
    int expected_id = 0;
    for (size_t i = 0; i < plan.passes.size(); ++i) {
      const PerfPass& p = plan.passes[i];
      REQUIRE(p.groups.size() == 1);
      CHECK(p.first_group == expected_id);
      CHECK(p.groups[0].id == expected_id++);
      CHECK(perf_counter_count(p.groups) <= kMaxCounters);
      // The handshake parses back to the same groups.
      std::vector<PerfGroupSpec> back;
      std::string why;
      REQUIRE(parse_perf_spec(plan.env(i).at("RPROF_PERF_EVENTS"), p.first_group, &back, &why));
      REQUIRE(back.size() == 1);
      CHECK(perf_counter_names(back[0]) == perf_counter_names(p.groups[0]));
    }
    if (t.id != "generic") {
      bool approx_note = false;
      for (const std::string& n : plan.notes) approx_note |= n.find("DRAM traffic is an approximation") == 0;
      CHECK(approx_note);
    }
    o.multiplex = true;
    const PerfPlan one = plan_perf_run(o);
    REQUIRE(one.passes.size() == 1);
    CHECK(one.passes[0].groups.size() == t.groups.size());
  }
}

TEST_CASE("events: --events generic names, raw codes -- unknown and duplicate names refused") {
  PerfPlanOptions o;
  o.events = {{"page-faults", "task-clock"}};
  const PerfPlan p = plan_perf_run(o);
  CHECK(p.software_only);
  REQUIRE(p.passes.size() == 1);
  CHECK(p.env(0).at("RPROF_PERF_EVENTS") == "page-faults=1:0x2:0x0:0x0:u,task-clock=1:0x1:0x0:0x0:u");
  o.events = {{"page-faults", "r01c7"}};
  const PerfPlan raw = plan_perf_run(o);
  CHECK_FALSE(raw.software_only);
  CHECK(raw.passes[0].groups[0].events[1].type == 4);
  CHECK(raw.passes[0].groups[0].events[1].config == 0x1c7);
  o.events = {{"no-such-event-xyz"}};
  CHECK_THROWS_WITH(plan_perf_run(o), Catch::Contains("unknown event 'no-such-event-xyz'"));
  o.events = {{"cycles"}, {"cycles"}};
  CHECK_THROWS_WITH(plan_perf_run(o), Catch::Contains("listed twice"));
  o.events = {{"page-faults"}, {"task-clock", "minor-faults"}};  // two groups: two runs
  const PerfPlan two = plan_perf_run(o);
  REQUIRE(two.passes.size() == 2);
  CHECK(two.env(1).at("RPROF_PERF_GROUP_BASE") == "1");
  CHECK(two.env(1).at("RPROF_PERF_EVENTS") == "task-clock=1:0x1:0x0:0x0:u,minor-faults=1:0x5:0x0:0x0:u");
  o.multiplex = true;
  CHECK(plan_perf_run(o).passes.size() == 1);
}

TEST_CASE("hybrid Alder Lake: runs that may use efficiency cores are refused, pinned runs planned") {
  const std::string root = std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/alder-lake";
  PerfPlanOptions o;
  o.root = root;
  o.try_uncore = false;
  o.cpu = detect_topology(root).cpu;
  std::vector<int> all;
  for (int c = 0; c < 24; ++c) all.push_back(c);
  o.allowed_cpus = all;
  try {
    plan_perf_run(o);
    FAIL("a run over all 24 CPUs was planned");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(e.exit_code() == 2);
    CHECK_THAT(m, Catch::Contains("CPUs 0-15"));
    CHECK_THAT(m, Catch::Contains("8 efficiency core(s) (cpu_atom, CPUs 16-23)"));
    CHECK_THAT(m, Catch::Contains("no FP_ARITH_INST_RETIRED"));
    CHECK_THAT(m, Catch::Contains("taskset -c 0-15"));
  }
  o.allowed_cpus = std::vector<int>{15, 16};  // one efficiency core is enough to refuse
  CHECK_THROWS_WITH(plan_perf_run(o), Catch::Contains("1 efficiency core(s)"));
  o.allowed_cpus = std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const PerfPlan p = plan_perf_run(o);
  CHECK(p.table_id == "adl");
  REQUIRE(p.passes.size() == 4);
  // Without a cpu_atom PMU in sysfs (efficiency cores off), nothing to refuse.
  CHECK(hybrid_check(std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/machines/zen4-desktop",
                     all).empty());
  CHECK(parse_cpu_set("0-3,8\n") == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(parse_cpu_set("3-1").empty());
  CHECK(parse_cpu_set("x").empty());
}
