// `rprof validate`: a hardware-counter profile against an exact one (the
// sim backend's) of the same program, per region and quantity, each against
// the relation the two must satisfy when the event table is right:
//
//   FLOPs                 equal within 2% (retired-FLOP events count what
//                         the simulator counts; FMA = 2 FLOPs on both sides)
//   bytes L1<->L2 read    within 25% (fills vs the simulated L1's misses:
//                         prefetch and replacement policy differ)
//   bytes L2<->LLC read   within -25%/+50% (L2 prefetchers add lines)
//   bytes DRAM read       at least 90% of the model's, at most 2x (hardware
//                         prefetch allowed, within a bound)
//
// A quantity missing on either side, or too small to compare (fewer than
// 10^4 FLOPs or 1000 lines of the exact count), is reported as not
// compared, never as agreement. The writer (tools/rprof/cmd_validate.cpp)
// renders these rows.
#ifndef RPROF_ANALYSIS_VALIDATE_H_
#define RPROF_ANALYSIS_VALIDATE_H_

#include <optional>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace rprof {

enum class ValidationState { kAgrees, kDisagrees, kNotCompared };

struct ValidationRow {
  std::string region;    // path, " > " between names
  std::string quantity;  // "FLOPs", "bytes L2 read", "bytes LLC read", "bytes DRAM read"
  double hardware = 0, exact = 0;
  std::optional<double> ratio;  // hardware / exact
  double low = 0, high = 0;     // the ratio's accepted range
  std::string relation;         // "equal within 2%", ...
  ValidationState state = ValidationState::kNotCompared;
  std::string why;              // when not compared
};

struct Validation {
  std::vector<ValidationRow> rows;
  int agreements = 0, disagreements = 0;
};

Validation validate_profiles(const Profile& hardware, const Profile& exact);

}  // namespace rprof

#endif  // RPROF_ANALYSIS_VALIDATE_H_
