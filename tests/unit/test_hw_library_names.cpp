// The papi and likwid backends' spelling of the table events, without the
// libraries: PAPI names, likwid EVENT:COUNTER assignment with fixed counters
// and Zen's MERGE pair on an even counter.
#include <catch2/catch.hpp>

#include "backends/likwid/likwid_driver.h"
#include "backends/papi/papi_driver.h"

using namespace rprof;

namespace {

std::vector<std::string> names(const std::vector<LibraryEvent>& g) {
  std::vector<std::string> out;
  for (const LibraryEvent& e : g) out.push_back(e.key + "=" + e.name);
  return out;
}

}  // namespace

TEST_CASE("PAPI names: presets for cycles/instructions, libpfm4 names, perf_raw for the rest") {
  const LibraryGroups g = papi_event_groups(table_by_id("skx"));
  REQUIRE(g.size() == 4);
  CHECK(names(g[0]) == std::vector<std::string>{
                           "cycles=PAPI_TOT_CYC", "instructions=PAPI_TOT_INS",
                           "FP_ARITH_INST_RETIRED.SCALAR_DOUBLE=FP_ARITH_INST_RETIRED:SCALAR_DOUBLE",
                           "FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE",
                           "FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE",
                           "FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE"});
  CHECK(names(g[2])[1] == "L1D.M_EVICT=perf_raw::r451");  // no libpfm4 name: the raw code
}

TEST_CASE("likwid: fixed counters, PMCs in order, MERGE on an even pair, gaps reported") {
  std::vector<std::string> missing;
  const LibraryGroups skx = likwid_event_groups(table_by_id("skx"), &missing);
  CHECK(missing.empty());
  REQUIRE(skx.size() == 4);
  CHECK(names(skx[0]) ==
        std::vector<std::string>{"cycles=CPU_CLK_UNHALTED_CORE:FIXC1", "instructions=INSTR_RETIRED_ANY:FIXC0",
                                 "FP_ARITH_INST_RETIRED.SCALAR_DOUBLE=FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC0",
                                 "FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE:PMC1",
                                 "FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE:PMC2",
                                 "FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE=FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3"});
  const LibraryGroups zen3 = likwid_event_groups(table_by_id("zen3"), &missing);
  CHECK(names(zen3[0]) == std::vector<std::string>{"cycles=ACTUAL_CPU_CLOCK:FIXC1",
                                                   "instructions=RETIRED_INSTRUCTIONS:PMC0",
                                                   "RETIRED_SSE_AVX_FLOPS.ANY=RETIRED_SSE_AVX_FLOPS_ALL:PMC2",
                                                   "_=MERGE:PMC3"});
  CHECK(missing == std::vector<std::string>{"REQUESTS_TO_L2_GROUP1.DATA",
                                            "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_C",
                                            "ANY_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM"});
}
