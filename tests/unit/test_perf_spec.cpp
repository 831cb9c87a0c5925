// The tool->runtime event list (RPROF_PERF_EVENTS) and sysfs uncore encoding.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hwcounters/perf_spec.h"
#include "hwcounters/uncore.h"

using namespace rprof;
namespace fs = std::filesystem;

TEST_CASE("spec round trip: groups, flags, system-wide cpus, summed keys") {
  PerfGroupSpec a;
  a.events.push_back({"cycles", 0, 0, 0, 0, true, false, -1});
  a.events.push_back({"FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 4, 0x1c7, 0, 0, true, false, -1});
  PerfGroupSpec u;
  u.events.push_back({"UNC_DRAM_READ_LINES", 17, 0x304, 0, 0, false, true, 0});
  u.events.push_back({"UNC_DRAM_READ_LINES", 18, 0x304, 0, 0, false, true, 28});
  u.events.push_back({"UNC_DRAM_WRITE_LINES", 17, 0xc04, 0, 0, false, true, 0});
  const std::string text = format_perf_spec({a, u});
  CHECK(text == "cycles=0:0x0:0x0:0x0:u,FP_ARITH_INST_RETIRED.SCALAR_DOUBLE=4:0x1c7:0x0:0x0:u;"
                "UNC_DRAM_READ_LINES=17:0x304:0x0:0x0:s:0,UNC_DRAM_READ_LINES=18:0x304:0x0:0x0:s:28,"
                "UNC_DRAM_WRITE_LINES=17:0xc04:0x0:0x0:s:0");
  std::vector<PerfGroupSpec> back;
  std::string why;
  REQUIRE(parse_perf_spec(text, 7, &back, &why));
  REQUIRE(back.size() == 2);
  CHECK(back[0].id == 7);
  CHECK(back[1].id == 8);
  CHECK(back[0].events[1].config == 0x1c7);
  CHECK(back[0].events[1].user_only);
  CHECK(back[1].system_wide());
  CHECK(back[1].events[1].cpu == 28);
  CHECK_FALSE(back[1].events[1].user_only);
  // Channels sharing a key are one counter.
  CHECK(back[1].output_keys() == std::vector<std::string>{"UNC_DRAM_READ_LINES", "UNC_DRAM_WRITE_LINES"});
  CHECK(perf_counter_names(back[1]) ==
        std::vector<std::string>{"hw.g8.UNC_DRAM_READ_LINES", "hw.g8.UNC_DRAM_WRITE_LINES",
                                 "hw.g8.enabled_ns", "hw.g8.running_ns"});
  CHECK(perf_counter_count(back) == 4 + 4);
}

TEST_CASE("spec errors are one line naming the bad event") {
  std::vector<PerfGroupSpec> g;
  std::string why;
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b : {Bad{"", "empty"}, Bad{"cycles", "has no '='"},
                       Bad{"cy cles=0:0", "key must be"}, Bad{"c=0", "expected type:config"},
                       Bad{"c=x:0", "must be numbers"}, Bad{"c=0:0:0:0:q", "unknown flag 'q'"},
                       Bad{"c=0:0:0:0:s", "needs a cpu number"},
                       Bad{"a=0:0:0:0:u,b=9:1:0:0:s:0", "all per-thread or all system-wide"}}) {
    INFO(b.text);
    CHECK_FALSE(parse_perf_spec(b.text, 0, &g, &why));
    CHECK(why.find(b.says) != std::string::npos);
    CHECK(why.find('\n') == std::string::npos);
  }
  CHECK(perf_key("perf::PAGE-FAULTS") == "perf..PAGE-FAULTS");
}

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

void pmu(const fs::path& root, const std::string& name, int type, const std::string& cpus,
         const std::map<std::string, std::string>& formats,
         const std::map<std::string, std::string>& events = {}) {
  const fs::path d = root / "sys/bus/event_source/devices" / name;
  write(d / "type", std::to_string(type));
  write(d / "cpumask", cpus);
  for (const auto& [k, v] : formats) write(d / "format" / k, v);
  for (const auto& [k, v] : events) write(d / "events" / k, v);
  fs::create_directories(d / "events");
}

}  // namespace

