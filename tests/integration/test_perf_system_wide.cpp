// The runtime's system-wide (uncore) path, exercised with a kernel software
// event counted per CPU (what uncore memory-controller events are): one
// event per CPU summed into one counter, read only by the main thread. Needs perf_event_paranoid <= 0 or CAP_PERFMON; skips with
// the reason otherwise.
#include <sys/sysinfo.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "hwcounters/perf_counters.h"
#include "hwcounters/perf_errors.h"
#include "integration/harness.h"

using namespace rprof::test;

TEST_CASE("system-wide group: summed over CPUs, on the first marker thread only") {
  rprof::PerfEventSpec probe;
  probe.type = 1;  // PERF_TYPE_SOFTWARE
  probe.config = 2;  // PERF_COUNT_SW_PAGE_FAULTS
  probe.system_wide = true;
  probe.user_only = false;
  probe.cpu = 0;
  const int fd = rprof::perf_event_open_fd(probe, -1, true, false);
  if (fd < 0) {
    std::cout << "SKIP: " << rprof::perf_open_error(errno, rprof::PerfEventClass::kUncore,
                                                      rprof::detect_perf_host())
              << "\n";
    std::exit(RPROF_SKIP_CODE);
  }
  close(fd);
  std::string sys;
  for (int cpu = 0; cpu < get_nprocs(); ++cpu) {
    sys += std::string(sys.empty() ? "" : ",") + "sysfaults=1:0x2:0x0:0x0:s:" + std::to_string(cpu);
  }
  const std::string dir = fresh_dir("sysraw");
  const std::string app = std::string(RPROF_TEST_BIN_DIR) + "/apps/page_toucher";
  auto r = run_command({app, "3", "256"},
                       {"RPROF_OUTPUT_DIR=" + dir, "RPROF_BACKEND=perf",
                        "RPROF_PERF_EVENTS=faults=1:0x2:0x0:0x0:u;" + sys});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(dir)) file = e.path();
  const auto raw = load_json(file);
  // The backend's counters, then the thread CPU time and run delay the
  // runtime adds.
  CHECK(raw["counters"] ==
        nlohmann::json({"hw.g0.faults", "hw.g0.enabled_ns", "hw.g0.running_ns", "hw.g1.sysfaults",
                        "hw.g1.enabled_ns", "hw.g1.running_ns", "time.thread_cpu_ns",
                        "time.thread_run_delay_ns"}));
  int readers = 0;
  for (const auto& t : raw["threads"]) {
    for (const auto& n : t["nodes"]) {
      if (raw["regions"][n["region"].get<int>() - 1]["name"] != "touch") continue;
      const auto& c = n["incl"];
      CHECK(c[0].get<uint64_t>() >= 256u);  // this thread's own faults
      if (c[3].get<uint64_t>() > 0) {
        ++readers;
        CHECK(t["tid"] == raw["pid"]);  // the main thread, which loaded the runtime
        CHECK(c[3].get<uint64_t>() >= c[0].get<uint64_t>());  // the machine's >= its own
        CHECK(c[4].get<uint64_t>() > 0);  // enabled time of the system-wide group
      }
    }
  }
  CHECK(readers == 1);
}
