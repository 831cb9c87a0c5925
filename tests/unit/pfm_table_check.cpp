// pfm_table_check TABLE: encodes every event of an rprof event table with
// libpfm4 for the table's PMU (set LIBPFM_FORCE_PMU itself, then re-execs)
// and compares with the table's raw code. Where this libpfm4 lacks the PMU
// and the table names a fallback (pfm_check_pmu: the same core's previous
// generation, whose names the rows spell with explicit unit masks), the
// names are encoded with that PMU, and the output says so. Prints each
// event; exit 0 when all libpfm4-named events match, 1 otherwise, 77 when
// libpfm4 can drive neither PMU.
#include <perfmon/pfmlib_perf_event.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hwcounters/event_tables.h"
#include "hwcounters/pfm_encoder.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pfm_table_check TABLE\n");
    return 2;
  }
  const rprof::CpuTable& t = rprof::table_by_id(argv[1]);
  const char* forced = std::getenv("LIBPFM_FORCE_PMU");
  if (forced == nullptr || (t.pfm_pmu != forced && t.pfm_check_pmu != forced)) {
    setenv("LIBPFM_FORCE_PMU", t.pfm_pmu.c_str(), 1);  // read by pfm_initialize
    execv("/proc/self/exe", argv);
    std::perror("exec");
    return 2;
  }
  const std::string pmu = rprof::libpfm_core_pmu();
  if (pmu != forced || pmu.empty()) {
    if (std::string(forced) == t.pfm_pmu && !t.pfm_check_pmu.empty()) {
      std::printf("this libpfm4 has no PMU %s: encoding with %s\n", t.pfm_pmu.c_str(),
                  t.pfm_check_pmu.c_str());
      setenv("LIBPFM_FORCE_PMU", t.pfm_check_pmu.c_str(), 1);
      execv("/proc/self/exe", argv);
      std::perror("exec");
      return 2;
    }
    std::printf("SKIP: this libpfm4 cannot drive PMU %s\n", forced);
    return 77;
  }
  std::printf("%s: libpfm4 PMU %s%s\n", t.id.c_str(), pmu.c_str(),
              pmu == t.pfm_pmu ? "" : " (fallback: the table's own PMU is missing)");
  int bad = 0, checked = 0;
  for (const rprof::TableEvent& e : t.events) {
    if (e.pfm.empty()) {
      std::printf("%-58s raw 0x%llx (%s; libpfm4 has no name)\n", e.key.c_str(),
                  static_cast<unsigned long long>(e.raw), e.source.c_str());
      continue;
    }
    const rprof::PfmEncoding enc = rprof::pfm_encode(e.pfm);
    const bool ok = enc.ok && enc.type == e.type && enc.config == e.raw;
    ++checked;
    bad += ok ? 0 : 1;
    std::printf("%-58s %s libpfm4 %s -> type %u config 0x%llx, table 0x%llx %s\n", e.key.c_str(),
                ok ? "ok " : "BAD", e.pfm.c_str(), enc.type,
                static_cast<unsigned long long>(enc.config),
                static_cast<unsigned long long>(e.raw), enc.ok ? "" : enc.error.c_str());
  }
  std::printf("%s: %d of %d libpfm4-named events match\n", t.id.c_str(), checked - bad, checked);
  return bad == 0 ? 0 : 1;
}