TEST_CASE("uncore from sysfs: Intel IMC aliases, one event per channel and socket") {
  const fs::path root = fs::path(RPROF_TEST_BIN_DIR) / ("fakesys-" + std::to_string(getpid()));
  fs::remove_all(root);
  const std::map<std::string, std::string> fmt = {{"event", "config:0-7"}, {"umask", "config:8-15"}};
  const std::map<std::string, std::string> ev = {{"cas_count_read", "event=0x04,umask=0x03"},
                                                 {"cas_count_read.scale", "6.103515625e-5"},
                                                 {"cas_count_write", "event=0x04,umask=0x0c"}};
  pmu(root, "uncore_imc_1", 19, "0,28", fmt, ev);
  pmu(root, "uncore_imc_0", 18, "0,28", fmt, ev);
  pmu(root, "uncore_imc_free_running_0", 30, "0,28", fmt, {});  // not a channel PMU
  std::string why;
  const auto g = dram_uncore_group(UncoreKind::kIntelImc, root.string(), &why);
  REQUIRE(g);
  REQUIRE(g->events.size() == 2 * 2 * 2);  // channels x events x sockets
  CHECK(g->events[0].type == 18);  // sorted by channel number
  CHECK(g->events[0].config == 0x0304);
  CHECK(g->events[0].cpu == 0);
  CHECK(g->events[1].cpu == 28);
  CHECK(g->events[2].config == 0x0c04);
  CHECK(g->events[2].key == "UNC_DRAM_WRITE_LINES");
  CHECK(g->events[4].type == 19);
  CHECK(g->system_wide());
  CHECK_FALSE(g->events[0].user_only);  // uncore PMUs refuse exclude_* bits
  CHECK(g->output_keys().size() == 2);
  CHECK_FALSE(dram_uncore_group(UncoreKind::kAmdUmc, root.string(), &why));
  CHECK(why.find("no amd_umc PMU") != std::string::npos);
  fs::remove_all(root);
}

TEST_CASE("uncore from sysfs: AMD DF split event bits, UMC read/write mask") {
  const fs::path root = fs::path(RPROF_TEST_BIN_DIR) / ("fakesys-amd-" + std::to_string(getpid()));
  fs::remove_all(root);
  pmu(root, "amd_df", 11, "0,64", {{"event", "config:0-7,32-35"}, {"umask", "config:8-15"}});
  pmu(root, "amd_umc_0", 12, "0", {{"event", "config:0-7"}, {"rdwrmask", "config:8-9"}});
  std::string why;
  const auto df = dram_uncore_group(UncoreKind::kAmdDf, root.string(), &why);
  REQUIRE(df);
  REQUIRE(df->events.size() == 8 * 2);
  // Channel 4: event 0x107 -> low byte 0x07 in config 0-7, high bits 0x1 in 32-35.
  CHECK(df->events[8].config == (0x07ull | 0x38ull << 8 | 1ull << 32));
  CHECK(df->output_keys() == std::vector<std::string>{"UNC_DF_DRAM_BEATS"});
  const auto umc = dram_uncore_group(UncoreKind::kAmdUmc, root.string(), &why);
  REQUIRE(umc);
  CHECK(umc->events[0].config == (0x0aull | 1ull << 8));
  CHECK(umc->events[1].config == (0x0aull | 2ull << 8));
  PerfEventSpec e;
  UncorePmu p;
  p.name = "x";
  p.formats["event"] = "config:0-3";
  CHECK_FALSE(encode_terms(p, {{"event", 0x1f}}, &e, &why));
  CHECK(why.find("does not fit") != std::string::npos);
  CHECK_FALSE(encode_terms(p, {{"umask", 1}}, &e, &why));
  CHECK_FALSE(parse_event_terms("event=zz"));
  fs::remove_all(root);
}
