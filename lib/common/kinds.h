// The small vocabularies of the model, as enums with their one spelling
// each: precision, vector width, memory boundary (profile, machine,
// roofline), and a verdict's bound and flags (analysis, writers). Strings
// appear only where these leave the tool (JSON keys, report text).
//
// A boundary is named after the level it leads into: L1 = core<->L1 (the
// program's loads and stores), L2 = L1<->L2, LLC = L2<->LLC, DRAM = LLC<->DRAM.
#ifndef RPROF_COMMON_KINDS_H_
#define RPROF_COMMON_KINDS_H_

#include <array>
#include <optional>
#include <string>

namespace rprof {

enum class Precision { kSP = 0, kDP = 1 };
enum class Width { kScalar = 0, k128 = 1, k256 = 2, k512 = 3 };
enum class Boundary { kL1 = 0, kL2 = 1, kLLC = 2, kDRAM = 3 };

inline constexpr std::array<Boundary, 4> kBoundaries = {Boundary::kL1, Boundary::kL2,
                                                         Boundary::kLLC, Boundary::kDRAM};
inline constexpr std::array<Width, 4> kWidths = {Width::kScalar, Width::k128,
                                                 Width::k256, Width::k512};

const char* boundary_name(Boundary b);    // "L1", "L2", "LLC", "DRAM"
const char* boundary_key(Boundary b);     // "l1", "l2", "llc", "dram"
const char* width_name(Width w);          // "scalar", "128", "256", "512"
const char* precision_name(Precision p);  // "SP", "DP"
std::optional<Boundary> parse_boundary(const std::string& s);  // l1|l2|llc|dram (or L1...)
int lanes(Precision p, Width w);  // elements per instruction: 1, 2/4, 4/8, 8/16

// What limits a region (roofline/classify.h): a roof, a chain of dependent
// FP operations, or none (its threads waited off the CPU; it ran far below
// every roof).
enum class Bound { kUnknown, kCompute, kMemory, kWaiting, kBelowRoofs, kDependencyChain };
// "unknown", "compute", "memory", "waiting", "below-roofs", "dependency-chain"
const char* bound_key(Bound b);

// The verdict's flags, where the simple roofline misleads (docs/verdicts.md).
enum class Flag {
  kLatencyBound,
  kLowVectorization,
  kUnderutilized,
  kTrafficAboveIdeal,
  kAboveRoof,
  kLoadImbalance,
  kTooShort,
  kImplausibleLatency,
  // Its threads were runnable but not running (waiting for a CPU) for a
  // large share of their time: the machine was busy.
  kBusyMachine,
  // Several processes ran it on one host, and the cache model simulated
  // each with an LLC of its own.
  kOwnCache,
};
const char* flag_key(Flag f);  // "latency-bound", "low-vectorization", ...

// Marker misuse the runtime records (lib/runtime/thread_state.h ErrorKind,
// spelled as in the raw profile). A kind this rprof does not know (a newer
// runtime's) is kept as its text.
enum class MarkerErrorKind {
  kMismatchedEnd,
  kEndWithoutBegin,
  kEmptyName,
  kTooDeep,
  kTooManyRegions,
  kWorkOutsideRegion,
  kBadWork,
  kInSignalHandler,
  kTooManyPaths,
  kNameTooLong,
  kReservedName,
};
std::optional<MarkerErrorKind> parse_marker_error_kind(const std::string& s);

}  // namespace rprof

#endif  // RPROF_COMMON_KINDS_H_
